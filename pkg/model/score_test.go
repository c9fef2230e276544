package model

import (
	"math"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

func TestConfusionOf(t *testing.T) {
	// f = 0 predicts -1, as LIBSVM; a label is +1 iff y > 0.
	f := []float64{0.5, -1, 2, 0, -0.3, 1e-9}
	y := []float64{1, 1, -1, -1, -1, 1}
	c := ConfusionOf(f, y)
	if want := (Confusion{TruePos: 2, FalseNeg: 1, FalsePos: 1, TrueNeg: 2}); c != want {
		t.Fatalf("ConfusionOf = %+v, want %+v", c, want)
	}
	if c.Correct() != 4 || c.Total() != 6 || c.Accuracy() != 4.0/6 {
		t.Errorf("correct %d, total %d, accuracy %v; want 4, 6, 2/3", c.Correct(), c.Total(), c.Accuracy())
	}
	if e := ConfusionOf(nil, nil); e != (Confusion{}) || !math.IsNaN(e.Accuracy()) {
		t.Errorf("empty: %+v, accuracy %v", e, e.Accuracy())
	}
	defer func() {
		if recover() == nil {
			t.Error("ConfusionOf with a length mismatch did not panic")
		}
	}()
	ConfusionOf(f, y[:5])
}

// TestScoreBinary: the 2×2 matrix puts the +1 class first, under the
// data's labels, and the metrics are the hand-computed ones.
func TestScoreBinary(t *testing.T) {
	// as TestConfusionOf: TP 2, FN 1, FP 1, TN 2
	f := []float64{0.5, -1, 2, 0, -0.3, 1e-9}
	y := []float64{1, 1, -1, -1, -1, 1}
	s := ScoreBinary(f, y, dataio.LabelMap{Positive: "sick", Negative: "well"})
	c := s.Confusion
	if !slices.Equal(c.Labels, []string{"sick", "well"}) || !slices.Equal(c.Counts[0], []int{2, 1}) || !slices.Equal(c.Counts[1], []int{1, 2}) {
		t.Fatalf("confusion %+v, want labels sick, well and [[2 1] [1 2]]", c)
	}
	if s.BalancedAccuracy != (2.0/3+2.0/3)/2 || math.Abs(s.MacroF1-2.0/3) > 1e-15 {
		t.Errorf("balanced accuracy %v, macro-F1 %v; want 2/3, 2/3", s.BalancedAccuracy, s.MacroF1)
	}
	// positives 0.5, -1, 1e-9 against negatives 2, 0, -0.3: 0.5 beats 0
	// and -0.3; -1 beats none; 1e-9 beats 0 and -0.3: 4 of 9 pairs.
	if s.AUC == nil || math.Abs(*s.AUC-4.0/9) > 1e-15 {
		t.Errorf("AUC %v, want 4/9", s.AUC)
	}
	if got := BinaryLabels(dataio.LabelMap{}); !slices.Equal(got, []string{"+1", "-1"}) {
		t.Errorf("labels of unlabeled classes %q", got)
	}
	one := ScoreBinary([]float64{1, -1}, []float64{1, 1}, dataio.LabelMap{})
	if one.AUC != nil || one.BalancedAccuracy != 0.5 {
		t.Errorf("a test part of one class: AUC %v (want none), balanced accuracy %v (want 0.5)", one.AUC, one.BalancedAccuracy)
	}
	if ScoreBinary(nil, nil, dataio.LabelMap{}) != nil {
		t.Error("no rows: want nil")
	}
}

// TestScoreClasses: three classes from class indices, as a multi-class
// model's votes give them; no AUC.
func TestScoreClasses(t *testing.T) {
	s, err := ScoreClasses([]string{"a", "b", "c"}, []int{0, 0, 1, 1, 2, 2}, []int{0, 1, 1, 1, 2, 0})
	if err != nil {
		t.Fatal(err)
	}
	// recalls 1/2, 1, 1/2; F1 2/4, 4/5, 2/3
	if math.Abs(s.BalancedAccuracy-2.0/3) > 1e-15 || math.Abs(s.MacroF1-(0.5+0.8+2.0/3)/3) > 1e-15 || s.AUC != nil {
		t.Errorf("balanced accuracy %v, macro-F1 %v, AUC %v", s.BalancedAccuracy, s.MacroF1, s.AUC)
	}
	if !slices.Equal(s.Confusion.Counts[2], []int{1, 0, 1}) {
		t.Errorf("confusion %v", s.Confusion.Counts)
	}
	if _, err := ScoreClasses([]string{"a", "b"}, []int{0, 3}, []int{0, 1}); err == nil {
		t.Error("class index 3 of 2 classes: no error")
	}
}
