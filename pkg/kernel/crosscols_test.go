package kernel

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestCrossColsSameBits: CrossCols gives Cross's bits in the columns asked
// for and 0 elsewhere, for the isotropic, diagonal (with a zero weight) and
// full Gaussian, with d on both sides of gonum's 64-wide k-blocks, column
// sets of every size from none to all (in and out of order, so entries move
// between the exp pass's AVX2 lanes and its tail), and for the linear
// kernel's fallback; and CrossColsTo into a used array (every entry
// written).
func TestCrossColsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 4))
	for _, d := range []int{3, 70, 130} {
		A := mat.NewDense(67, d, nil)
		B := mat.NewDense(150, d, nil)
		for _, M := range []*mat.Dense{A, B} {
			r, c := M.Dims()
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if rng.IntN(3) > 0 {
						M.Set(i, j, rng.NormFloat64())
					}
				}
			}
		}
		q := make([]float64, d)
		for k := range q {
			q[k] = rng.Float64() / float64(d)
		}
		q[1] = 0
		diag, err := NewGaussianDiag(q)
		if err != nil {
			t.Fatal(err)
		}
		Q := mat.NewSymDense(d, nil)
		for k := 0; k < d; k++ {
			Q.SetSym(k, k, 1/float64(d))
		}
		full, err := NewGaussian(Q)
		if err != nil {
			t.Fatal(err)
		}
		iso, err := NewGaussianIso(0.7 / float64(d))
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []Kernel{iso, diag, full, Linear{}} {
			want := k.Cross(A, B)
			for _, s := range []int{0, 1, 5, 64, 65, 149, 150} {
				cols := rng.Perm(150)[:s]
				got := CrossCols(k, A, B, cols)
				if s%2 == 1 {
					// CrossColsTo into an array holding an earlier
					// block's entries and NaNs: every entry is written.
					buf := make([]float64, 67*150+3)
					for i := range buf {
						buf[i] = math.NaN()
						if i%3 == 0 {
							buf[i] = float64(i)
						}
					}
					got = CrossColsTo(buf, k, A, B, cols)
				}
				in := make([]bool, 150)
				for _, j := range cols {
					in[j] = true
				}
				for i := 0; i < 67; i++ {
					for j := 0; j < 150; j++ {
						w := 0.0
						if in[j] {
							w = want.At(i, j)
						}
						if g := got.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("%T d=%d |cols|=%d: entry (%d,%d) = %v, want %v", k, d, s, i, j, g, w)
						}
					}
				}
			}
		}
	}
}

// TestCrossBlocksSameBits: blocks of rows against one prepared B give
// Cross's bits entry for entry, whatever the block's rows, for the
// isotropic and diagonal Gaussians (prepared) and the others (Cross), and
// reuse the caller's array.
func TestCrossBlocksSameBits(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 9))
	A, B := mat.NewDense(150, 7, nil), mat.NewDense(90, 7, nil)
	for _, m := range []*mat.Dense{A, B} {
		rows, cols := m.Dims()
		for i := range rows {
			for j := range cols {
				m.Set(i, j, 3+r.NormFloat64())
			}
		}
	}
	iso, _ := NewGaussianIso(0.3)
	diag, _ := NewGaussianDiag([]float64{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7})
	zero, _ := NewGaussianDiag([]float64{0.1, 0, 0.3, 0, 0.5, 0.6, 0.7}) // two features weighed 0
	for _, k := range []Kernel{iso, diag, zero, Linear{}} {
		whole := k.Cross(A, B)
		c := NewCrossBlocks(k, B)
		buf := make([]float64, 64*90)
		for _, rows := range []int{1, 5, 64} {
			for r0 := 0; r0 < 150; r0 += rows {
				r1 := min(r0+rows, 150)
				got := c.Block(A.Slice(r0, r1, 0, 7), buf)
				if _, isG := k.(*Gaussian); isG && r1-r0 <= 64 && &got.RawMatrix().Data[0] != &buf[0] {
					t.Fatalf("%T: the block is not in the caller's array", k)
				}
				for i := r0; i < r1; i++ {
					for j := range 90 {
						if g, w := got.At(i-r0, j), whole.At(i, j); math.Float64bits(g) != math.Float64bits(w) {
							t.Fatalf("%T, blocks of %d rows: entry (%d, %d) is %v, Cross gives %v", k, rows, i, j, g, w)
						}
					}
				}
			}
		}
	}
}
