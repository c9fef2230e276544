package experiment

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const goodLine = `{"dataset":"heart","entry":"svm","method":"svm","partition":2,"run":"abc","status":"converged","test_accuracy":0.8}`

func TestReadRecords(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		n          int    // records, when no error
		err        string // substring of the error
	}{
		{"one record", goodLine + "\n", 1, ""},
		{"blank lines", "\n" + goodLine + "\n\n" + goodLine + "\n", 2, ""},
		{"no final newline", goodLine, 1, ""},
		{"torn last line", goodLine + "\n" + `{"dataset":"heart","en`, 1, ""},
		{"empty", "", 0, ""},
		{"bad line before the end", goodLine + "\n" + `{"dataset":` + "\n" + goodLine + "\n", 0, "x.jsonl:2: not a result record"},
		{"complete bad last line", goodLine + "\n" + "[1,2]\n", 0, "x.jsonl:2: not a result record"},
		{"another tool's JSON", `{"foo": 1}` + "\n", 0, "x.jsonl:1: not a result record of 'kerneltune compare --out': no dataset, entry, method, run, status"},
		{"no run", `{"dataset":"d","entry":"svm","method":"svm","status":"converged"}` + "\n", 0, "x.jsonl:1: not a result record of 'kerneltune compare --out': no run"},
		{"negative partition", strings.Replace(goodLine, `"partition":2`, `"partition":-1`, 1) + "\n", 0, "partition -1 < 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			recs, err := ReadRecords(strings.NewReader(tc.text), "x.jsonl")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want one containing %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(recs) != tc.n {
				t.Fatalf("%d records, want %d", len(recs), tc.n)
			}
			for _, r := range recs {
				if r.Key() != (Key{"heart", "svm", 2}) || r.TestAccuracy != 0.8 {
					t.Errorf("record %+v", r)
				}
			}
		})
	}
}

func TestReadRecordsFileDirectory(t *testing.T) {
	dir := t.TempDir()
	_, err := ReadRecordsFile(dir)
	if want := dir + " is a directory, not a results file"; err == nil || err.Error() != want {
		t.Fatalf("err = %v, want %q", err, want)
	}
	path := filepath.Join(dir, "r.jsonl")
	if err := os.WriteFile(path, []byte(goodLine+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := ReadRecordsFile(path)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records, err %v", len(recs), err)
	}
}
