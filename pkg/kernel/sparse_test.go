package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// randSparse returns n×d data in which feature k is set (to a value in
// [0.5, 1.5), or exactly 1 when binary) in a row with probability
// density·w_k, the weights w_k falling like 1/(k+1) as a1a's one-hot
// features do, scaled so that a row has about density·d nonzeros.
func randSparse(rng *rand.Rand, n, d int, density float64, binary bool) *mat.Dense {
	w := make([]float64, d)
	var s float64
	for k := range w {
		w[k] = 1 / float64(k+1)
		s += w[k]
	}
	X := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for k := range w {
			if rng.Float64() < min(1, density*float64(d)*w[k]/s) {
				v := 1.0
				if !binary {
					v = 0.5 + rng.Float64()
				}
				X.Set(i, k, v)
			}
		}
	}
	return X
}

// denseRows is the dense route of Rows, whatever the data.
func denseRows(g *Gaussian, X *mat.Dense) *gaussRows {
	x, n, d := rowMajor(X)
	xt, p := g.transform(x, n, d, colMeans(x, n, d))
	return &gaussRows{xt: xt, n: n, p: p, h: rowNorms2Half(xt, n, p)}
}

func TestSparseRowsRoute(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	g, _ := NewGaussianIso(0.05)
	for _, c := range []struct {
		name   string
		X      *mat.Dense
		sparse bool
	}{
		{"a1a-like 11%", randSparse(rng, 200, 123, 0.11, true), true},
		{"5% values", randSparse(rng, 200, 60, 0.05, false), true},
		{"dense", randData(rng, 200, 20, 0), false},
		{"half set", randSparse(rng, 200, 40, 0.5, false), true},
		{"80% set", randSparse(rng, 200, 40, 0.8, false), false},
	} {
		x, n, d := rowMajor(c.X)
		ratio := sparseRatio(sparseGaussRowsCost(x, n, d, 1, math.Inf(1)))
		_, sp := g.Rows(c.X).(*sparseRows)
		if sp != c.sparse {
			t.Errorf("%s (work ratio %.3f): sparse route %v, want %v", c.name, ratio, sp, c.sparse)
		}
	}
	// Rows shifted far from the origin: a z-scored one-hot block (its zeros
	// moved to -μ/σ, as train's default normalisation does) and a feature
	// at 1000 + U(0, 1) take the sparse route on the rows less each
	// column's majority value, with entries as exact as the dense route's.
	off := randSparse(rng, 200, 123, 0.11, true)
	for k := 0; k < 123; k++ {
		var mu, ss float64
		for i := 0; i < 200; i++ {
			mu += off.At(i, k) / 200
		}
		for i := 0; i < 200; i++ {
			ss += (off.At(i, k) - mu) * (off.At(i, k) - mu) / 200
		}
		for i := 0; i < 200 && ss > 0; i++ {
			off.Set(i, k, (off.At(i, k)-mu)/math.Sqrt(ss))
		}
	}
	for i := 0; i < 200; i++ {
		off.Set(i, 5, 1000+rng.Float64())
	}
	m, sp := g.Rows(off).(*sparseRows)
	if !sp {
		t.Fatal("z-scored one-hot rows took the dense route")
	}
	col := make([]float64, 200)
	m.Column(3, nil, col)
	for j, v := range col {
		if ev := g.Eval(off.RawRowView(3), off.RawRowView(j)); math.Abs(v-ev) > 1e-13 {
			t.Fatalf("shifted rows: K(3,%d) = %.17g, Eval %.17g", j, v, ev)
		}
	}
	// The offset guard: rows whose stored form is far from the origin
	// against their spread (here a bad base on purpose) are refused.
	x, n, d := rowMajor(off)
	bad := columnBases(x, n, d)
	bad[5] = -1e6
	if sparseRowsShifted(x, n, d, 1, bad, sparseMaxCost) != nil {
		t.Error("rows offset by 1e6 against their spread took the sparse route")
	}
	// Diagonal and full Q keep the dense route even on sparse data.
	X := randSparse(rng, 100, 30, 0.05, true)
	q := make([]float64, 30)
	for k := range q {
		q[k] = 0.1
	}
	diag, _ := NewGaussianDiag(q)
	if _, sp := diag.Rows(X).(*sparseRows); sp {
		t.Error("diagonal Q took the sparse route")
	}
}

