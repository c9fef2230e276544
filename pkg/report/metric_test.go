package report

import (
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// metricRecord is a finished binary record of a test part with the
// confusion matrix [[tp, fn], [fp, tn]] and the AUC auc (NaN: none).
func metricRecord(dataset, entry string, part, tp, fn, fp, tn int, auc float64) experiment.Record {
	n := tp + fn + fp + tn
	r := experiment.Record{Dataset: dataset, Entry: entry, Method: entry, Partition: part, Run: "r1", Status: "converged",
		TestAccuracy: float64(tp+tn) / float64(n), TestSize: n,
		TestConfusion: &metrics.Confusion{Labels: []string{"yes", "no"}, Counts: [][]int{{tp, fn}, {fp, tn}}}}
	if !math.IsNaN(auc) {
		r.TestAUC = &auc
	}
	return r
}

// TestSummarizeByMetric: on unbalanced test parts (10 positives, 30
// negatives) a classifier that predicts the majority class wins on
// accuracy and loses on balanced accuracy, macro-F1 and AUC; the means are
// those of the hand-computed scores, and the best mark moves.
func TestSummarizeByMetric(t *testing.T) {
	var rs []experiment.Record
	for k := 0; k < 2; k++ {
		// "major": 2 of 10 positives found, no false positive: accuracy
		// 32/40, recall 0.2 and 1.
		rs = append(rs, metricRecord("d", "major", k, 2, 8, 0, 30, 0.70))
		// "fair": 8 of 10 positives, 6 false positives: accuracy 32/40
		// minus one, recall 0.8 and 0.8.
		rs = append(rs, metricRecord("d", "fair", k, 8, 2, 7, 23, 0.90))
	}
	order := []string{"major", "fair"}
	for _, tc := range []struct {
		m           metrics.Metric
		major, fair float64
		best        string
	}{
		{metrics.Accuracy, 32.0 / 40, 31.0 / 40, "major"},
		{metrics.BalancedAccuracy, (0.2 + 1) / 2, (0.8 + 23.0/30) / 2, "fair"},
		// F1: 2·tp/(true rows + predicted rows) per class
		{metrics.MacroF1, (4.0/12 + 60.0/68) / 2, (16.0/25 + 46.0/55) / 2, "fair"},
		{metrics.AUC, 0.70, 0.90, "fair"},
	} {
		sum := Summarize(rs, SummaryOptions{Entries: order, Metric: tc.m})
		rows := sum.Tables[0].Rows
		if sum.Metric != tc.m || sum.Tables[0].Metric != tc.m {
			t.Errorf("%s: summary metric %v, table %v", tc.m, sum.Metric, sum.Tables[0].Metric)
		}
		for i, want := range []float64{tc.major, tc.fair} {
			if got := float64(rows[i].MeanAcc); math.Abs(got-want) > 1e-12 || float64(rows[i].StdAcc) != 0 {
				t.Errorf("%s: %s mean %v ± %v, want %v ± 0", tc.m, rows[i].Entry, got, rows[i].StdAcc, want)
			}
			if rows[i].Best != (rows[i].Entry == tc.best) {
				t.Errorf("%s: %s best = %v, want the best to be %s", tc.m, rows[i].Entry, rows[i].Best, tc.best)
			}
		}
		b, err := json.Marshal(sum)
		if err != nil {
			t.Fatal(err)
		}
		key := `"mean_test_` + tc.m.String() + `":`
		if !strings.Contains(string(b), key) || strings.Contains(string(b), `"std_test_accuracy"`) != (tc.m == metrics.Accuracy) {
			t.Errorf("%s: JSON lacks %s or keeps accuracy's keys:\n%s", tc.m, key, b)
		}
		if hasMetric := strings.Contains(string(b), `"metric":`); hasMetric == (tc.m == metrics.Accuracy) {
			t.Errorf("%s: JSON metric key present = %v (left out for accuracy only)", tc.m, hasMetric)
		}
	}
}

// TestCheckMetric: what each metric needs, and the errors that say which
// records lack it.
func TestCheckMetric(t *testing.T) {
	old := experiment.Record{Dataset: "d", Entry: "svm", Method: "svm", Run: "old1", Status: "converged", TestAccuracy: 0.8, TestSize: 10}
	failed := experiment.Record{Dataset: "d", Entry: "gi", Method: "gi", Run: "old1", Status: experiment.StatusFailure}
	good := metricRecord("d", "spd", 0, 1, 1, 1, 1, 0.5)
	oneClass := metricRecord("d", "spd", 1, 3, 1, 0, 0, math.NaN())
	multi := good
	multi.TestConfusion = &metrics.Confusion{Labels: []string{"a", "b", "c"}, Counts: [][]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 2}}}
	for _, m := range []metrics.Metric{metrics.Accuracy, metrics.BalancedAccuracy, metrics.MacroF1, metrics.AUC} {
		if err := CheckMetric([]experiment.Record{good, failed}, m); err != nil {
			t.Errorf("%s of new records: %v", m, err)
		}
	}
	if err := CheckMetric([]experiment.Record{old, failed}, metrics.Accuracy); err != nil {
		t.Errorf("accuracy of old records: %v", err)
	}
	multi.Run = "new2"
	for _, tc := range []struct {
		recs []experiment.Record
		m    metrics.Metric
		want string
	}{
		{[]experiment.Record{old, good, old, failed}, metrics.MacroF1, "--metric macro_f1: 2 of the 3 finished records (run old1) were written by a kerneltune that kept no test confusion matrix"},
		{[]experiment.Record{good, multi}, metrics.AUC, "--metric auc: 1 of the 2 finished records (run new2) are of a problem with more than two classes (d has 3 classes)"},
		{[]experiment.Record{good, oneClass}, metrics.AUC, "--metric auc: 1 of the 2 finished records (run r1) have no test AUC: their test part holds one class"},
	} {
		err := CheckMetric(tc.recs, tc.m)
		var me *MetricError
		if !errors.As(err, &me) || !strings.HasPrefix(err.Error(), tc.want) {
			t.Errorf("got %v, want %q…", err, tc.want)
		}
	}
	// balanced accuracy and macro-F1 need no AUC, and are defined for a
	// test part of one class and for more than two classes.
	if err := CheckMetric([]experiment.Record{oneClass, multi}, metrics.BalancedAccuracy); err != nil {
		t.Errorf("balanced accuracy: %v", err)
	}
}

