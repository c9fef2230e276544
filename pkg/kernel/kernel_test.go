package kernel

import (
	"encoding/json"
	"errors"
	"go/build"
	"math"
	"math/rand/v2"
	"reflect"
	"runtime"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randData returns an n×d matrix of N(off, 1) entries.
func randData(rng *rand.Rand, n, d int, off float64) *mat.Dense {
	x := mat.NewDense(n, d, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < d; j++ {
			x.Set(i, j, off+rng.NormFloat64())
		}
	}
	return x
}

// randSPD returns a random d×d SPD matrix with eigenvalues of order scale.
func randSPD(rng *rand.Rand, d int, scale float64) *mat.SymDense {
	a := mat.NewDense(d, d, nil)
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	q := mat.NewSymDense(d, nil)
	q.SymOuterK(scale/float64(d), a)
	for k := 0; k < d; k++ {
		q.SetSym(k, k, q.At(k, k)+scale/2)
	}
	return q
}

// randSym returns a random symmetric n×n matrix.
func randSym(rng *rand.Rand, n int) *mat.SymDense {
	c := mat.NewSymDense(n, nil)
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			c.SetSym(i, j, rng.NormFloat64())
		}
	}
	return c
}

func row(X mat.Matrix, i int) []float64 {
	_, d := X.Dims()
	r := make([]float64, d)
	for k := range r {
		r[k] = X.At(i, k)
	}
	return r
}

// testKernels returns one kernel of every kind and form for d-dimensional data.
func testKernels(t *testing.T, rng *rand.Rand, d int) map[string]Kernel {
	t.Helper()
	iso, err := NewGaussianIso(0.5 / float64(d))
	if err != nil {
		t.Fatal(err)
	}
	q := make([]float64, d)
	for k := range q {
		q[k] = rng.Float64() / float64(d)
	}
	q[0] = 0 // a switched-off feature
	diag, err := NewGaussianDiag(q)
	if err != nil {
		t.Fatal(err)
	}
	full, err := NewGaussian(randSPD(rng, d, 1/float64(d)))
	if err != nil {
		t.Fatal(err)
	}
	theta := make([]float64, d)
	for k := range theta {
		theta[k] = 0.5 + rng.Float64()
	}
	l1, err := NewL1(theta)
	if err != nil {
		t.Fatal(err)
	}
	return map[string]Kernel{"iso": iso, "diag": diag, "full": full, "l1": l1, "linear": Linear{}}
}

const bulkTol = 1e-12

func closeTo(a, b, tol float64) bool {
	return math.Abs(a-b) <= tol*math.Max(1, math.Abs(b))
}

func TestGramCrossRowsMatchEval(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 1))
	// n = 150 spans several tiles (64) with a ragged edge; offset data far
	// from the origin checks the centring.
	for _, tc := range []struct {
		name string
		n, m int
		d    int
		off  float64
	}{
		{"small", 7, 5, 3, 0},
		{"tiles", 150, 70, 6, 0},
		{"offset", 130, 40, 5, 100},
	} {
		X := randData(rng, tc.n, tc.d, tc.off)
		A := randData(rng, tc.m, tc.d, tc.off)
		for name, k := range testKernels(t, rng, tc.d) {
			t.Run(tc.name+"/"+name, func(t *testing.T) {
				K := k.Gram(X)
				if K.SymmetricDim() != tc.n {
					t.Fatalf("Gram dim %d, want %d", K.SymmetricDim(), tc.n)
				}
				raw := K.RawSymmetric()
				for i := 0; i < tc.n; i++ {
					for j := 0; j < tc.n; j++ {
						want := k.Eval(row(X, i), row(X, j))
						if got := raw.Data[i*raw.Stride+j]; !closeTo(got, want, bulkTol) {
							t.Fatalf("Gram[%d][%d] = %v, Eval = %v", i, j, got, want)
						}
					}
				}
				C := k.Cross(A, X)
				if r, c := C.Dims(); r != tc.m || c != tc.n {
					t.Fatalf("Cross dims %d×%d", r, c)
				}
				for i := 0; i < tc.m; i++ {
					for j := 0; j < tc.n; j++ {
						want := k.Eval(row(A, i), row(X, j))
						if got := C.At(i, j); !closeTo(got, want, bulkTol) {
							t.Fatalf("Cross[%d][%d] = %v, Eval = %v", i, j, got, want)
						}
					}
				}
				full := mat.NewDense(tc.n, tc.n, nil)
				full.Copy(K)
				// PrecomputedRows fills the lower triangle of its matrix's
				// storage: of a copy whose lower triangle is poisoned.
				Kc := mat.NewSymDense(tc.n, nil)
				Kc.CopySym(K)
				rc := Kc.RawSymmetric()
				for i := 0; i < tc.n; i++ {
					for j := 0; j < i; j++ {
						rc.Data[i*rc.Stride+j] = math.NaN()
					}
				}
				// (rowsMinN 0: the mirroring path at these small sizes; the
				// tests of this package do not run in parallel.)
				saved := rowsMinN
				rowsMinN = 0
				rows := PrecomputedRows(Kc)
				rowsMinN = saved
				mats := map[string]Matrix{"rows": k.Rows(X), "precomputed": Precomputed(K), "precomputedAt": Precomputed(symAt{K}), "square": PrecomputedSquare(full), "precomputedRows": rows, "precomputedRowsSmall": PrecomputedRows(K)}
				for mn, m := range mats {
					checkMatrix(t, mn, m, func(i, j int) float64 { return K.At(i, j) }, rng)
				}
				sh := Shifted(k.Rows(X), 0.25)
				checkMatrix(t, "shifted", sh, func(i, j int) float64 {
					if i == j {
						return K.At(i, j) + 0.25
					}
					return K.At(i, j)
				}, rng)
			})
		}
	}
}