// The sparse route's entries equal the kernel's definition and the dense
// route's, and whole columns, prefixes, contiguous parts (the solver's
// chunks) and permuted idx agree to the last bit.
func TestSparseRowsColumns(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, binary := range []bool{true, false} {
		X := randSparse(rng, 150, 80, 0.08, binary)
		// An empty row and a row far from the others.
		for k := 0; k < 80; k++ {
			X.Set(7, k, 0)
		}
		X.Set(9, 79, 40)
		g, _ := NewGaussianIso(0.02)
		m := g.Rows(X)
		sp, ok := m.(*sparseRows)
		if !ok {
			t.Fatalf("binary %v: dense route taken", binary)
		}
		dense := denseRows(g, X)
		n := m.Len()
		full := make([]float64, n)
		want := make([]float64, n)
		for _, i := range []int{0, 7, 9, 42, n - 1} {
			m.Column(i, nil, full)
			dense.Column(i, nil, want)
			for j := range full {
				ev := g.Eval(X.RawRowView(i), X.RawRowView(j))
				if math.Abs(full[j]-ev) > 1e-14 || math.Abs(full[j]-want[j]) > 1e-14 {
					t.Fatalf("binary %v: K(%d,%d) = %.17g, Eval %.17g, dense route %.17g", binary, i, j, full[j], ev, want[j])
				}
			}
			if full[i] != 1 || m.Diag(i) != 1 {
				t.Errorf("K(%d,%d) = %g, Diag %g, want 1", i, i, full[i], m.Diag(i))
			}
			pre := make([]float64, 60)
			m.Column(i, nil, pre)
			for j, v := range pre {
				if v != full[j] {
					t.Fatalf("prefix K(%d,%d) = %.17g, whole column %.17g", i, j, v, full[j])
				}
			}
			for _, idx := range [][]int{rangeIdx(50, 101), rangeIdx(0, n), rng.Perm(n)[:37], {i}, {}} {
				dst := make([]float64, len(idx))
				m.Column(i, idx, dst)
				for k, j := range idx {
					if dst[k] != full[j] {
						t.Fatalf("idx K(%d,%d) = %.17g, whole column %.17g", i, j, dst[k], full[j])
					}
				}
			}
		}
		if sp.EntryCost() < 16 || sp.EntryCost() > 16+80 {
			t.Errorf("EntryCost %d outside [16, 16+d]", sp.EntryCost())
		}
	}
}

func rangeIdx(lo, hi int) []int {
	idx := make([]int, hi-lo)
	for k := range idx {
		idx[k] = lo + k
	}
	return idx
}

