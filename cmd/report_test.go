package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// report must refuse what compare did not write, rather than print a table of
// zeros (a foreign JSON line) or nothing at all (an empty file) with exit 0.
func TestReportRejectsForeignFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	foreign := write("other.jsonl", `{"foo": 1}`+"\n")
	empty := write("empty.jsonl", "")
	array := write("array.jsonl", "[1,2]\n")
	for _, tc := range []struct{ file, want string }{
		{foreign, "other.jsonl:1: not a result record of 'kerneltune compare --out': no dataset, entry, method, run, status"},
		{array, "array.jsonl:1: not a result record"},
		{empty, "empty.jsonl: no result records"},
		{dir, "is a directory, not a results file"},
	} {
		out, errOut, code := runCLI(t, "report", tc.file)
		if code != ExitError || !strings.Contains(errOut, tc.want) || out != "" {
			t.Errorf("report %s: exit %d, stdout %q, stderr %q; want exit 1 and %q", filepath.Base(tc.file), code, out, errOut, tc.want)
		}
	}
}

// Files of two different runs are refused with the names of the files, not
// only two fingerprints.
func TestReportNamesMixedRunFiles(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	rec := func(run string) string {
		return `{"dataset":"heart","entry":"svm","method":"svm","partition":0,"run":"` + run + `","status":"converged","test_accuracy":0.8,"nsv":10,"train_size":40,"test_size":40,"iterations":1,"svm_solves":1,"seconds":0.1}` + "\n"
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if err := os.WriteFile(a, []byte(rec("aaaaaaaaaaaa")), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(b, []byte(rec("bbbbbbbbbbbb")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "report", a, b)
	want := "kerneltune: report: " + b + " holds records of another run than " + a + " (settings fingerprint bbbbbbbbbbbb, not aaaaaaaaaaaa)"
	if code != ExitError || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want %q", code, errOut, want)
	}
}
