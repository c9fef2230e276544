package metrics

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"
)

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-12*max(1, math.Abs(b)) }

// TestHandComputed checks every metric on a 3-class matrix worked by hand.
//
//	true\pred  a  b  c
//	a          5  1  0   recall 5/6, precision 5/7, F1 10/13
//	b          2  3  1   recall 3/6, precision 3/5, F1 6/11
//	c          0  1  2   recall 2/3, precision 2/3, F1 4/6
func TestHandComputed(t *testing.T) {
	c := &Confusion{Labels: []string{"a", "b", "c"}, Counts: [][]int{{5, 1, 0}, {2, 3, 1}, {0, 1, 2}}}
	if err := c.Check(); err != nil {
		t.Fatal(err)
	}
	if c.Total() != 15 || c.Correct() != 10 {
		t.Errorf("total %d correct %d, want 15, 10", c.Total(), c.Correct())
	}
	for _, tc := range []struct {
		m    Metric
		want float64
	}{
		{Accuracy, 10.0 / 15},
		{BalancedAccuracy, (5.0/6 + 3.0/6 + 2.0/3) / 3},
		{MacroF1, (10.0/13 + 6.0/11 + 4.0/6) / 3},
	} {
		got, err := c.Score(tc.m)
		if err != nil || !near(got, tc.want) {
			t.Errorf("%s = %v, %v; want %v", tc.m, got, err, tc.want)
		}
	}
	if _, err := c.Score(AUC); err == nil {
		t.Error("AUC from a confusion matrix: want an error")
	}
}

// TestAbsentClass: a class with no test row leaves balanced accuracy's
// mean; a class neither true nor predicted leaves macro-F1's; a true class
// never predicted scores F1 = 0 (scikit-learn's defaults).
func TestAbsentClass(t *testing.T) {
	// class c: no row, never predicted; class d: rows, never predicted.
	c := &Confusion{Labels: []string{"a", "b", "c", "d"}, Counts: [][]int{
		{3, 1, 0, 0}, {0, 2, 0, 0}, {0, 0, 0, 0}, {2, 2, 0, 0}}}
	if got, want := c.BalancedAccuracy(), (3.0/4+1+0)/3; !near(got, want) {
		t.Errorf("balanced accuracy %v, want %v", got, want)
	}
	if got, want := c.MacroF1(), (6.0/9+4.0/7+0)/3; !near(got, want) {
		t.Errorf("macro-F1 %v, want %v", got, want)
	}
	// a predicted class with no true row: in macro-F1 (F1 = 0), not in
	// balanced accuracy.
	p := &Confusion{Labels: []string{"a", "b"}, Counts: [][]int{{3, 1}, {0, 0}}}
	if got := p.BalancedAccuracy(); !near(got, 0.75) {
		t.Errorf("balanced accuracy %v, want 0.75", got)
	}
	if got, want := p.MacroF1(), (6.0/7+0)/2; !near(got, want) {
		t.Errorf("macro-F1 %v, want %v", got, want)
	}
	e := NewConfusion([]string{"a", "b"})
	for _, m := range []Metric{Accuracy, BalancedAccuracy, MacroF1} {
		if v, _ := e.Score(m); !math.IsNaN(v) {
			t.Errorf("%s of no rows = %v, want NaN", m, v)
		}
	}
}

// TestAUCHand: AUC by hand, ties counting one half.
func TestAUCHand(t *testing.T) {
	// positives 0.9, 0.5, 0.5; negatives 0.5, 0.1: of the 6 pairs, 0.9
	// beats both (2), each 0.5 ties 0.5 (½ each) and beats 0.1 (2): 5/6.
	got, err := BinaryAUC([]float64{0.9, 0.5, 0.5, 0.5, 0.1}, []bool{true, true, true, false, false})
	if err != nil || !near(got, 5.0/6) {
		t.Errorf("AUC = %v, %v; want 5/6", got, err)
	}
	if got, _ := BinaryAUC([]float64{3, 3, 3}, []bool{true, false, false}); got != 0.5 {
		t.Errorf("AUC of a constant score = %v, want 0.5", got)
	}
	if got, _ := BinaryAUC([]float64{-1, 2}, []bool{true, false}); got != 0 {
		t.Errorf("AUC of a reversed score = %v, want 0", got)
	}
	if _, err := BinaryAUC([]float64{1, 2}, []bool{true, true}); !errors.Is(err, ErrOneClass) {
		t.Errorf("AUC of one class: err %v, want ErrOneClass", err)
	}
	if _, err := BinaryAUC([]float64{1, math.NaN()}, []bool{true, false}); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("AUC of a NaN score: err %v, want one naming row 2", err)
	}
}

// TestAUCQuadratic checks the O(n log n) AUC against the O(n²) definition
// on scores with many ties.
func TestAUCQuadratic(t *testing.T) {
	n := 500
	scores, pos := make([]float64, n), make([]bool, n)
	for i := range scores {
		scores[i] = float64((i*7919)%23) / 4 // 23 distinct values
		pos[i] = (i*104729)%5 < 2
	}
	var num, den float64
	for i := range scores {
		for j := range scores {
			if pos[i] && !pos[j] {
				den++
				switch {
				case scores[i] > scores[j]:
					num++
				case scores[i] == scores[j]:
					num += 0.5
				}
			}
		}
	}
	got, err := BinaryAUC(scores, pos)
	if err != nil || !near(got, num/den) {
		t.Errorf("AUC = %v, %v; want %v", got, err, num/den)
	}
}

