package cmd

import (
	"encoding/csv"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/report"
)

// perJobRun writes the records of a small run (heart and diabetes, spd and
// svm, 2 partitions each) and returns the file.
func perJobRun(t *testing.T) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	mustRun(t, append(slices.Clone(twoSetArgs), "--out", out)...)
	return out
}

// TestReportPerJobCSV: `report FILE --per-job --format csv` has one row per
// job, in table order, and every cell is the record's number: the test
// accuracy, balanced accuracy and AUC of each row are those of the results
// file, and the mean of a (dataset, method)'s rows is the averaged table's.
func TestReportPerJobCSV(t *testing.T) {
	t.Parallel()
	file := perJobRun(t)
	out := mustRun(t, "report", file, "--per-job", "--format", "csv")
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dataset", "method", "partition", "status", "failed", "test_accuracy", "test_balanced_accuracy", "test_macro_f1", "test_auc",
		"train_accuracy", "nsv", "train_size", "test_size", "svm_solves", "seconds", "shared_seconds", "iterations", "C", "kernel", "gamma",
		"gamma_space", "degenerate", "sv_share", "memorising", "svms", "degenerate_svms", "seed", "run", "error"}
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	col := func(name string) int { return slices.Index(rows[0], name) }
	if len(rows) != 1+8 {
		t.Fatalf("%d rows, want 8 jobs (2 datasets × 2 methods × 2 partitions)", len(rows)-1)
	}
	var order []string
	for _, r := range rows[1:] {
		order = append(order, r[0]+"/"+r[1]+"/"+r[2])
	}
	wantOrder := []string{"heart/spd/0", "heart/spd/1", "heart/svm/0", "heart/svm/1", "diabetes/spd/0", "diabetes/spd/1", "diabetes/svm/0", "diabetes/svm/1"}
	if !slices.Equal(order, wantOrder) {
		t.Errorf("row order %q, want %q", order, wantOrder)
	}
	// Every row against its record.
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	recs := map[string]map[string]any{}
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r map[string]any
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		recs[r["dataset"].(string)+"/"+r["entry"].(string)+"/"+strconv.Itoa(int(r["partition"].(float64)))] = r
	}
	for i, r := range rows[1:] {
		rec := recs[order[i]]
		if rec == nil {
			t.Fatalf("row %s has no record", order[i])
		}
		for _, k := range []string{"test_accuracy", "test_auc", "svm_solves", "seconds", "nsv", "C"} {
			got, err := strconv.ParseFloat(r[col(k)], 64)
			if err != nil || got != rec[k].(float64) {
				t.Errorf("%s %s = %q, record %v", order[i], k, r[col(k)], rec[k])
			}
		}
		if r[col("gamma_space")] != "zscore" || rec["gamma_space"] != "zscore" {
			t.Errorf("%s gamma_space %q, record %v; want zscore (the default on dense data)", order[i], r[col("gamma_space")], rec["gamma_space"])
		}
		if ba, err := strconv.ParseFloat(r[col("test_balanced_accuracy")], 64); err != nil || ba < 0 || ba > 1 {
			t.Errorf("%s balanced accuracy %q", order[i], r[col("test_balanced_accuracy")])
		}
	}
	// The mean of the rows is the averaged table's mean.
	sum, _ := runJSON[report.SummaryJSON](t, "report", file)
	for _, tb := range sum.Tables {
		for _, er := range tb.Rows {
			var s float64
			n := 0
			for _, r := range rows[1:] {
				if r[0] == tb.Dataset && r[1] == er.Entry {
					v, _ := strconv.ParseFloat(r[col("test_accuracy")], 64)
					s += v
					n++
				}
			}
			if n != 2 || math.Abs(s/2-float64(er.MeanAcc)) > 1e-12 {
				t.Errorf("%s %s: per-job mean %v over %d rows, table %v", tb.Dataset, er.Entry, s/float64(n), n, er.MeanAcc)
			}
		}
	}
	if _, errOut, code := runCLI(t, "report", file, "--per-job", "--format", "json"); code != 2 || !strings.Contains(errOut, "--per-job") {
		t.Errorf("--per-job --format json: exit %d, want 2:\n%s", code, errOut)
	}
}

// TestReportFilters: --datasets and --methods keep those records only, as
// if the run had planned only them: the tables, the job counts (complete,
// not "2 of 4 jobs"), the statistics across datasets and --per-job; a name
// that matches nothing is a usage error naming what the records hold.
func TestReportFilters(t *testing.T) {
	t.Parallel()
	file := perJobRun(t)
	sum, _ := runJSON[report.SummaryJSON](t, "report", file, "--datasets", "diabetes")
	if len(sum.Tables) != 1 || sum.Tables[0].Dataset != "diabetes" || !sum.Complete || sum.JobsPlanned != 4 || sum.Cross != nil {
		t.Errorf("--datasets diabetes: %d tables (%v), complete %v, %d jobs planned, cross %v", len(sum.Tables), sum.Tables, sum.Complete, sum.JobsPlanned, sum.Cross)
	}
	all, _ := runJSON[report.SummaryJSON](t, "report", file)
	if got, want := sum.Tables[0].Rows, all.Tables[1].Rows; len(got) != 2 || got[0].MeanAcc != want[0].MeanAcc || got[1].P != want[1].P {
		t.Errorf("diabetes rows %+v, unfiltered %+v", got, want)
	}
	sum, _ = runJSON[report.SummaryJSON](t, "report", file, "--methods", "svm")
	for _, tb := range sum.Tables {
		if len(tb.Rows) != 1 || tb.Rows[0].Entry != "svm" || tb.Baseline != "svm" || !tb.Complete {
			t.Errorf("--methods svm: %s rows %+v baseline %s complete %v", tb.Dataset, tb.Rows, tb.Baseline, tb.Complete)
		}
	}
	out := mustRun(t, "report", file, "--per-job", "--format", "csv", "--datasets", "heart", "--methods", "svm")
	if n := strings.Count(out, "\n"); n != 3 || strings.Count(out, "\nheart,svm,") != 2 {
		t.Errorf("--per-job heart svm: %d lines\n%s", n, out)
	}
	for _, tc := range []struct{ flag, value, want string }{
		{"--datasets", "hart", `--datasets: no records of dataset "hart" (the records hold diabetes, heart)`},
		{"--methods", "lccp", `--methods: no records of method "lccp" (the records hold spd, svm)`},
	} {
		_, errOut, code := runCLI(t, "report", file, tc.flag, tc.value)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("%s %s: exit %d, want 2 with %q:\n%s", tc.flag, tc.value, code, tc.want, errOut)
		}
	}
}

// TestReportMergeConflictNamesTheFlag: merging two runs of random with
// different --budget says "--budget 15 vs 10", the flag a user typed, not
// the Go field "entry.Budget".
func TestReportMergeConflictNamesTheFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, r := range []struct{ out, budget string }{{a, "15"}, {b, "10"}} {
		mustRun(t, "compare", "builtin:heart", "--methods", "random", "--budget", r.budget, "--partitions", "1",
			"--train-size", "40", "--test-size", "40", "--out", r.out, "-q")
	}
	_, errOut, code := runCLI(t, "report", a, b)
	if code != 1 || !strings.Contains(errOut, ": --budget 15 vs 10") || strings.Contains(errOut, "entry.") {
		t.Errorf("report of two budgets: exit %d, want 1 naming --budget 15 vs 10:\n%s", code, errOut)
	}
}
