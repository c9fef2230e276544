package manifold

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestMulSymBits: MulSym gives gonum's Dense.Mul of two symmetric matrices
// bit for bit (its generic loop), at sizes on both sides of the four-wide
// blocks, with values of mixed signs and magnitudes, zeros, and a NaN and
// an Inf that must spread as they do there; and into a used destination.
func TestMulSymBits(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 11))
	for _, n := range []int{1, 3, 4, 5, 8, 13, 40} {
		a, b := mat.NewSymDense(n, nil), mat.NewSymDense(n, nil)
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				a.SetSym(i, j, r.NormFloat64()*math.Pow(10, float64(r.IntN(9)-4)))
				if r.IntN(4) > 0 {
					b.SetSym(i, j, r.NormFloat64())
				}
			}
		}
		if n == 13 {
			a.SetSym(2, 7, math.NaN())
			b.SetSym(5, 5, math.Inf(-1))
		}
		for _, pair := range [][2]*mat.SymDense{{a, b}, {b, a}, {a, a}} {
			var want, got mat.Dense
			want.Mul(pair[0], pair[1])
			MulSym(&got, pair[0], pair[1])
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					if g, w := got.At(i, j), want.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
						t.Fatalf("n = %d: entry (%d, %d) is %v, gonum's Mul %v", n, i, j, g, w)
					}
				}
			}
			MulSym(&got, pair[0], pair[1]) // a used destination
			if !mat.Equal(&got, &want) && n != 13 {
				t.Fatalf("n = %d: a used destination changes the product", n)
			}
		}
	}
}
