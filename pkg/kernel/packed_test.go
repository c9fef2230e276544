package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSquaredDistancesPackedSameBits: the packed squared distances are
// SquaredDistances' entries to the last bit, dense (sizes that end inside
// a tile and on a tile's edge, so both the SYRK and the GEMM tiles are
// compared) and on compressed rows, and their median is MedianOffDiag's.
func TestSquaredDistancesPackedSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 3))
	X, _ := textLike(t, 150)
	cases := []struct {
		name string
		X    mat.Matrix
	}{{"compressed rows", X}, {"their dense form", X.ToDense()}}
	for _, n := range []int{1, 2, 64, 200} {
		x := mat.NewDense(n, 7, nil)
		for i := range n {
			for k := range 7 {
				x.Set(i, k, 3+rng.NormFloat64())
			}
		}
		cases = append(cases, struct {
			name string
			X    mat.Matrix
		}{"dense", x})
	}
	for _, c := range cases {
		full := SquaredDistances(c.X)
		p := SquaredDistancesPacked(c.X)
		n := full.SymmetricDim()
		if p.Dim() != n || len(p.data) != n*(n+1)/2 {
			t.Fatalf("%s: packed %d×%d of %d values, want %d×%d of %d", c.name, p.Dim(), p.Dim(), len(p.data), n, n, n*(n+1)/2)
		}
		for i := range n {
			for j := range n {
				if math.Float64bits(p.At(i, j)) != math.Float64bits(full.At(i, j)) {
					t.Fatalf("%s (n = %d): entry (%d, %d) %v, full %v", c.name, n, i, j, p.At(i, j), full.At(i, j))
				}
			}
		}
		got, want := p.MedianOffDiag(), MedianOffDiag(full)
		if math.Float64bits(got) != math.Float64bits(want) {
			t.Fatalf("%s (n = %d): median %v, full %v", c.name, n, got, want)
		}
	}
}
