package kernel

import (
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// objectives returns F(K) and its weight matrix C = ∂F/∂K: a linear one with
// random symmetric weights and a nonlinear F = Σ K_ij² (C = 2K).
func objectives(rng *rand.Rand, n int) map[string]struct {
	F func(K *mat.SymDense) float64
	C func(K *mat.SymDense) *mat.SymDense
} {
	W := randSym(rng, n)
	type obj = struct {
		F func(K *mat.SymDense) float64
		C func(K *mat.SymDense) *mat.SymDense
	}
	return map[string]obj{
		"linear": {
			F: func(K *mat.SymDense) float64 {
				var s float64
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						s += W.At(i, j) * K.At(i, j)
					}
				}
				return s
			},
			C: func(*mat.SymDense) *mat.SymDense { return W },
		},
		"squares": {
			F: func(K *mat.SymDense) float64 {
				var s float64
				for i := 0; i < n; i++ {
					for j := 0; j < n; j++ {
						s += K.At(i, j) * K.At(i, j)
					}
				}
				return s
			},
			C: func(K *mat.SymDense) *mat.SymDense {
				c := mat.NewSymDense(n, nil)
				c.ScaleSym(2, K)
				return c
			},
		},
	}
}

func TestGaussianGradQ(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 1))
	const n, d = 30, 4
	for _, off := range []float64{0, 5} {
		X := randData(rng, n, d, off)
		Q0 := randSPD(rng, d, 1/float64(d))
		// θ = the upper triangle of Q: Q_kl = Q_lk = θ, so ∂F/∂θ = 2G_kl off
		// the diagonal and G_kk on it.
		var theta []float64
		for k := 0; k < d; k++ {
			for l := k; l < d; l++ {
				theta = append(theta, Q0.At(k, l))
			}
		}
		qOf := func(th []float64) *mat.SymDense {
			q := mat.NewSymDense(d, nil)
			p := 0
			for k := 0; k < d; k++ {
				for l := k; l < d; l++ {
					q.SetSym(k, l, th[p])
					p++
				}
			}
			return q
		}
		for name, obj := range objectives(rng, n) {
			f := func(th []float64) float64 {
				g, err := NewGaussian(qOf(th))
				if err != nil {
					t.Fatal(err)
				}
				return obj.F(g.Gram(X))
			}
			g, _ := NewGaussian(Q0)
			K := g.Gram(X)
			var G mat.SymDense
			GaussianGradQ(&G, X, K, obj.C(K))
			var grad []float64
			for k := 0; k < d; k++ {
				for l := k; l < d; l++ {
					v := G.At(k, l)
					if k != l {
						v *= 2
					}
					grad = append(grad, v)
				}
			}
			fdcheck.Grad(t, "GaussianGradQ/"+name, f, theta, grad, fdcheck.Settings{})

			// The same with the literal sum -½ Σ W_ij d_ij d_ijᵀ.
			C := obj.C(K)
			for k := 0; k < d; k++ {
				for l := k; l < d; l++ {
					var s float64
					for i := 0; i < n; i++ {
						for j := 0; j < n; j++ {
							s -= 0.5 * C.At(i, j) * K.At(i, j) * (X.At(i, k) - X.At(j, k)) * (X.At(i, l) - X.At(j, l))
						}
					}
					if !closeTo(G.At(k, l), s, 1e-10) {
						t.Fatalf("%s: G[%d][%d] = %v, direct sum %v", name, k, l, G.At(k, l), s)
					}
				}
			}
		}
	}
}

func TestGaussianGradDiag(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 2))
	const n, d = 35, 5
	X := randData(rng, n, d, 1)
	q0 := make([]float64, d)
	for k := range q0 {
		q0[k] = (0.5 + rng.Float64()) / float64(d)
	}
	for name, obj := range objectives(rng, n) {
		f := func(q []float64) float64 {
			g, err := NewGaussianDiag(q)
			if err != nil {
				t.Fatal(err)
			}
			return obj.F(g.Gram(X))
		}
		g, _ := NewGaussianDiag(q0)
		K := g.Gram(X)
		grad := make([]float64, d)
		GaussianGradDiag(grad, X, K, obj.C(K))
		fdcheck.Grad(t, "GaussianGradDiag/"+name, f, q0, grad, fdcheck.Settings{})
		var G mat.SymDense
		GaussianGradQ(&G, X, K, obj.C(K))
		for k := range grad {
			if !closeTo(grad[k], G.At(k, k), 1e-12) {
				t.Fatalf("GaussianGradDiag[%d] = %v, diag of GaussianGradQ %v", k, grad[k], G.At(k, k))
			}
		}

		// LIBSVM's γ (Q = 2γI): ∂F/∂γ = 2 Σ_k ∂F/∂q_k, as the doc says.
		fg := func(x []float64) float64 {
			g, err := NewGaussianIso(x[0])
			if err != nil {
				t.Fatal(err)
			}
			return obj.F(g.Gram(X))
		}
		gamma := 0.3 / float64(d)
		gi, _ := NewGaussianIso(gamma)
		Ki := gi.Gram(X)
		GaussianGradDiag(grad, X, Ki, obj.C(Ki))
		fdcheck.Grad(t, "GaussianGradDiag/gamma/"+name, fg, []float64{gamma}, []float64{2 * floats.Sum(grad)}, fdcheck.Settings{})
	}
}