// symAt hides the concrete type of a SymDense, so Precomputed takes its At path.
type symAt struct{ mat.Symmetric }

// checkMatrix compares every way of reading m with want(i, j).
func checkMatrix(t *testing.T, name string, m Matrix, want func(i, j int) float64, rng *rand.Rand) {
	t.Helper()
	n := m.Len()
	full := make([]float64, n)
	for i := 0; i < n; i++ {
		if got, w := m.Diag(i), want(i, i); !closeTo(got, w, bulkTol) {
			t.Fatalf("%s: Diag(%d) = %v, want %v", name, i, got, w)
		}
		m.Column(i, nil, full)
		for j := range full {
			if w := want(i, j); !closeTo(full[j], w, bulkTol) {
				t.Fatalf("%s: Column(%d)[%d] = %v, want %v", name, i, j, full[j], w)
			}
		}
		// A prefix, as a solver with a shrunk active set at the front asks.
		pre := make([]float64, n/2)
		m.Column(i, nil, pre)
		for j := range pre {
			if pre[j] != full[j] {
				t.Fatalf("%s: prefix Column(%d)[%d] = %v, full column %v", name, i, j, pre[j], full[j])
			}
		}
		// An unordered subset including i itself.
		idx := rng.Perm(n)[:n/3+1]
		idx = append(idx, i)
		sub := make([]float64, len(idx))
		m.Column(i, idx, sub)
		for k, j := range idx {
			if w := want(i, j); !closeTo(sub[k], w, bulkTol) {
				t.Fatalf("%s: Column(%d, idx)[%d] (j=%d) = %v, want %v", name, i, k, j, sub[k], w)
			}
			// Bit for bit: the solver mixes cached full columns with
			// entries read through idx.
			if sub[k] != full[j] {
				t.Fatalf("%s: Column(%d, idx)[%d] (j=%d) = %v, full column %v", name, i, k, j, sub[k], full[j])
			}
		}
	}
}

func TestCentredL1IsPSD(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	X := randData(rng, 40, 4, 0)
	k, err := NewL1([]float64{1, 2, 0.5, 1})
	if err != nil {
		t.Fatal(err)
	}
	K := k.Gram(X)
	var eig mat.EigenSym
	if !eig.Factorize(K, false) {
		t.Fatal("eigen failed")
	}
	if v := eig.Values(nil); v[0] >= -1e-6 {
		t.Fatalf("L1 Gram smallest eigenvalue %v: expected indefinite", v[0])
	}
	const r = 3
	c := Centred(k.Rows(X), r)
	n := c.Len()
	kt := mat.NewSymDense(n, nil)
	col := make([]float64, n)
	for i := 0; i < n; i++ {
		c.Column(i, nil, col)
		for j := i; j < n; j++ {
			want := K.At(i, j) - K.At(i, r) - K.At(j, r) + K.At(r, r)
			if !closeTo(col[j], want, bulkTol) {
				t.Fatalf("centred(%d,%d) = %v, want %v", i, j, col[j], want)
			}
			kt.SetSym(i, j, col[j])
		}
		if !closeTo(c.Diag(i), kt.At(i, i), bulkTol) {
			t.Fatalf("centred Diag(%d) = %v, column %v", i, c.Diag(i), kt.At(i, i))
		}
	}
	if !eig.Factorize(kt, false) {
		t.Fatal("eigen failed")
	}
	if v := eig.Values(nil); v[0] < -1e-9*v[n-1] {
		t.Fatalf("centred L1 Gram smallest eigenvalue %v (largest %v): not PSD", v[0], v[n-1])
	}
}

