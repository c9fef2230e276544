package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// TestRowsAtInSameBits: a matrix built into a RowsWorkspace that earlier,
// larger and smaller matrices were built into has the bits of one built
// afresh (RowsAt), whole columns and columns through an index list, for
// the kernels on compressed rows and the isotropic Gaussian's sparse route
// on dense rows; and a warm workspace builds the next matrix of no more
// rows without allocating its arrays again.
func TestRowsAtInSameBits(t *testing.T) {
	X, D := textLike(t, 300)
	iso, _ := NewGaussianIso(0.7)
	q := make([]float64, 2000)
	for k := range q {
		q[k] = float64(k%5) / 3
	}
	dg, _ := NewGaussianDiag(q)
	cases := []struct {
		name string
		k    Kernel
		X    mat.Matrix
	}{
		{"isotropic on CSR", iso, X},
		{"diagonal on CSR", dg, X},
		{"linear on CSR", Linear{}, X},
		{"isotropic on dense rows", iso, D},
	}
	sets := [][]int{span(0, 150), span(150, 190), append(span(40, 100), span(200, 290)...), span(290, 300), span(0, 150)}
	for _, c := range cases {
		ws := new(RowsWorkspace)
		for s, idx := range sets {
			got := RowsAtIn(c.k, c.X, idx, ws)
			want := RowsAt(c.k, c.X, idx)
			if _, ok := got.(*sparseRows); !ok {
				t.Fatalf("%s: RowsAtIn gave %T, not the sparse route", c.name, got)
			}
			sameBits(t, c.name, columns(got), columns(want))
			pick := []int{len(idx) - 1, 0, len(idx) / 2}
			for i := range idx {
				g, w := make([]float64, len(pick)), make([]float64, len(pick))
				got.Column(i, pick, g)
				want.Column(i, pick, w)
				for a := range g {
					if math.Float64bits(g[a]) != math.Float64bits(w[a]) {
						t.Fatalf("%s, set %d: column %d through %v: %v, want %v", c.name, s, i, pick, g, w)
					}
				}
				if got.Diag(i) != want.Diag(i) {
					t.Fatalf("%s, set %d: Diag(%d) %v, want %v", c.name, s, i, got.Diag(i), want.Diag(i))
				}
			}
		}
		// Warm (the last set is the first again): the arrays are reused.
		idx := sets[0]
		cold := allocatedBytes(func() { RowsAt(c.k, c.X, idx) })
		warm := allocatedBytes(func() { RowsAtIn(c.k, c.X, idx, ws) })
		if warm*10 > cold {
			t.Errorf("%s: a warm workspace allocated %d bytes for a matrix that takes %d afresh", c.name, warm, cold)
		}
	}
}

// span returns lo, lo+1, …, hi-1.
func span(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}

// allocatedBytes returns the bytes f allocates.
func allocatedBytes(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestCSRRouteColumnsOnly: on compressed rows the sparse route reads its
// rows in place and builds only their compressed columns, 12 bytes an
// entry (an int32 row and a float64 value), 16 a feature (its count and
// its column's start) and 8 a row (½‖x̃‖²), with 16 KB for the sizes the
// allocator rounds to: a
// pair's rows (RowsAt), a set of support vectors prepared for prediction
// (SparseCrossOf). It built its own scaled compressed rows besides, 24
// bytes an entry (on ten classes of 778 features, 7 of the 15 MB two
// pairs held at once).
func TestCSRRouteColumnsOnly(t *testing.T) {
	X, _ := textLike(t, 400)
	n, d := X.Dims()
	iso, _ := NewGaussianIso(0.7)
	idx := span(50, 350)
	nnz := 0
	for _, i := range idx {
		ind, _ := X.Row(i)
		nnz += len(ind)
	}
	bound := func(rows, entries int) uint64 { return uint64(12*entries+16*d+8*rows) + 16<<10 }
	for _, c := range []struct {
		name          string
		k             Kernel
		rows, entries int
		build         func(Kernel) Matrix
	}{
		{"isotropic, RowsAt", iso, len(idx), nnz, func(k Kernel) Matrix { return RowsAt(k, X, idx) }},
		{"linear, RowsAt", Linear{}, len(idx), nnz, func(k Kernel) Matrix { return RowsAt(k, X, idx) }},
		{"isotropic, SparseCrossOf", iso, n, X.NNZ(), func(k Kernel) Matrix {
			c, err := SparseCrossOf(k, X)
			if err != nil {
				t.Fatal(err)
			}
			return c.r
		}},
	} {
		var m Matrix
		got := allocatedBytes(func() { m = c.build(c.k) })
		if b := bound(c.rows, c.entries); got > b {
			t.Errorf("%s: %d bytes for %d rows of %d entries, want at most %d (the compressed columns)", c.name, got, c.rows, c.entries, b)
		}
		if got < uint64(12*c.entries) {
			t.Errorf("%s: %d bytes for %d entries: fewer than its compressed columns' %d", c.name, got, c.entries, 12*c.entries)
		}
		if m.Len() != c.rows {
			t.Errorf("%s: %d rows, want %d", c.name, m.Len(), c.rows)
		}
	}
}

// TestRowsAtInDenseRoute: an isotropic Gaussian on dense rows where the
// sparse route does not pay (no common value in a column) builds the
// mapped rows from the rows in place into the workspace, with the bits of
// Rows on a copy of the rows (the same column means and products), through
// a workspace that larger and smaller sets were built into; warm, it
// allocates the matrix's header only, not a copy of the rows and a mapped
// copy per call (on letter's 325 pairs, 94 of the 371 MB train allocated).
func TestRowsAtInDenseRoute(t *testing.T) {
	r := rand.New(rand.NewPCG(44, 12))
	const n, d = 300, 16
	X := mat.NewDense(n, d, nil)
	for i := range n {
		for k := range d {
			X.Set(i, k, 2+r.NormFloat64())
		}
	}
	iso, _ := NewGaussianIso(0.4)
	sets := [][]int{span(0, 150), span(150, 190), append(span(40, 100), span(200, 290)...), span(290, 300), span(0, 150)}
	ws := new(RowsWorkspace)
	for s, idx := range sets {
		got := RowsAtIn(iso, X, idx, ws)
		if _, ok := got.(*gaussRows); !ok {
			t.Fatalf("set %d: %T, not the dense route", s, got)
		}
		cp := mat.NewDense(len(idx), d, nil)
		for a, i := range idx {
			cp.SetRow(a, X.RawRowView(i))
		}
		sameBits(t, "dense route", columns(got), columns(iso.Rows(cp)))
	}
	idx := sets[0]
	if a := testing.AllocsPerRun(5, func() { RowsAtIn(iso, X, idx, ws) }); a > 1 {
		t.Errorf("a warm workspace: RowsAtIn makes %v allocations, want the matrix's header only", a)
	}
}
