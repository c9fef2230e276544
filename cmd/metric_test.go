package cmd

// report --metric and compare --metric (issue 22): the tables, statistics
// and figures of a run for balanced accuracy, macro-F1 or AUC, recomputed
// from the records' test confusion matrices and AUCs.

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// metricRun is a short binary run on two datasets (diabetes is 65/35): two
// methods, three partitions; its records are in the returned file.
func metricRun(t *testing.T) (file string, args []string) {
	t.Helper()
	file = filepath.Join(t.TempDir(), "run.jsonl")
	args = []string{"compare", "builtin:heart", cmdTestdata + "/libsvm/diabetes_scale", "--methods", "svm,spd@diag",
		"--partitions", "3", "--train-size", "60", "--test-size", "80", "--workers", "1", "-q"}
	mustRun(t, append(args, "--out", file)...)
	return file, args
}

// TestReportMetric runs one short compare and checks, on its records, the
// tables of every metric (report and compare), the figures and page of one,
// and the refusal of AUC on records that lack it.
func TestReportMetric(t *testing.T) {
	t.Parallel()
	file, args := metricRun(t)
	t.Run("tables", func(t *testing.T) { testMetricTables(t, file, args) })
	t.Run("figures and page", func(t *testing.T) { testMetricFiguresAndPage(t, file) })
	t.Run("records without AUC", func(t *testing.T) { testMetricNoAUC(t, file) })
}

func testMetricTables(t *testing.T, file string, args []string) {
	recs, err := experiment.ReadRecordsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	bal := mustRun(t, "report", file, "--metric", "balanced_accuracy")
	golden(t, "report_balanced_accuracy_table.golden", maskCompareTiming(bal, "table"))
	for _, want := range []string{"test bal. acc. % (mean ± std)", "* best mean test balanced accuracy",
		"average rank of the mean test balanced accuracy", "where the mean test balanced accuracy is significantly"} {
		if !strings.Contains(bal, want) {
			t.Errorf("report --metric balanced_accuracy lacks %q", want)
		}
	}
	if strings.Contains(bal, "test acc.") || strings.Contains(bal, "mean test accuracy") {
		t.Errorf("report --metric balanced_accuracy still speaks of accuracy:\n%s", bal)
	}
	// compare --metric prints what report --metric prints of its records
	// (resumed: every job is recorded, so none runs again).
	if got := mustRun(t, append(args, "--out", file, "--resume", "--metric", "balanced_accuracy")...); got != bal {
		t.Errorf("compare --metric balanced_accuracy:\n%s\nreport --metric balanced_accuracy:\n%s", got, bal)
	}
	// The default is accuracy, as before.
	if acc := mustRun(t, "report", file); acc != mustRun(t, "report", file, "--metric", "accuracy") || !strings.Contains(acc, "test acc. % (mean ± std)") {
		t.Errorf("report and report --metric accuracy differ, or the header is not accuracy's:\n%s", acc)
	}

	// Every metric's JSON mean is the mean over the partitions of the
	// records' own numbers, under a key that names the metric.
	for _, m := range []metrics.Metric{metrics.Accuracy, metrics.BalancedAccuracy, metrics.MacroF1, metrics.AUC} {
		out := mustRun(t, "report", file, "--metric", m.String(), "--format", "json")
		var sum struct {
			Metric string `json:"metric"`
			Tables []struct {
				Dataset string
				Rows    []map[string]any
			}
		}
		if err := json.Unmarshal([]byte(out), &sum); err != nil {
			t.Fatal(err)
		}
		if want := m.String(); sum.Metric != want && !(m == metrics.Accuracy && sum.Metric == "") {
			t.Errorf("--metric %s: JSON metric %q", m, sum.Metric)
		}
		for _, tab := range sum.Tables {
			for _, row := range tab.Rows {
				var vals []float64
				for _, r := range recs {
					if r.Dataset != tab.Dataset || r.Entry != row["entry"] {
						continue
					}
					switch m {
					case metrics.Accuracy:
						vals = append(vals, r.TestAccuracy)
					case metrics.AUC:
						vals = append(vals, *r.TestAUC)
					default:
						v, _ := r.TestConfusion.Score(m)
						vals = append(vals, v)
					}
				}
				mean := 0.0
				for _, v := range vals {
					mean += v / float64(len(vals))
				}
				got, ok := row["mean_test_"+m.String()].(float64)
				if len(vals) != 3 || !ok || math.Abs(got-mean) > 1e-12 {
					t.Errorf("--metric %s, %s %v: mean %v (key present %v), want %v over %d records", m, tab.Dataset, row["entry"], got, ok, mean, len(vals))
				}
				if m != metrics.Accuracy && row["mean_test_accuracy"] != nil {
					t.Errorf("--metric %s: the JSON row still has mean_test_accuracy", m)
				}
			}
		}
	}
	csv := mustRun(t, "report", file, "--metric", "macro_f1", "--format", "csv")
	if !strings.Contains(strings.SplitN(csv, "\n", 2)[0], ",mean_test_macro_f1,std_test_macro_f1,") {
		t.Errorf("CSV header: %s", strings.SplitN(csv, "\n", 2)[0])
	}
}