func TestGaussianDiagonalIsOne(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 3))
	X := randData(rng, 100, 3, 1e4) // large offset: rounding must not push K_ii off 1 or K_ij above 1
	k, _ := NewGaussianIso(10)
	K := k.Gram(X)
	for i := 0; i < 100; i++ {
		if K.At(i, i) != 1 {
			t.Fatalf("K[%d][%d] = %v", i, i, K.At(i, i))
		}
		for j := 0; j < 100; j++ {
			if v := K.At(i, j); v > 1 || v < 0 || math.IsNaN(v) {
				t.Fatalf("K[%d][%d] = %v outside [0,1]", i, j, v)
			}
		}
	}
}

func TestNewGaussianNotSPD(t *testing.T) {
	q := mat.NewSymDense(2, []float64{1, 2, 2, 1}) // eigenvalues 3, -1
	_, err := NewGaussian(q)
	if !errors.Is(err, ErrNotSPD) {
		t.Fatalf("NewGaussian(indefinite) error %v, want ErrNotSPD", err)
	}
	for _, tc := range []struct {
		name string
		f    func() error
	}{
		{"iso zero", func() error { _, err := NewGaussianIso(0); return err }},
		{"iso NaN", func() error { _, err := NewGaussianIso(math.NaN()); return err }},
		{"diag negative", func() error { _, err := NewGaussianDiag([]float64{1, -1}); return err }},
		{"diag Inf", func() error { _, err := NewGaussianDiag([]float64{math.Inf(1)}); return err }},
		{"l1 zero", func() error { _, err := NewL1([]float64{1, 0}); return err }},
		{"l1 empty", func() error { _, err := NewL1(nil); return err }},
		{"full NaN", func() error { _, err := NewGaussian(mat.NewSymDense(1, []float64{math.NaN()})); return err }},
	} {
		if err := tc.f(); err == nil || !strings.HasPrefix(err.Error(), "build ") {
			t.Errorf("%s: error %v, want one starting \"build \" (what was being done)", tc.name, err)
		}
	}
	if _, err := NewGaussianDiag([]float64{0, 1}); err != nil {
		t.Errorf("NewGaussianDiag with a zero weight: %v", err)
	}
}