// TestScikitLearn checks the metrics against scikit-learn's on the cases
// of testdata/sklearn.json (written by testdata/make_sklearn.py).
func TestScikitLearn(t *testing.T) {
	b, err := os.ReadFile("testdata/sklearn.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref struct {
		Cases []struct {
			Name                                string
			Labels                              []string
			Truth, Pred                         []int
			Counts                              [][]int
			Scores                              []float64
			Accuracy, BalancedAccuracy, MacroF1 float64
			AUC                                 *float64
		}
	}
	// the JSON keys are snake_case
	dec := strings.NewReplacer(`"balanced_accuracy"`, `"BalancedAccuracy"`, `"macro_f1"`, `"MacroF1"`, `"auc"`, `"AUC"`)
	if err := json.Unmarshal([]byte(dec.Replace(string(b))), &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) < 6 {
		t.Fatalf("%d cases, want 6", len(ref.Cases))
	}
	for _, tc := range ref.Cases {
		c, err := ConfusionOf(tc.Labels, tc.Truth, tc.Pred)
		if err != nil {
			t.Fatalf("%s: %v", tc.Name, err)
		}
		if !reflect.DeepEqual(c.Counts, tc.Counts) {
			t.Errorf("%s: counts %v, scikit-learn %v", tc.Name, c.Counts, tc.Counts)
		}
		for _, m := range []struct {
			name      string
			got, want float64
		}{{"accuracy", c.Accuracy(), tc.Accuracy}, {"balanced accuracy", c.BalancedAccuracy(), tc.BalancedAccuracy}, {"macro-F1", c.MacroF1(), tc.MacroF1}} {
			if !near(m.got, m.want) {
				t.Errorf("%s: %s %v, scikit-learn %v", tc.Name, m.name, m.got, m.want)
			}
		}
		if tc.AUC == nil {
			continue
		}
		pos := make([]bool, len(tc.Truth))
		for i, y := range tc.Truth {
			pos[i] = y == 0
		}
		got, err := BinaryAUC(tc.Scores, pos)
		if err != nil || !near(got, *tc.AUC) {
			t.Errorf("%s: AUC %v, %v; scikit-learn %v", tc.Name, got, err, *tc.AUC)
		}
	}
}

func TestParse(t *testing.T) {
	for i, name := range Names() {
		m, err := Parse(name)
		if err != nil || m != Metric(i) || m.String() != name {
			t.Errorf("Parse(%q) = %v, %v", name, m, err)
		}
	}
	if m, err := Parse(""); m != Accuracy || err != nil {
		t.Errorf(`Parse("") = %v, %v; want accuracy`, m, err)
	}
	_, err := Parse("f1")
	if err == nil || err.Error() != `unknown metric "f1" (valid: accuracy, balanced_accuracy, macro_f1, auc)` {
		t.Errorf("Parse(f1): %v", err)
	}
	b, _ := json.Marshal(struct{ M Metric }{MacroF1})
	if string(b) != `{"M":"macro_f1"}` {
		t.Errorf("JSON %s", b)
	}
	var back struct{ M Metric }
	if err := json.Unmarshal(b, &back); err != nil || back.M != MacroF1 {
		t.Errorf("JSON back: %v, %v", back.M, err)
	}
	if !slices.Equal([]string{AUC.Title(), BalancedAccuracy.Short()}, []string{"AUC", "bal. acc."}) {
		t.Error("titles")
	}
}

func TestConfusionErrors(t *testing.T) {
	if _, err := ConfusionOf([]string{"a", "b"}, []int{0, 2}, []int{0, 1}); err == nil || !strings.Contains(err.Error(), "row 2") {
		t.Errorf("class index out of range: %v", err)
	}
	if _, err := ConfusionOf([]string{"a", "b"}, []int{0}, []int{0, 1}); err == nil {
		t.Error("lengths differ: no error")
	}
	for _, c := range []*Confusion{
		{Labels: []string{"a"}, Counts: [][]int{{1}}},
		{Labels: []string{"a", "b"}, Counts: [][]int{{1, 0}}},
		{Labels: []string{"a", "b"}, Counts: [][]int{{1, 0}, {0}}},
		{Labels: []string{"a", "b"}, Counts: [][]int{{1, 0}, {-1, 0}}},
	} {
		if c.Check() == nil {
			t.Errorf("Check(%v): no error", c)
		}
	}
}

// BenchmarkBinaryAUC: the AUC of a test part of 1,000 rows (a comparison
// computes one per job, from the decision values it already has).
func BenchmarkBinaryAUC(b *testing.B) {
	n := 1000
	scores, pos := make([]float64, n), make([]bool, n)
	for i := range scores {
		scores[i] = float64((i*7919)%997) / 10
		pos[i] = i%4 == 0
	}
	for b.Loop() {
		if _, err := BinaryAUC(scores, pos); err != nil {
			b.Fatal(err)
		}
	}
}
