package model

import (
	"math"
	"testing"
)

// TestRowHash: one row is one hash through the rounding of a normalisation
// (a last-bit difference, -0 for 0); rows that differ in any feature beyond
// the 10 significant digits hash apart.
func TestRowHash(t *testing.T) {
	x := []float64{0.1 + 0.2, -1.5, 0, 1e-7}
	same := []float64{0.3, -1.5, math.Copysign(0, -1), 1e-7 * (1 + 1e-15)}
	if rowHash(x) != rowHash(same) {
		t.Errorf("rounding changed the hash: %s vs %s", rowHash(x), rowHash(same))
	}
	if h := rowHash(x); len(h) != 16 {
		t.Errorf("hash %q, want 16 hex digits", h)
	}
	for j := range x {
		y := append([]float64(nil), x...)
		y[j] += 1e-6
		if rowHash(y) == rowHash(x) {
			t.Errorf("feature %d changed by 1e-6: same hash", j+1)
		}
	}
	// Order matters: a row is not a set of values.
	if rowHash([]float64{1, 2}) == rowHash([]float64{2, 1}) {
		t.Error("swapped features: same hash")
	}
}