func TestSpecRoundTrip(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 4))
	X := randData(rng, 20, 4, 0)
	for name, k := range testKernels(t, rng, 4) {
		s := k.Spec()
		k2, err := FromSpec(s)
		if err != nil {
			t.Fatalf("%s: FromSpec(%+v): %v", name, s, err)
		}
		if !reflect.DeepEqual(k2.Spec(), s) {
			t.Fatalf("%s: spec %+v round-trips to %+v", name, s, k2.Spec())
		}
		if !mat.EqualApprox(k.Gram(X), k2.Gram(X), 1e-14) {
			t.Fatalf("%s: Gram differs after round trip", name)
		}
	}
	iso, _ := NewGaussianIso(0.25)
	if s := iso.Spec(); s.Kind != KindGaussian || s.Gamma != 0.25 || s.Diag != nil || s.Q != nil {
		t.Fatalf("iso spec %+v", s)
	}
	if g, ok := iso.Gamma(); !ok || g != 0.25 {
		t.Fatalf("Gamma() = %v, %v", g, ok)
	}
	if q := iso.Metric(3); q.At(1, 1) != 0.5 || q.At(0, 1) != 0 {
		t.Fatalf("iso Metric(3) = %v", mat.Formatted(q))
	}
	if iso.Q() != nil {
		t.Fatal("iso Q() should be nil")
	}
	for _, tc := range []struct {
		name string
		s    Spec
	}{
		{"unknown kind", Spec{Kind: "rbf", Gamma: 1}},
		{"no kind", Spec{}},
		{"gaussian empty", Spec{Kind: KindGaussian}},
		{"gaussian two forms", Spec{Kind: KindGaussian, Gamma: 1, Diag: []float64{1}}},
		{"gaussian negative gamma", Spec{Kind: KindGaussian, Gamma: -1}},
		{"gaussian ragged q", Spec{Kind: KindGaussian, Q: [][]float64{{1, 0}, {0}}}},
		{"gaussian asymmetric q", Spec{Kind: KindGaussian, Q: [][]float64{{1, 0.5}, {0, 1}}}},
		{"gaussian indefinite q", Spec{Kind: KindGaussian, Q: [][]float64{{1, 2}, {2, 1}}}},
		{"gaussian with theta", Spec{Kind: KindGaussian, Gamma: 1, Theta: []float64{1}}},
		{"l1 no theta", Spec{Kind: KindL1}},
		{"l1 with gamma", Spec{Kind: KindL1, Gamma: 1, Theta: []float64{1}}},
		{"l1 bad theta", Spec{Kind: KindL1, Theta: []float64{1, -2}}},
		{"linear with gamma", Spec{Kind: KindLinear, Gamma: 1}},
	} {
		_, err := FromSpec(tc.s)
		if err == nil || !strings.HasPrefix(err.Error(), "build ") {
			t.Errorf("%s: FromSpec error %v, want one starting \"build \" (what was being done)", tc.name, err)
		}
	}
	_, err := FromSpec(Spec{Kind: KindGaussian, Q: [][]float64{{1, 2}, {2, 1}}})
	if !errors.Is(err, ErrNotSPD) {
		t.Errorf("indefinite q: %v, want ErrNotSPD", err)
	}
}

func TestExpNonPos(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 5))
	n := 300000
	if testing.Short() {
		n = 30000
	}
	for i := 0; i < n; i++ {
		var x float64
		switch i % 3 {
		case 0:
			x = -rng.Float64() * 720
		case 1:
			x = -rng.Float64() * 5
		default:
			x = -rng.Float64() * 1e-3
		}
		got, want := expNonPos(x), math.Exp(x)
		if math.Abs(got-want) > 4e-16*want {
			t.Fatalf("expNonPos(%v) = %v, math.Exp %v (relative error %g)", x, got, want, math.Abs(got-want)/want)
		}
	}
	for _, x := range []float64{0, math.Copysign(0, -1), -1e-300, -708, -708.5, -745, -746, math.Inf(-1)} {
		if got, want := expNonPos(x), math.Exp(x); math.Abs(got-want) > 4e-16*want {
			t.Errorf("expNonPos(%v) = %v, want %v", x, got, want)
		}
	}
	if !math.IsNaN(expNonPos(math.NaN())) {
		t.Error("expNonPos(NaN) is not NaN")
	}
}

// TestEvalDefinitions pins each kernel's formula and parameter convention
// with numbers worked by hand.
func TestEvalDefinitions(t *testing.T) {
	x, z := []float64{1, 2}, []float64{0, 0.5}  // Δ = (1, 1.5), ‖Δ‖² = 3.25
	iso, _ := NewGaussianIso(0.4)               // exp(-0.4·3.25) = exp(-1.3)
	diag, _ := NewGaussianDiag([]float64{2, 0}) // exp(-½·2·1) = exp(-1)
	full, err := NewGaussian(mat.NewSymDense(2, []float64{2, 1, 1, 4}))
	if err != nil {
		t.Fatal(err)
	}
	// ½ΔᵀQΔ = ½(2·1 + 2·1·1·1.5 + 4·2.25) = ½(2 + 3 + 9) = 7
	l1, _ := NewL1([]float64{2, 0.5}) // -(1/2 + 1.5/0.5) = -3.5
	for _, tc := range []struct {
		name string
		k    Kernel
		want float64
	}{
		{"iso", iso, math.Exp(-1.3)},
		{"diag", diag, math.Exp(-1)},
		{"full", full, math.Exp(-7)},
		{"l1", l1, -3.5},
		{"linear", Linear{}, 1},
	} {
		if got := tc.k.Eval(x, z); !closeTo(got, tc.want, 1e-15) {
			t.Errorf("%s: Eval = %.17g, want %.17g", tc.name, got, tc.want)
		}
		if got := tc.k.Eval(z, x); !closeTo(got, tc.want, 1e-15) {
			t.Errorf("%s: Eval not symmetric: %.17g, want %.17g", tc.name, got, tc.want)
		}
	}
	if q := full.Q(); q.At(0, 1) != 1 || q.At(1, 1) != 4 {
		t.Errorf("Q() = %v", mat.Formatted(q))
	}
	if q, ok := diag.QDiag(); !ok || q[0] != 2 || q[1] != 0 {
		t.Errorf("QDiag() = %v, %v", q, ok)
	}
}

