package model

import (
	"context"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/solver"
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

// TestConfusionHeart: the C-SVC of TestFitHeartMatchesLIBSVM gets 251/270
// right on its training data (svm-predict's 92.963%); the confusion counts
// add up to that and to heart's 120 +1 and 150 -1 labels.
func TestConfusionHeart(t *testing.T) {
	d := loadHeart(t)
	m, _, err := Fit(context.Background(), d, nil, iso(0.5),
		solver.SVCParams{Margin: solver.L1, C: 1}, solver.Settings{Eps: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	c := ConfusionOf(m.Decision(d.X), d.Y)
	pos, neg := d.ClassCounts()
	if c.Correct() != 251 || c.Total() != 270 || c.TruePos+c.FalseNeg != pos || c.FalsePos+c.TrueNeg != neg || pos != 120 {
		t.Errorf("confusion %+v (correct %d of %d); labels %d +1, %d -1", c, c.Correct(), c.Total(), pos, neg)
	}
	if c.Accuracy() != m.Accuracy(d, false) {
		t.Errorf("Confusion.Accuracy %v, Model.Accuracy %v", c.Accuracy(), m.Accuracy(d, false))
	}
}
