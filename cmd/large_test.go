package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTuneLargeDataPath: above --kernel-rows a kernel-learning method says
// in its table and JSON that it learned on a subset and trained the final
// SVM on every row; --kernel-rows is checked like --grid-rows.
func TestTuneLargeDataPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "s.libsvm")
	mustRun(t, "generate", "sparse", "--n", "500", "-o", data, "-q")
	r := tuneJSON(t, data, "--method", "lccp", "--kernel-rows", "200", "--test-fraction", "0.2", "--max-iter", "2")
	if r.LearnedOn != 200 || r.NTrain != 400 || r.Normalize != "maxabs" || r.TestAccuracy == nil || *r.TestAccuracy < 0.7 {
		t.Errorf("learned on %d of %d rows, normalize %s, test accuracy %v", r.LearnedOn, r.NTrain, r.Normalize, r.TestAccuracy)
	}
	out := mustRun(t, "tune", data, "--method", "lccp", "--kernel-rows", "200", "--test-fraction", "0.2", "--max-iter", "2")
	if !strings.Contains(out, "│ learned on") || !strings.Contains(out, "200 of the 400 training rows") {
		t.Errorf("the table does not say the kernel was learned on a subset:\n%s", out)
	}
	if all := tuneJSON(t, data, "--method", "lccp", "--test-fraction", "0.2", "--max-iter", "2"); all.LearnedOn != 0 {
		t.Errorf("400 rows, default --kernel-rows: learned on %d", all.LearnedOn)
	}
	_, errOut, code := runCLI(t, "tune", data, "--method", "lccp", "--kernel-rows", "10")
	if code != ExitUsage || !strings.Contains(errOut, "--kernel-rows 10: lccp: want -1 (no limit), 0 (the default 5,000) or at least 50") {
		t.Errorf("--kernel-rows 10: exit %d, %q", code, errOut)
	}
}

// TestDryRunSeesClassesAndFeatures (issue 34, item 9): a dry run says, for
// every dataset, when partitions lack a class (with the flag that fixes
// it), and a run with bo:ard on more than 19 features is refused before any
// job, naming the entry, the dataset and its features.
func TestDryRunSeesClassesAndFeatures(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "compare", "../testdata/multiclass/svmguide2", "builtin:heart", "--train-size", "8", "--test-size", "60",
		"--partitions", "10", "--methods", "svm,spd", "--dry-run")
	if !strings.Contains(out, "note: svmguide2: in 5 of 10 partitions a class has no training rows") || !strings.Contains(out, "give --stratified") {
		t.Errorf("dry run:\n%s", out)
	}
	if !strings.Contains(out, "note: heart: in 1 of 10 partitions a class has no training rows") {
		t.Errorf("no note for heart, one of whose 8-row parts holds one class (every dataset is checked):\n%s", out)
	}
	if s := mustRun(t, "compare", "../testdata/multiclass/svmguide2", "--train-size", "8", "--test-size", "60", "--partitions", "10",
		"--methods", "svm,spd", "--stratified", "--dry-run"); strings.Contains(s, "a class has no training rows") {
		t.Errorf("--stratified still warned:\n%s", s)
	}
	dir := t.TempDir()
	w := filepath.Join(dir, "w.csv")
	mustRun(t, "generate", "weston", "--n", "100", "-o", w, "-q")
	res := filepath.Join(dir, "r.jsonl")
	_, errOut, code := runCLI(t, "compare", w, "builtin:heart", "--methods", "svm,bo:ard", "--partitions", "2", "--train-size", "40", "--test-size", "40", "--out", res)
	if code != ExitError || !strings.Contains(errOut, "bo:ard on w (52 features): bo:ard refuses 52 features, more than 19") || strings.Contains(errOut, "on heart") {
		t.Errorf("exit %d, stderr %q", code, errOut)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a refused run wrote its results file")
	}
}

// The HTML report of a run with provenance leads with the summary table,
// links each dataset's section to its provenance in the appendix, and gives
// each dataset's own sizes (issue 35, items 5 and 5b).
func TestHTMLLeadsWithSummary(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	page := filepath.Join(dir, "r.html")
	mustRun(t, "compare", "builtin:heart", "builtin:diabetes", "--methods", "svm,rcsc", "--partitions", "2",
		"--train-size", "40", "--test-size", "60", "--html", page, "-q")
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)
	summary, perPartition := strings.Index(html, `<h2 id="s-summary">Summary</h2>`), strings.Index(html, "Test accuracy per partition</h2>")
	appendix := strings.Index(html, `<h2 id="s-provenance">Appendix: provenance</h2>`)
	if summary < 0 || perPartition < summary || appendix < perPartition {
		t.Errorf("summary at %d, per-partition figure at %d, provenance appendix at %d: want that order", summary, perPartition, appendix)
	}
	for _, want := range []string{`<a href="#s-dataset-heart">`, `<h3 class="settings" id="s-dataset-heart">Dataset heart</h3>`,
		"<td>heart</td>", "40 / 60 (every dataset)"} {
		if !strings.Contains(html, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
}