// Concurrent calls through idx share the scratch pool without mixing up
// their buffers (run with -race).
func TestSparseRowsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	X := randSparse(rng, 300, 100, 0.06, true)
	g, _ := NewGaussianIso(0.1)
	m := g.Rows(X)
	n := m.Len()
	want := make([][]float64, n)
	for i := range want {
		want[i] = make([]float64, n)
		m.Column(i, nil, want[i])
	}
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 4; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			dst := make([]float64, n)
			for i := w; i < n; i += 4 {
				lo := (i * 7) % (n / 2)
				idx := rangeIdx(lo, lo+n/2)
				m.Column(i, idx, dst)
				for k, j := range idx {
					if dst[k] != want[i][j] {
						errs <- fmt.Errorf("K(%d,%d) = %g concurrently, %g alone", i, j, dst[k], want[i][j])
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// BenchmarkSparseColumn times one whole kernel column by the dense and the
// sparse route, on a1a-like binary rows and on sparser and denser data: the
// evidence behind sparseMaxCost.
func BenchmarkSparseColumn(b *testing.B) {
	g, _ := NewGaussianIso(0.03125)
	for _, c := range []struct {
		n, d    int
		density float64
	}{{1605, 123, 0.11}, {5000, 123, 0.11}, {2000, 300, 0.02}, {2000, 50, 0.3}, {2000, 50, 0.5}, {2000, 50, 0.7}, {2000, 50, 1}} {
		X := randSparse(rand.New(rand.NewPCG(1, 2)), c.n, c.d, c.density, true)
		x, n, d := rowMajor(X)
		sp := sparseGaussRowsCost(x, n, d, math.Sqrt(2*0.03125), math.Inf(1))
		routes := map[string]Matrix{"dense": denseRows(g, X), "sparse": sp}
		ratio := sparseRatio(sp)
		for _, name := range []string{"dense", "sparse"} {
			m := routes[name]
			b.Run(fmt.Sprintf("%s/n=%d,d=%d,density=%g,ratio=%.3f", name, c.n, c.d, c.density, ratio), func(b *testing.B) {
				dst := make([]float64, n)
				i := 0
				for b.Loop() {
					m.Column(i, nil, dst)
					i = (i + 1) % n
				}
			})
		}
	}
}

// sparseRatio is the scatter route's work over the dense route's n²·d.
func sparseRatio(sp *sparseRows) float64 {
	var work float64
	for k := 0; k < sp.d; k++ {
		nk := float64(sp.colPtr[k+1] - sp.colPtr[k])
		work += nk * nk
	}
	return work / (float64(sp.n) * float64(sp.n) * float64(sp.d))
}

// TestSparseConstColumnsSameBits: the scatter's constant-column loop
// (binary and one-hot features, colConst) gives every entry of the loop
// that multiplies each stored value, bit for bit, whole columns, prefixes
// and columns through idx, on 0/1 features (a1a's), on features set in most
// rows (stored as -1 from their base), at a γ whose √(2γ) is not exact, and
// with one column of varying values among constant ones; on compressed rows
// too. The constant columns are found, and the varying one is not.
func TestSparseConstColumnsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(21, 22))
	X := randSparse(rng, 300, 60, 0.15, true)
	for i := range 300 { // feature 0 set in most rows: stored by its unset ones
		if rng.Float64() < 0.9 {
			X.Set(i, 0, 1)
		}
	}
	X.Set(3, 5, 0.75) // feature 5 varies
	X.Set(4, 5, 1)
	g, _ := NewGaussianIso(math.Exp2(-7)) // √(2γ) = 2^-3 = exact; and below 2^-8
	g2, _ := NewGaussianIso(math.Exp2(-8))
	for _, gg := range []*Gaussian{g, g2} {
		for _, m := range []Matrix{gg.Rows(X), RowsAt(gg, sparse.FromDense(X), rangeIdx(0, 300))} {
			sp, ok := m.(*sparseRows)
			if !ok {
				t.Fatalf("%T: not the sparse route", m)
			}
			nconst := 0
			for k, c := range sp.colConst {
				if !math.IsNaN(c) {
					nconst++
				}
				if sp.colOf == nil && k == 5 && !math.IsNaN(c) {
					t.Errorf("feature 5 varies, colConst %v", c)
				}
			}
			if nconst < 50 {
				t.Fatalf("%d of %d columns constant, want at least 50", nconst, len(sp.colConst))
			}
			consts := sp.colConst
			n := m.Len()
			for _, i := range []int{0, 3, 4, 150, n - 1} {
				for _, idx := range [][]int{nil, rangeIdx(0, 77), rangeIdx(120, n), rng.Perm(n)[:41]} {
					l := n
					if idx != nil {
						l = len(idx)
					}
					got, want := make([]float64, l), make([]float64, l)
					m.Column(i, idx, got)
					sp.colConst = nil // the multiplying loop
					m.Column(i, idx, want)
					sp.colConst = consts
					for k := range got {
						if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
							t.Fatalf("γ %g, %T, column %d, entry %d: %.17g, multiplying loop %.17g", gg.gamma, m, i, k, got[k], want[k])
						}
					}
				}
			}
		}
	}
}