// testMetricFiguresAndPage: the box plots, the cost figure and the page
// name the metric, and no axis says accuracy.
func testMetricFiguresAndPage(t *testing.T, file string) {
	dir := t.TempDir()
	page := filepath.Join(dir, "run.html")
	mustRun(t, "report", file, "--metric", "auc", "--plot", dir, "--html", page)
	box, err := os.ReadFile(filepath.Join(dir, "auc.svg"))
	if err != nil {
		t.Fatal(err)
	}
	cost, err := os.ReadFile(filepath.Join(dir, "auc-cost.svg"))
	if err != nil {
		t.Fatal(err)
	}
	html, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []struct {
		name string
		text string
		want []string
	}{
		{"auc.svg", string(box), []string{"Test AUC per partition", "test AUC (%)"}},
		{"auc-cost.svg", string(cost), []string{"mean test AUC (%)", "AUC ± 1 s.d."}},
		{"run.html", string(html), []string{"Test AUC per partition", "test AUC % (mean ± std)", "AUC of the test parts"}},
	} {
		for _, w := range f.want {
			if !strings.Contains(f.text, w) {
				t.Errorf("%s lacks %q", f.name, w)
			}
		}
		if strings.Contains(f.text, "accuracy") {
			t.Errorf("%s speaks of accuracy in a figure of AUC", f.name)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "accuracy.svg")); err == nil {
		t.Error("--metric auc wrote accuracy.svg")
	}
}

// TestMetricUsageErrors: an unknown metric is a usage error of both
// commands, naming the flag and the valid names, before any work.
func TestMetricUsageErrors(t *testing.T) {
	t.Parallel()
	want := `--metric: unknown metric "f1" (valid: accuracy, balanced_accuracy, macro_f1, auc)`
	for _, args := range [][]string{
		{"report", "no-such-file.jsonl", "--metric", "f1"},
		{"compare", "builtin:heart", "--partitions", "1", "--methods", "svm", "--metric", "f1"},
	} {
		out, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, want) || out != "" {
			t.Errorf("%s: exit %d, stdout %q, stderr %q; want exit 2 and %q", args[0], code, out, errOut, want)
		}
	}
}

// TestMetricOldRecords: records written before the confusion matrix was
// kept report their accuracy as before, and another metric is refused
// with exit 1, naming how many records of which run need a rerun.
func TestMetricOldRecords(t *testing.T) {
	t.Parallel()
	old := crossRun // written before the confusion matrix was kept
	if out := mustRun(t, "report", old); !strings.Contains(out, "test acc. % (mean ± std)") {
		t.Errorf("report of old records:\n%s", out)
	}
	out, errOut, code := runCLI(t, "report", old, "--metric", "balanced_accuracy")
	want := "kerneltune: --metric balanced_accuracy: 160 of the 160 finished records (run b665878e4c3e) were written by a kerneltune that kept no test confusion matrix, so they hold the test accuracy only: rerun the run"
	if code != ExitError || !strings.HasPrefix(errOut, want) || out != "" {
		t.Errorf("exit %d, stdout %q, stderr %q; want exit 1 and %q", code, out, errOut, want)
	}
}

// testMetricNoAUC: AUC on records of which one has none (its test part
// held one class) is refused with exit 1, naming how many; the other
// metrics need no AUC.
func testMetricNoAUC(t *testing.T, file string) {
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	var r experiment.Record
	if err := json.Unmarshal([]byte(lines[0]), &r); err != nil {
		t.Fatal(err)
	}
	r.TestAUC = nil // a test part of one class
	first, _ := json.Marshal(r)
	mixed := filepath.Join(t.TempDir(), "mixed.jsonl")
	if err := os.WriteFile(mixed, append(append(first, '\n'), strings.Join(lines[1:], "")...), 0o644); err != nil {
		t.Fatal(err)
	}
	_, errOut, code := runCLI(t, "report", mixed, "--metric", "auc")
	want := "kerneltune: --metric auc: 1 of the 12 finished records (run " + r.Run + ") have no test AUC: their test part holds one class"
	if code != ExitError || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stderr %q; want exit 1 and %q", code, errOut, want)
	}
	mustRun(t, "report", mixed, "--metric", "macro_f1") // the others need no AUC
}

// TestStudyMetric: a study file's metric key is compare's --metric, and
// the command line overrides it; it is no setting of the run (the records
// and their run id do not depend on it).
func TestStudyMetric(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	study := filepath.Join(dir, "s.yaml")
	heart, err := filepath.Abs(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	text := "metric: macro_f1\npartitions: 2\nmethods: [spd]\ndatasets:\n  - path: " + heart + "\n"
	if err := os.WriteFile(study, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	if out := mustRun(t, "compare", "--study", study, "-q", "--out", a); !strings.Contains(out, "test macro-F1 % (mean ± std)") {
		t.Errorf("study with metric: macro_f1:\n%s", out)
	}
	if out := mustRun(t, "compare", "--study", study, "-q", "--out", b, "--metric", "auc"); !strings.Contains(out, "test AUC % (mean ± std)") {
		t.Errorf("--metric auc over the study's macro_f1:\n%s", out)
	}
	ra, err := experiment.ReadRecordsFile(a)
	if err != nil {
		t.Fatal(err)
	}
	rb, err := experiment.ReadRecordsFile(b)
	if err != nil {
		t.Fatal(err)
	}
	if ra[0].Run != rb[0].Run {
		t.Errorf("run ids %s and %s differ with the metric alone", ra[0].Run, rb[0].Run)
	}
}
