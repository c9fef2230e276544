package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
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
		// A directory is read as its *.jsonl files (compare --slurm's
		// DIR): the first of them, foreign, is refused.
		{dir, "array.jsonl:1: not a result record"},
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
		return `{"schema_version":1,"dataset":"heart","entry":"svm","method":"svm","partition":0,"run":"` + run + `","status":"converged","test_accuracy":0.8,"nsv":10,"train_size":40,"test_size":40,"iterations":1,"svm_solves":1,"seconds":0.1}` + "\n"
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

// Issue 31, item 2: a dataset is its identity, not its name. Two runs that
// give the name heart to different data (heart and diabetes), each with
// svm and spd, are never one row: report refuses them, and with
// --split-identities shows each under its own name with its own means and
// paired tests (Wilcoxon, Bayesian) — those of its file alone — from two
// files or from one file that holds both runs.
func TestReportKeysDatasetsByIdentity(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b, both := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl"), filepath.Join(dir, "both.jsonl")
	args := []string{"--methods", "svm,spd", "--partitions", "3", "--train-size", "60", "--test-size", "60", "-q"}
	mustRun(t, append([]string{"compare", "builtin:heart", "--out", a}, args...)...)
	mustRun(t, append([]string{"compare", "builtin:diabetes", "--name", "heart", "--out", b}, args...)...)
	var cat []byte
	for _, f := range []string{a, b} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cat = append(cat, data...)
	}
	if err := os.WriteFile(both, cat, 0o644); err != nil {
		t.Fatal(err)
	}
	alone := map[string][]summaryRow{}
	for name, f := range map[string]string{"heart": a, "heart#2": b} {
		alone[name] = reportTables(t, f)["heart"]
	}
	for _, files := range [][]string{{a, b}, {both}} {
		if _, errOut, code := runCLI(t, append([]string{"report"}, files...)...); code != ExitError || !strings.Contains(errOut, "is not the dataset heart") {
			t.Errorf("report %v: exit %d, %s; want refused", files, code, errOut)
		}
		got := reportTables(t, append([]string{"--split-identities"}, files...)...)
		if len(got) != 2 || !reflect.DeepEqual(got["heart"], alone["heart"]) || !reflect.DeepEqual(got["heart#2"], alone["heart#2"]) {
			t.Errorf("report --split-identities %v: %+v; want heart %+v and heart#2 %+v", files, got, alone["heart"], alone["heart#2"])
		}
	}
}

// summaryRow is a row of report's JSON tables without its times.
type summaryRow struct {
	Entry string          `json:"entry"`
	Runs  int             `json:"runs"`
	Mean  float64         `json:"mean_test_accuracy"`
	NSV   float64         `json:"mean_nsv"`
	P     json.RawMessage `json:"p_value"`
	Bayes json.RawMessage `json:"bayes_correlated_t"`
}

// reportTables runs report args with --format json and returns its tables'
// rows by dataset.
func reportTables(t *testing.T, args ...string) map[string][]summaryRow {
	t.Helper()
	s, _ := runJSON[struct {
		Tables []struct {
			Dataset string       `json:"dataset"`
			Rows    []summaryRow `json:"rows"`
		} `json:"tables"`
	}](t, "report", args...)
	out := map[string][]summaryRow{}
	for _, t := range s.Tables {
		out[t.Dataset] = t.Rows
	}
	return out
}

// Heart run beside a sparse dataset (a1a) is heart run alone: the default
// normalisation, auto, fits a z-score on heart either way, though the run
// with a1a resolves auto to maxabs on a1a. report merges the two runs
// (their heart/svm jobs once: one heart table, the run alone's numbers).
func TestReportMergesADenseDatasetRunBesideASparseOne(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	heart, a1a := filepath.Join(cmdTestdata, "libsvm/heart_scale"), filepath.Join(cmdTestdata, "libsvm/a1a")
	alone, mixed := filepath.Join(dir, "alone.jsonl"), filepath.Join(dir, "mixed.jsonl")
	args := []string{"compare", "--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	mustRun(t, append(args, heart, "--out", alone)...)
	mustRun(t, append(args, heart, a1a, "--out", mixed)...)
	want := reportTables(t, alone)
	got := reportTables(t, alone, mixed)
	if len(got) != 2 || !reflect.DeepEqual(got["heart_scale"], want["heart_scale"]) || len(got["a1a"]) != 1 {
		t.Errorf("report alone mixed: %+v; want heart_scale as alone %+v, and a1a", got, want)
	}
}