// oneHot returns n rows of one-hot groups (sizes), a group's value drawn
// with skewed frequencies and left out (missing) in about 3 % of rows, as
// LIBSVM's a1a: one 1 per group, 123 features, 14 set a row.
func oneHot(rng *rand.Rand, n int, sizes []int) *mat.Dense {
	d := 0
	for _, s := range sizes {
		d += s
	}
	X := mat.NewDense(n, d, nil)
	for i := range n {
		at := 0
		for _, s := range sizes {
			if rng.Float64() >= 0.03 {
				v := int(float64(s) * rng.Float64() * rng.Float64()) // skewed to the first values
				X.Set(i, at+v, 1)
			}
			at += s
		}
	}
	return X
}

// TestSparseBitsSameBits: on rows whose stored entries all have one square
// (one-hot groups, a feature set in most rows stored by its unset ones as
// -√(2γ) on the dense route), the bitset route's columns (popcounts, and
// exp values from a per-column table) are the scatter's to the last bit,
// whole, as prefixes and through idx, for the Gaussian on both routes and
// the linear kernel on compressed rows; data with a varying entry keeps the
// scatter.
func TestSparseBitsSameBits(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 24))
	sizes := []int{5, 8, 5, 16, 5, 7, 14, 6, 5, 2, 2, 2, 5, 41}
	X := oneHot(rng, 400, sizes)
	for i := range 400 { // the first feature set in most rows
		X.Set(i, 0, 0)
		if rng.Float64() < 0.9 {
			X.Set(i, 0, 1)
		}
	}
	Xs := sparse.FromDense(X)
	var ms []Matrix
	for _, gamma := range []float64{math.Exp2(-7), math.Exp2(-8), 0.0137} {
		g, _ := NewGaussianIso(gamma)
		ms = append(ms, g.Rows(X), RowsAt(g, Xs, rangeIdx(0, 400)), RowsAt(g, Xs, rng.Perm(400)[:300]))
	}
	ms = append(ms, RowsAt(Linear{}, Xs, rangeIdx(0, 400)))
	for mi, m := range ms {
		sp, ok := m.(*sparseRows)
		if !ok {
			t.Fatalf("matrix %d, %T: not the sparse route", mi, m)
		}
		if sp.bits == nil || (!sp.linear && sp.hVals == nil) {
			t.Fatalf("matrix %d: the bitset route not taken (bits %v, %d h values, cost %d, %d words)", mi, sp.bits != nil, len(sp.hVals), sp.cost, sp.words)
		}
		n := m.Len()
		for _, i := range []int{0, 3, 150, n - 1} {
			for _, idx := range [][]int{nil, rangeIdx(0, 77), rangeIdx(120, n), rng.Perm(n)[:41], rng.Perm(n)[:n/2]} {
				l := n
				if idx != nil {
					l = len(idx)
				}
				if idx == nil && i == 3 {
					l = 70 // a prefix
				}
				got, want := make([]float64, l), make([]float64, l)
				m.Column(i, idx, got)
				b := sp.bits
				sp.bits = nil // the scatter
				m.Column(i, idx, want)
				sp.bits = b
				for k := range got {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("matrix %d, column %d, idx of %d, entry %d: %.17g, scatter %.17g", mi, i, len(idx), k, got[k], want[k])
					}
				}
				hv := sp.hVals // the dot products, then gaussColumn
				sp.hVals = nil
				m.Column(i, idx, got)
				sp.hVals = hv
				for k := range got {
					if math.Float64bits(got[k]) != math.Float64bits(want[k]) {
						t.Fatalf("matrix %d, column %d without the table, entry %d: %.17g, scatter %.17g", mi, i, k, got[k], want[k])
					}
				}
			}
		}
	}
	X.Set(7, 3, 0.5) // one entry of another square: the scatter
	g, _ := NewGaussianIso(0.01)
	if sp := g.Rows(X).(*sparseRows); sp.bits != nil {
		t.Error("the bitset route taken on rows with an entry of another square")
	}
}
