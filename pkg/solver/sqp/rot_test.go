package sqp

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRotRowsAgrees: rotRows gives rotRowsGo's bits in its AVX2 form (where
// the machine has it), for lengths 0-21 (every remainder mod 4), rotations
// from givens and the degenerate c = 1, s = 0, and rows holding ±0 and
// large and small magnitudes.
func TestRotRowsAgrees(t *testing.T) {
	if !useAVX2 {
		t.Skip("no AVX2 on this machine: only rotRowsGo runs")
	}
	rng := rand.New(rand.NewPCG(11, 12))
	for trial := range 2000 {
		n := trial % 22
		x, y := make([]float64, n), make([]float64, n)
		for k := range x {
			x[k] = rng.NormFloat64() * math.Pow(10, float64(rng.IntN(9)-4))
			y[k] = rng.NormFloat64()
			if rng.IntN(5) == 0 {
				y[k] = math.Copysign(0, -1)
			}
		}
		c, s, _ := givens(rng.NormFloat64(), rng.NormFloat64())
		if trial%7 == 0 {
			c, s = 1, 0
		}
		wx, wy := slices.Clone(x), slices.Clone(y)
		rotRowsGo(wx, wy, c, s)
		rotRows(x, y, c, s)
		for k := range x {
			if math.Float64bits(x[k]) != math.Float64bits(wx[k]) || math.Float64bits(y[k]) != math.Float64bits(wy[k]) {
				t.Fatalf("trial %d (n %d): entry %d (%v, %v), Go (%v, %v)", trial, n, k, x[k], y[k], wx[k], wy[k])
			}
		}
	}
}