// TestTuneTableScores: tune's table gives the test part's balanced
// accuracy, macro-F1 and, for two classes, AUC; for more classes no AUC row.
func TestTuneTableScores(t *testing.T) {
	rows := func(s *model.TestScores) map[string]string {
		r := &experiment.TuneResult{Method: "svm"}
		acc := 0.75
		r.TestAccuracy, r.TestCorrect, r.NTest, r.TestScores = &acc, 3, 4, s
		out := map[string]string{}
		for _, row := range TuneTables(r)[0].Rows {
			out[row[0]] = row[1]
		}
		return out
	}
	auc := 0.8125
	two := rows(&model.TestScores{BalancedAccuracy: 0.5, MacroF1: 1.0 / 3, AUC: &auc,
		Confusion: &metrics.Confusion{Labels: []string{"+1", "-1"}, Counts: [][]int{{1, 1}, {0, 2}}}})
	if two["test balanced acc."] != "50.00%" || two["test macro-F1"] != "33.33%" || two["test AUC"] != "0.8125" {
		t.Errorf("binary rows %v", two)
	}
	three := rows(&model.TestScores{BalancedAccuracy: 2.0 / 3, MacroF1: 0.5,
		Confusion: &metrics.Confusion{Labels: []string{"a", "b", "c"}, Counts: [][]int{{1, 0, 0}, {0, 1, 0}, {1, 0, 1}}}})
	if _, ok := three["test AUC"]; ok || three["test balanced acc."] != "66.67%" {
		t.Errorf("3-class rows %v", three)
	}
}
