package methods

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// TestTlSparseProductsSameBits: the gradient's products over V's non-zeros
// (tlSymmT, tlGemmT) give every bit of gonum's Symm and Dgemm, on V with
// nine tenths zeros (some -0), values of both signs and mixed magnitudes,
// B with zeros, sizes past gonum's parallel block (64).
func TestTlSparseProductsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 44))
	for _, sz := range []struct{ n, r, w int }{{1, 1, 2}, {5, 9, 4}, {70, 130, 246}, {200, 150, 20}} {
		V := mat.NewDense(sz.n, sz.w, nil)
		for i := 0; i < sz.n; i++ {
			for j := 0; j < sz.w; j++ {
				switch u := rng.Float64(); {
				case u < 0.05:
					V.Set(i, j, math.Copysign(0, -1))
				case u < 0.1:
					V.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(30)-15)))
				}
			}
		}
		A := mat.NewSymDense(sz.n, nil)
		for i := 0; i < sz.n; i++ {
			for j := i; j < sz.n; j++ {
				A.SetSym(i, j, rng.NormFloat64())
			}
		}
		B := mat.NewDense(sz.r, sz.n, nil)
		for i := 0; i < sz.r; i++ {
			for j := 0; j < sz.n; j++ {
				if rng.Float64() < 0.9 {
					B.Set(i, j, rng.NormFloat64()*math.Pow(10, float64(rng.IntN(10)-5)))
				}
			}
		}
		vnz := tlRowNonZeros(V)
		nnz := 0
		for _, x := range vnz.idx {
			nnz += len(x)
		}
		if sz.n*sz.w >= 100 && (nnz == 0 || nnz > sz.n*sz.w/5) {
			t.Fatalf("n=%d: %d non-zeros of %d: the test's V is not what it means", sz.n, nnz, sz.n*sz.w)
		}
		want := mat.NewDense(sz.n, sz.w, nil)
		blas64.Symm(blas.Left, 1, A.RawSymmetric(), V.RawMatrix(), 0, want.RawMatrix())
		got := tlSymmT(A, vnz, make([]float64, sz.n*sz.n), make([]float64, sz.w*sz.n))
		diffs := 0
		for i := 0; i < sz.n; i++ {
			for j := 0; j < sz.w; j++ {
				if math.Float64bits(got[j*sz.n+i]) != math.Float64bits(want.At(i, j)) {
					diffs++
				}
			}
		}
		if diffs > 0 {
			t.Errorf("n=%d w=%d: tlSymmT differs from Symm in %d entries", sz.n, sz.w, diffs)
		}
		var wantG mat.Dense
		wantG.Mul(B, V)
		bt := make([]float64, sz.n*sz.r)
		for i := 0; i < sz.r; i++ {
			for l := 0; l < sz.n; l++ {
				bt[l*sz.r+i] = B.At(i, l)
			}
		}
		gotG := tlGemmT(bt, sz.r, vnz, make([]float64, sz.w*sz.r))
		diffs = 0
		for i := 0; i < sz.r; i++ {
			for j := 0; j < sz.w; j++ {
				if math.Float64bits(gotG[j*sz.r+i]) != math.Float64bits(wantG.At(i, j)) {
					diffs++
				}
			}
		}
		if diffs > 0 {
			t.Errorf("r=%d n=%d w=%d: tlGemmT differs from Mul in %d entries", sz.r, sz.n, sz.w, diffs)
		}
	}
}