func TestGaussianGradSubset(t *testing.T) {
	// With C zero outside S, the gradient from the S sub-matrices is the same.
	rng := rand.New(rand.NewPCG(2, 3))
	const n, d = 40, 3
	X := randData(rng, n, d, 0)
	g, _ := NewGaussian(randSPD(rng, d, 0.5))
	K := g.Gram(X)
	S := []int{3, 7, 8, 20, 31, 39}
	C := mat.NewSymDense(n, nil)
	for a, i := range S {
		for _, j := range S[a:] {
			C.SetSym(i, j, rng.NormFloat64())
		}
	}
	var full, sub mat.SymDense
	GaussianGradQ(&full, X, K, C)
	GaussianGradQ(&sub, SelectRows(X, S), SelectSym(K, S), SelectSym(C, S))
	if !mat.EqualApprox(&full, &sub, 1e-12) {
		t.Fatalf("subset gradient\n%v\nfull\n%v", mat.Formatted(&sub), mat.Formatted(&full))
	}
	if mat.Norm(&full, 1) == 0 {
		t.Fatal("zero gradient: the test cannot fail")
	}
}

func TestL1GradTheta(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 4))
	const n, d = 150, 4 // n > 2 tiles: the tiled, parallel sum is exercised
	X := randData(rng, n, d, 0)
	theta0 := []float64{0.7, 1.3, 2, 0.4}
	for name, obj := range objectives(rng, n) {
		f := func(th []float64) float64 {
			k, err := NewL1(th)
			if err != nil {
				t.Fatal(err)
			}
			return obj.F(k.Gram(X))
		}
		k, _ := NewL1(theta0)
		K := k.Gram(X)
		grad := make([]float64, d)
		L1GradTheta(grad, X, theta0, obj.C(K))
		fdcheck.Grad(t, "L1GradTheta/"+name, f, theta0, grad, fdcheck.Settings{})
		again := make([]float64, d)
		L1GradTheta(again, X, theta0, obj.C(K))
		if !slices.Equal(grad, again) {
			t.Fatalf("L1GradTheta not deterministic: %v then %v", grad, again)
		}
	}
}

func TestSquaredDistancesAndMedian(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 5))
	for _, n := range []int{2, 3, 9, 70} { // 1, 3, 36 and 2415 pairs: odd and even counts
		X := randData(rng, n, 3, 50)
		S := SquaredDistances(X)
		var pairs []float64
		for i := 0; i < n; i++ {
			for j := 0; j < n; j++ {
				var want float64
				for k := 0; k < 3; k++ {
					dk := X.At(i, k) - X.At(j, k)
					want += dk * dk
				}
				if !closeTo(S.At(i, j), want, 1e-11) {
					t.Fatalf("n=%d: S[%d][%d] = %v, want %v", n, i, j, S.At(i, j), want)
				}
				if i < j {
					pairs = append(pairs, want)
				}
			}
		}
		slices.Sort(pairs)
		m := len(pairs)
		want := (pairs[(m-1)/2] + pairs[m/2]) / 2
		if got := MedianOffDiag(S); !closeTo(got, want, 1e-11) {
			t.Fatalf("n=%d: MedianOffDiag = %v, sorted median %v", n, got, want)
		}

		const target = 0.1353352832366127 // e⁻²
		gamma := GammaForMedian(X, target)
		g, err := NewGaussianIso(gamma)
		if err != nil {
			t.Fatal(err)
		}
		if got := MedianOffDiag(g.Gram(X)); math.Abs(got-target) > 1e-14 {
			t.Fatalf("n=%d: median kernel value at GammaForMedian's γ = %v: %.17g, want %.17g", n, gamma, got, target)
		}
	}
	// Ties and degenerate inputs.
	if v := MedianOffDiag(mat.NewSymDense(1, []float64{1})); !math.IsNaN(v) {
		t.Fatalf("MedianOffDiag of 1×1 = %v, want NaN", v)
	}
	same := mat.NewDense(3, 2, []float64{1, 1, 1, 1, 1, 1})
	if g := GammaForMedian(same, 0.5); !math.IsInf(g, 1) {
		t.Fatalf("GammaForMedian of identical points = %v, want +Inf", g)
	}
	// Three coincident points and one at squared distance 4: the six pairs
	// sorted are 0, 0, 0, 4, 4, 4, so the two middle values are 0 and 4 and
	// the median kernel value is ½(1 + e^{-4γ}). Target 0.75 needs
	// e^{-4γ} = ½, γ = ln 2 / 4; a target ≤ ½ cannot be reached.
	tied := mat.NewDense(4, 2, []float64{1, 1, 1, 1, 1, 1, 3, 1})
	if g := GammaForMedian(tied, 0.75); !closeTo(g, math.Ln2/4, 1e-15) {
		t.Fatalf("GammaForMedian(tied, 0.75) = %v, want ln2/4 = %v", g, math.Ln2/4)
	}
	if g := GammaForMedian(tied, 0.5); !math.IsInf(g, 1) {
		t.Fatalf("GammaForMedian(tied, 0.5) = %v, want +Inf", g)
	}
}

