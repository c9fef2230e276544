package model

import (
	"math"
	"testing"
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
