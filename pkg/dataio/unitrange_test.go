package dataio

import (
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// WithinUnitRange: data as svm-scale leaves it ([-1, 1], or [0, 1]) and
// nothing else; NaN and an empty matrix are not.
func TestWithinUnitRange(t *testing.T) {
	for _, c := range []struct {
		x    []float64
		want bool
	}{
		{[]float64{-1, 0.5, 1, 0}, true},
		{[]float64{0, 1, 0.25, 0}, true},
		{[]float64{-1, 1.0000001, 0, 0}, false},
		{[]float64{-1.5, 0, 0, 0}, false},
		{[]float64{math.NaN(), 0, 0, 0}, false},
	} {
		if got := WithinUnitRange(mat.NewDense(2, 2, c.x)); got != c.want {
			t.Errorf("%v: %v, want %v", c.x, got, c.want)
		}
	}
	if WithinUnitRange(&mat.Dense{}) {
		t.Error("an empty matrix is within [-1, 1]")
	}
}

// SpaceWords names every kind a normaliser can have, and only NoScale as
// the file's own features.
func TestSpaceWords(t *testing.T) {
	for _, k := range []string{ZScore, MinMax01, MinMax11, MaxAbs} {
		if w := SpaceWords(k); w == "" || w[len(w)-len("not the file's values"):] != "not the file's values" {
			t.Errorf("%s: %q", k, w)
		}
	}
	if w := SpaceWords(NoScale); w != "the file's features as given (svm-train's -g on the same file)" {
		t.Errorf("none: %q", w)
	}
	if SpaceWords("") != "" || SpaceWords(Auto) != "" {
		t.Error(`"" and auto (not a fitted kind) have words`)
	}
}
