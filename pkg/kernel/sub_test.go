package kernel

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestSubReadsTheRowsAskedFor checks kernel.Sub's entries, whole columns,
// prefixes and index lists, against the full matrix's entries at the mapped
// rows, on the dense and the sparse routes.
func TestSubReadsTheRowsAskedFor(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	n, d := 40, 12
	dense := mat.NewDense(n, d, nil)
	sparse := mat.NewDense(n, d, nil)
	for i := range n {
		for k := range d {
			dense.Set(i, k, rng.NormFloat64())
			if rng.Float64() < 0.15 {
				sparse.Set(i, k, 1)
			}
		}
	}
	g, err := NewGaussianIso(0.1)
	if err != nil {
		t.Fatal(err)
	}
	idx := []int{3, 7, 8, 15, 22, 23, 30, 39}
	for name, X := range map[string]*mat.Dense{"dense": dense, "sparse": sparse} {
		full := g.Rows(X)
		s := Sub(full, idx)
		if s.Len() != len(idx) {
			t.Fatalf("%s: Len %d, want %d", name, s.Len(), len(idx))
		}
		if _, ok := s.(Splittable); !ok {
			t.Errorf("%s: Sub of a Splittable matrix is not Splittable", name)
		}
		want := make([]float64, n)
		got := make([]float64, len(idx))
		for a, i := range idx {
			full.Column(i, nil, want)
			s.Column(a, nil, got)
			for b, j := range idx {
				if got[b] != want[j] {
					t.Errorf("%s: Sub(%d, %d) = %v, full (%d, %d) = %v", name, a, b, got[b], i, j, want[j])
				}
			}
			if s.Diag(a) != full.Diag(i) {
				t.Errorf("%s: Diag(%d) = %v, want %v", name, a, s.Diag(a), full.Diag(i))
			}
			pre := got[:3]
			s.Column(a, nil, pre)
			for b := range pre {
				if pre[b] != want[idx[b]] {
					t.Errorf("%s: prefix (%d, %d) = %v, want %v", name, a, b, pre[b], want[idx[b]])
				}
			}
			some := []int{5, 0, 2}
			part := make([]float64, len(some))
			s.Column(a, some, part)
			for b, j := range some {
				if part[b] != want[idx[j]] {
					t.Errorf("%s: idx (%d, %d) = %v, want %v", name, a, j, part[b], want[idx[j]])
				}
			}
		}
	}
}

// TestSparseCrossAgrees: the sparse blocks equal the dense Cross to 1e-12
// (they differ only in rounding: shifted, uncentred rows against centred
// ones) on one-hot rows, and refuse dense data and other metrics.
func TestSparseCrossAgrees(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	n, m, d := 60, 25, 40
	B, A := mat.NewDense(n, d, nil), mat.NewDense(m, d, nil)
	for _, X := range []*mat.Dense{B, A} {
		r, _ := X.Dims()
		for i := range r {
			for k := range d {
				if rng.Float64() < 0.1 {
					X.Set(i, k, 1)
				}
			}
		}
	}
	g, err := NewGaussianIso(0.2)
	if err != nil {
		t.Fatal(err)
	}
	sc := g.SparseCross(B)
	if sc == nil {
		t.Fatal("no sparse route on 10% dense rows")
	}
	got := mat.NewDense(m, n, nil)
	sc.Block(A, got)
	want := g.Cross(A, B)
	for i := range m {
		for j := range n {
			if d := got.At(i, j) - want.At(i, j); d > 1e-12 || d < -1e-12 {
				t.Fatalf("(%d, %d): sparse %v, dense %v", i, j, got.At(i, j), want.At(i, j))
			}
		}
	}
	dense := mat.NewDense(n, d, nil)
	for i := range n {
		for k := range d {
			dense.Set(i, k, rng.NormFloat64())
		}
	}
	if g.SparseCross(dense) != nil {
		t.Error("a sparse route on dense rows")
	}
	diag, _ := NewGaussianDiag(slices.Repeat([]float64{0.5}, d))
	if diag.SparseCross(B) != nil {
		t.Error("a sparse route for a diagonal metric")
	}
}

// RowsAt is the kernel matrix of a copy of the rows, entry for entry (the
// same bits), on the sparse route it builds in place and on the routes it
// takes through a copy (dense rows, another kernel).
func TestRowsAtIsRowsOfCopy(t *testing.T) {
	rng := rand.New(rand.NewPCG(44, 2))
	const n, d = 300, 40
	sparse, dense := mat.NewDense(n, d, nil), mat.NewDense(n, d, nil)
	for i := range n {
		for k := range d {
			dense.Set(i, k, rng.NormFloat64())
			if rng.Float64() < 0.1 {
				sparse.Set(i, k, rng.Float64())
			}
		}
	}
	idx := []int{7, 3, 250, 11, 12, 299, 0, 42, 41, 100, 5, 6, 7}
	for i := 13; i < 200; i += 3 {
		idx = append(idx, i)
	}
	iso, _ := NewGaussianIso(0.3)
	diag, err := FromSpec(Spec{Kind: KindGaussian, Diag: slices.Repeat([]float64{0.2}, d)})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name   string
		k      Kernel
		X      *mat.Dense
		sparse bool
	}{{"iso, sparse rows", iso, sparse, true}, {"iso, dense rows", iso, dense, false}, {"diagonal", diag, sparse, false}} {
		cp := mat.NewDense(len(idx), d, nil)
		for a, i := range idx {
			cp.SetRow(a, c.X.RawRowView(i))
		}
		got, want := RowsAt(c.k, c.X, idx), c.k.Rows(cp)
		if _, ok := got.(*sparseRows); ok != c.sparse {
			t.Errorf("%s: RowsAt's route is sparse: %v, want %v", c.name, ok, c.sparse)
		}
		g, w := make([]float64, len(idx)), make([]float64, len(idx))
		for i := range idx {
			got.Column(i, nil, g)
			want.Column(i, nil, w)
			for j := range g {
				if math.Float64bits(g[j]) != math.Float64bits(w[j]) {
					t.Fatalf("%s: entry (%d, %d) = %v, the copy's %v", c.name, i, j, g[j], w[j])
				}
			}
		}
	}
}