// MedianOffDiag's radix selection gives the middle values a sort gives,
// with ties, negative values and both parities of the number of entries,
// and copies nothing: at n = 2,000 the entries are 16 MB, the selection's
// counts 0.5 MB.
func TestMedianOffDiagIsSorted(t *testing.T) {
	rng := rand.New(rand.NewPCG(2, 6))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(40)
		K := mat.NewSymDense(n, nil)
		var a []float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				v := float64(rng.IntN(10)) - 3 // many ties, some negative
				if trial%2 == 1 {
					v = rng.NormFloat64() * math.Exp2(float64(rng.IntN(40)-20))
				}
				K.SetSym(i, j, v)
				a = append(a, v)
			}
		}
		slices.Sort(a)
		m := len(a)
		want := (a[(m-1)/2] + a[m/2]) / 2
		if got := MedianOffDiag(K); got != want {
			t.Fatalf("trial %d (n = %d): MedianOffDiag = %v, the sorted entries' median %v", trial, n, got, want)
		}
	}
	K := mat.NewSymDense(3, nil)
	K.SetSym(0, 2, math.NaN())
	if got := MedianOffDiag(K); !math.IsNaN(got) {
		t.Errorf("MedianOffDiag with a NaN entry = %v, want NaN", got)
	}
	const n = 2000
	X := mat.NewDense(n, 3, nil)
	for i := range n {
		X.SetRow(i, []float64{rng.NormFloat64(), rng.NormFloat64(), rng.NormFloat64()})
	}
	D := SquaredDistances(X)
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	med := MedianOffDiag(D)
	runtime.ReadMemStats(&after)
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 || !(med > 0) {
		t.Errorf("MedianOffDiag at n = %d allocated %d bytes (the entries are %d), median %v", n, alloc, 8*n*(n-1)/2, med)
	}
}

func TestSelectRows(t *testing.T) {
	X := mat.NewDense(4, 3, []float64{0, 1, 2, 10, 11, 12, 20, 21, 22, 30, 31, 32})
	want := mat.NewDense(3, 3, []float64{30, 31, 32, 0, 1, 2, 30, 31, 32})
	for name, x := range map[string]mat.Matrix{"dense": X, "view": X.T().T(), "slice": X.Slice(0, 4, 0, 3)} {
		if got := SelectRows(x, []int{3, 0, 3}); !mat.Equal(got, want) {
			t.Errorf("%s: SelectRows = %v, want %v", name, mat.Formatted(got), mat.Formatted(want))
		}
		if got := SelectRows(x, nil); !got.IsEmpty() {
			t.Errorf("%s: SelectRows(nil) = %v, want empty", name, mat.Formatted(got))
		}
	}
	// A strided view: rows 1..2, columns 1..2 of X.
	if got := SelectRows(X.Slice(1, 3, 1, 3), []int{1, 0}); !mat.Equal(got, mat.NewDense(2, 2, []float64{21, 22, 11, 12})) {
		t.Errorf("strided view: SelectRows = %v", mat.Formatted(got))
	}
}
