package kernel

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// textLike returns rcv1-shaped rows (dataio.TextLike: 300 × 2,000, about 30
// non-zeros a row, unit length) held in compressed rows and densified.
func textLike(t *testing.T, n int) (*sparse.CSR, *mat.Dense) {
	t.Helper()
	ds := dataio.TextLike(n, 2000, 30, rand.New(rand.NewPCG(46, 2)))
	if ds.Sparse == nil {
		t.Fatal("TextLike gave dense rows")
	}
	return ds.Sparse, ds.Sparse.ToDense()
}

// columns returns every column of m, whole.
func columns(m Matrix) [][]float64 {
	n := m.Len()
	out := make([][]float64, n)
	for i := range out {
		out[i] = make([]float64, n)
		m.Column(i, nil, out[i])
	}
	return out
}

func sameBits(t *testing.T, what string, got, want [][]float64) {
	t.Helper()
	for i := range want {
		for j := range want[i] {
			if math.Float64bits(got[i][j]) != math.Float64bits(want[i][j]) {
				t.Fatalf("%s (%d, %d) = %v, want %v to the last bit", what, i, j, got[i][j], want[i][j])
			}
		}
	}
}

func closeRel(t *testing.T, what string, got, want [][]float64, tol float64) {
	t.Helper()
	worst := 0.0
	for i := range want {
		for j := range want[i] {
			e := math.Abs(got[i][j]-want[i][j]) / math.Max(math.Abs(want[i][j]), 1e-300)
			if want[i][j] == 0 && got[i][j] == 0 {
				e = 0
			}
			worst = math.Max(worst, e)
			if !(e <= tol) {
				t.Fatalf("%s (%d, %d) = %v, want %v (relative %.3g > %g)", what, i, j, got[i][j], want[i][j], e, tol)
			}
		}
	}
	t.Logf("%s: worst relative difference %.3g", what, worst)
}

func entries(m mat.Matrix) [][]float64 {
	r, c := m.Dims()
	out := make([][]float64, r)
	for i := range out {
		out[i] = make([]float64, c)
		for j := range out[i] {
			out[i][j] = m.At(i, j)
		}
	}
	return out
}

// TestCSRMatchesDense: an isotropic Gaussian on compressed rows gives, to
// the last bit, the columns of the same data held dense (whose rows take
// the sparse route there too, base 0); its Gram and Cross entries are those
// columns' bits, and within 1e-15 of the dense Gram's SYRK.
func TestCSRMatchesDense(t *testing.T) {
	X, D := textLike(t, 300)
	for _, gamma := range []float64{0.5, 1, 4} {
		g, _ := NewGaussianIso(gamma)
		rc := g.Rows(X)
		if _, ok := rc.(*sparseRows); !ok {
			t.Fatalf("γ=%g: Rows of a CSR is %T, want the sparse route", gamma, rc)
		}
		rd := g.Rows(D)
		if _, ok := rd.(*sparseRows); !ok {
			t.Fatalf("γ=%g: Rows of the dense copy is %T: the test's premise (dense text rows take the sparse route) fails", gamma, rd)
		}
		want := columns(rd)
		sameBits(t, "Rows(CSR) column", columns(rc), want)
		sameBits(t, "Gram(CSR)", entries(g.Gram(X)), want)
		// Cross of some rows against all, either side compressed.
		idx := []int{5, 0, 299, 17, 17, 150}
		sub := X.SelectRows(idx)
		wantX := make([][]float64, len(idx))
		for a, i := range idx {
			wantX[a] = want[i]
		}
		sameBits(t, "Cross(CSR, CSR)", entries(g.Cross(sub, X)), wantX)
		sameBits(t, "Cross(dense, CSR)", entries(g.Cross(sub.ToDense(), X)), wantX)
		sameBits(t, "SparseCross(CSR).Block(CSR)", entries(blockOf(g.SparseCross(X), sub)), wantX)
		sameBits(t, "SparseCross(CSR).Block(dense)", entries(blockOf(g.SparseCross(X), sub.ToDense())), wantX)
		// The dense Gram (SYRK on centred rows) agrees to 1e-15 relative
		// times 1 + 4γ, the largest exponent's size: the rows are unit
		// length, so ½‖x̃‖² = γ and every value is at least exp(-4γ).
		closeRel(t, "Gram(CSR) vs Gram(dense)", entries(g.Gram(X)), entries(g.Gram(D)), 1e-15*(1+4*gamma))
		// Prefixes and idx give the same bits as whole columns.
		for _, i := range []int{0, 7, 299} {
			pre := make([]float64, 100)
			rc.Column(i, nil, pre)
			sameBits(t, "prefix", [][]float64{pre}, [][]float64{want[i][:100]})
			ids := []int{299, 3, 150, 3, i}
			got := make([]float64, len(ids))
			rc.Column(i, ids, got)
			for k, j := range ids {
				if math.Float64bits(got[k]) != math.Float64bits(want[i][j]) {
					t.Fatalf("Column(%d, idx)[%d] = %v, want %v", i, j, got[k], want[i][j])
				}
			}
		}
	}
}

func blockOf(c *SparseCross, A mat.Matrix) *mat.Dense {
	m, _ := A.Dims()
	dst := mat.NewDense(m, c.Len(), nil)
	c.Block(A, dst)
	return dst
}