// TestGramDeterministic checks that the parallel Gram and gradients give the
// same bits on one core and on several (tiles are fixed, never scheduled by
// arrival). The parallel run uses at least 4 Ps, so the comparison means
// something on a one-core machine too (there GOMAXPROCS defaults to 1).
func TestGramDeterministic(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 6))
	X := randData(rng, 300, 7, 0)
	C := randSym(rng, 300)
	run := func() (*mat.SymDense, *mat.SymDense, *mat.SymDense, []float64) {
		g, _ := NewGaussian(randSPD(rand.New(rand.NewPCG(3, 3)), 7, 0.2))
		K := g.Gram(X)
		l1, _ := NewL1([]float64{1, 2, 3, 4, 5, 6, 7})
		var G mat.SymDense
		GaussianGradQ(&G, X, K, C)
		th := make([]float64, 7)
		L1GradTheta(th, X, []float64{1, 2, 3, 4, 5, 6, 7}, C)
		return K, l1.Gram(X), &G, th
	}
	prev := runtime.GOMAXPROCS(max(4, runtime.GOMAXPROCS(0)))
	defer runtime.GOMAXPROCS(prev)
	K2, L2, G2, th2 := run()
	runtime.GOMAXPROCS(1)
	K1, L1k, G1, th1 := run()
	if !mat.Equal(K1, K2) || !mat.Equal(L1k, L2) || !mat.Equal(G1, G2) || !slices.Equal(th1, th2) {
		t.Fatal("results differ between GOMAXPROCS=1 and GOMAXPROCS>1")
	}
}

// TestImports keeps the package's imports to the standard library and gonum
// (docs/architecture.md "Packages and imports": kernel → gonum and
// pkg/sparse, the compressed rows it computes on), and golang.org/x/sys/cpu,
// the Go team's CPU feature probe, which says whether the AVX2 exp may run.
func TestImports(t *testing.T) {
	pkg, err := build.ImportDir(".", 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, imp := range pkg.Imports {
		if strings.Contains(strings.SplitN(imp, "/", 2)[0], ".") && !strings.HasPrefix(imp, "gonum.org/v1/gonum/") && imp != "golang.org/x/sys/cpu" && imp != "github.com/kerneltune/kerneltune/pkg/sparse" {
			t.Errorf("kernel imports %s: only the standard library and gonum are allowed", imp)
		}
	}
}

func TestSpecJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 7))
	for name, k := range testKernels(t, rng, 3) {
		b, err := json.Marshal(k.Spec())
		if err != nil {
			t.Fatal(err)
		}
		var s Spec
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		k2, err := FromSpec(s)
		if err != nil {
			t.Fatalf("%s: %s: %v", name, b, err)
		}
		if !reflect.DeepEqual(k2.Spec(), k.Spec()) {
			t.Fatalf("%s: JSON %s round-trips to %+v", name, b, k2.Spec())
		}
	}
	iso, _ := NewGaussianIso(0.125)
	if b, _ := json.Marshal(iso.Spec()); string(b) != `{"kind":"gaussian","gamma":0.125}` {
		t.Fatalf("iso spec JSON %s", b)
	}
}

// TestColumnsConcurrent reads one Matrix from several goroutines (run with
// -race): cross-validation folds may share a Precomputed or Rows matrix.
func TestColumnsConcurrent(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 8))
	X := randData(rng, 60, 4, 0)
	g, _ := NewGaussianIso(0.2)
	K := g.Gram(X)
	for _, m := range []Matrix{g.Rows(X), Precomputed(K), Shifted(Centred(g.Rows(X), 2), 0.5)} {
		done := make(chan []float64)
		for w := 0; w < 4; w++ {
			go func() {
				col := make([]float64, 60)
				for i := 0; i < 60; i++ {
					m.Column(i, nil, col)
				}
				done <- col
			}()
		}
		first := <-done
		for w := 1; w < 4; w++ {
			if c := <-done; !slices.Equal(c, first) {
				t.Fatal("concurrent columns differ")
			}
		}
	}
}