// TestCSRLinearAndDiag: the linear kernel and a diagonal Gaussian on
// compressed rows agree with the dense routes to 1e-15 relative (the dense
// dot products sum in another order), and every route on compressed rows is
// self-consistent to the last bit (Rows, Gram, Cross, RowsAt).
func TestCSRLinearAndDiag(t *testing.T) {
	X, D := textLike(t, 200)
	_, d := X.Dims()
	q := make([]float64, d)
	rng := rand.New(rand.NewPCG(1, 2))
	for k := range q {
		if rng.IntN(5) > 0 { // a fifth of the features switched off
			q[k] = 0.5 + 3*rng.Float64()
		}
	}
	gd, err := NewGaussianDiag(q)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		k    Kernel
		tol  float64
	}{{"linear", Linear{}, 1e-15}, {"diagonal", gd, 1e-15 * (1 + 2*floats.Max(q))}} {
		rc := tc.k.Rows(X)
		got := columns(rc)
		// The dense routes' dot products (SIMD, centred for the Gaussian)
		// round differently: the linear kernel's entries (at most 1) agree
		// to 1e-15 absolute, the diagonal Gaussian's to 1e-15 relative
		// times 1 + the largest exponent (½ Σ q_k Δ_k² ≤ max q on unit rows).
		want := entries(tc.k.Gram(D))
		worst := 0.0
		for i := range want {
			for j := range want[i] {
				e := math.Abs(got[i][j] - want[i][j])
				if tc.name == "diagonal" {
					e /= want[i][j]
				}
				worst = math.Max(worst, e)
				if !(e <= tc.tol) {
					t.Fatalf("%s (%d, %d) = %v, dense %v (%.3g > %g)", tc.name, i, j, got[i][j], want[i][j], e, tc.tol)
				}
			}
		}
		t.Logf("%s: worst difference from the dense Gram %.3g", tc.name, worst)
		for i := 0; i < rc.Len(); i++ {
			if math.Float64bits(rc.Diag(i)) != math.Float64bits(got[i][i]) {
				t.Fatalf("%s: Diag(%d) = %v, column entry %v", tc.name, i, rc.Diag(i), got[i][i])
			}
		}
		sameBits(t, tc.name+" Gram(CSR)", entries(tc.k.Gram(X)), got)
		idx := []int{199, 4, 4, 60}
		sub := X.SelectRows(idx)
		wantX := [][]float64{got[199], got[4], got[4], got[60]}
		sameBits(t, tc.name+" Cross(CSR, CSR)", entries(tc.k.Cross(sub, X)), wantX)
		sameBits(t, tc.name+" Cross(dense, CSR)", entries(tc.k.Cross(sub.ToDense(), X)), wantX)
		at := columns(RowsAt(tc.k, X, idx))
		for a, i := range idx {
			for b, j := range idx {
				if math.Float64bits(at[a][b]) != math.Float64bits(got[i][j]) {
					t.Fatalf("%s RowsAt (%d, %d) = %v, want %v", tc.name, a, b, at[a][b], got[i][j])
				}
			}
		}
	}
}

// TestCSRRowsAtMatchesDense: RowsAt on compressed rows reads the rows in
// place and gives the bits of the isotropic Gaussian's columns on the
// whole data held dense (an entry depends on its two rows only).
func TestCSRRowsAtMatchesDense(t *testing.T) {
	X, D := textLike(t, 300)
	g, _ := NewGaussianIso(1)
	want := columns(g.Rows(D))
	idx := []int{10, 11, 12, 200, 201, 5, 6, 7, 8, 9, 290}
	got := columns(RowsAt(g, X, idx))
	for a, i := range idx {
		for b, j := range idx {
			if math.Float64bits(got[a][b]) != math.Float64bits(want[i][j]) {
				t.Fatalf("RowsAt (%d, %d) = %v, want %v", a, b, got[a][b], want[i][j])
			}
		}
	}
}

// TestCSRRefusesFullAndL1: a full metric and the L1 kernel do not compute
// on compressed rows: SparseSupport says so with a *SparseError naming the
// feature count, and Rows, Gram and Cross panic with it rather than
// densify.
func TestCSRRefusesFullAndL1(t *testing.T) {
	X, _ := textLike(t, 20)
	_, d := X.Dims()
	iso, _ := NewGaussianIso(1)
	if err := SparseSupport(iso, d); err != nil {
		t.Fatalf("isotropic: %v", err)
	}
	if err := SparseSupport(Linear{}, d); err != nil {
		t.Fatalf("linear: %v", err)
	}
	full, _ := NewGaussian(Metric2(d))
	theta := make([]float64, d)
	for k := range theta {
		theta[k] = 1
	}
	l1, _ := NewL1(theta)
	for _, tc := range []struct {
		k    Kernel
		kind string
	}{{full, "full"}, {l1, "l1"}} {
		err := SparseSupport(tc.k, d)
		var se *SparseError
		if !errors.As(err, &se) || se.Kind != tc.kind || se.Features != d || !errors.Is(err, ErrSparse) {
			t.Fatalf("%s: SparseSupport = %v, want a *SparseError{%s, %d}", tc.kind, err, tc.kind, d)
		}
		for name, f := range map[string]func(){
			"Rows":  func() { tc.k.Rows(X) },
			"Gram":  func() { tc.k.Gram(X) },
			"Cross": func() { tc.k.Cross(X, X) },
		} {
			func() {
				defer func() {
					e, _ := recover().(error)
					if !errors.As(e, &se) {
						t.Errorf("%s %s: panicked with %v, want its *SparseError", tc.kind, name, e)
					}
				}()
				f()
			}()
		}
	}
}

// Metric2 returns the d×d metric 2I as a full (non-diagonal-kind) matrix.
func Metric2(d int) *mat.SymDense {
	q := mat.NewSymDense(d, nil)
	for k := 0; k < d; k++ {
		q.SetSym(k, k, 2)
	}
	return q
}
