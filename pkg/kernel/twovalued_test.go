package kernel

import (
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// l1Mixed is a1a-like binary rows, z-scored-like (each binary feature
// shifted and scaled, so that neither value is 0), with nDense extra
// features of many values.
func l1Mixed(n, d, nDense int, seed uint64) *mat.Dense {
	rng := rand.New(rand.NewPCG(seed, 3))
	B := randSparse(rng, n, d, 0.11, true)
	X := mat.NewDense(n, d+nDense, nil)
	for i := 0; i < n; i++ {
		for k := 0; k < d; k++ {
			X.Set(i, k, (B.At(i, k)-0.1)*(1+float64(k%3)))
		}
		for k := d; k < d+nDense; k++ {
			X.Set(i, k, rng.NormFloat64())
		}
	}
	return X
}

func l1Theta(d int) []float64 {
	theta := make([]float64, d)
	for k := range theta {
		theta[k] = 0.3 + float64(k%7)*0.45
	}
	return theta
}

// TestTwoValuedRoute checks which data take the two-valued route, for the
// L1 kernel and a diagonal Gaussian (with a switched-off feature), and that
// its entries are the kernel's: against Eval (1e-12 relative), K_ii exact
// (0, 1) and K_ij = K_ji exactly, and a column computed whole, as a prefix,
// through idx or read off Gram agrees to the last bit.
func TestTwoValuedRoute(t *testing.T) {
	type kern interface {
		Kernel
		Rows(mat.Matrix) Matrix
		Gram(mat.Matrix) *mat.SymDense
	}
	for _, tc := range []struct {
		name   string
		X      *mat.Dense
		sparse bool
	}{
		{"binary", l1Mixed(300, 60, 0, 1), true},
		{"binary+2 dense", l1Mixed(300, 60, 2, 2), true},
		{"binary+40 dense", l1Mixed(300, 20, 40, 3), false},
		{"dense", mat.NewDense(50, 3, func() []float64 {
			v := make([]float64, 150)
			for i := range v {
				v[i] = float64(i%17) / 3
			}
			return v
		}()), false},
	} {
		n, d := tc.X.Dims()
		l1, err := NewL1(l1Theta(d))
		if err != nil {
			t.Fatal(err)
		}
		q := l1Theta(d)
		for k := range q {
			q[k] = 0.02 * q[k]
		}
		q[1] = 0
		g, err := NewGaussianDiag(q)
		if err != nil {
			t.Fatal(err)
		}
		for _, kc := range []struct {
			name string
			k    kern
			diag float64
		}{{"l1", l1, 0}, {"gauss-diag", g, 1}} {
			t.Run(tc.name+"/"+kc.name, func(t *testing.T) {
				k := kc.k
				m := k.Rows(tc.X)
				sp, ok := m.(*twoValued)
				if ok != tc.sparse {
					t.Fatalf("route %T, want two-valued %v", m, tc.sparse)
				}
				if !ok {
					return
				}
				G := k.Gram(tc.X)
				col := make([]float64, n)
				pre := make([]float64, n/2)
				idx := []int{n - 1, 3, n / 2, 0, 7}
				part := make([]float64, len(idx))
				for _, i := range []int{0, 1, n / 3, n - 1} {
					sp.Column(i, nil, col)
					sp.Column(i, nil, pre)
					sp.Column(i, idx, part)
					if col[i] != kc.diag || sp.Diag(i) != kc.diag {
						t.Errorf("K_%d,%d = %g, Diag %g, want %g", i, i, col[i], sp.Diag(i), kc.diag)
					}
					for j := range n {
						want := k.Eval(tc.X.RawRowView(i), tc.X.RawRowView(j))
						if math.Abs(col[j]-want) > 1e-12*(1+math.Abs(want)) {
							t.Errorf("K_%d,%d = %.17g, Eval %.17g", i, j, col[j], want)
						}
						if G.At(i, j) != col[j] || G.At(j, i) != col[j] {
							t.Errorf("Gram_%d,%d = %.17g, column %.17g", i, j, G.At(i, j), col[j])
						}
						if j < len(pre) && pre[j] != col[j] {
							t.Errorf("prefix K_%d,%d = %.17g, whole %.17g", i, j, pre[j], col[j])
						}
					}
					for q, j := range idx {
						if part[q] != col[j] {
							t.Errorf("idx K_%d,%d = %.17g, whole %.17g", i, j, part[q], col[j])
						}
					}
					other := make([]float64, n)
					sp.Column(n/2, nil, other)
					if other[i] != col[n/2] {
						t.Errorf("K_%d,%d = %.17g, K_%d,%d = %.17g", n/2, i, other[i], i, n/2, col[n/2])
					}
				}
			})
		}
	}
}

// BenchmarkL1SparseColumn times one whole column of the L1 kernel on
// a1a-like one-hot rows (123 features, 11% set, shifted as a z-score
// leaves them): the dense route against the two-valued one.
func BenchmarkL1SparseColumn(b *testing.B) {
	for _, n := range []int{1605, 5000} {
		X := l1Mixed(n, 123, 0, 1)
		k, _ := NewL1(l1Theta(123))
		x, _, d := rowMajor(X)
		xs, _ := k.scaled(X)
		routes := map[string]Matrix{"dense": &l1Rows{xs: xs, n: n, d: d}, "two-valued": k.sparseRows(x, n, d)}
		for _, name := range []string{"dense", "two-valued"} {
			m := routes[name]
			b.Run(fmt.Sprintf("%s/n=%d", name, n), func(b *testing.B) {
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

// BenchmarkTwoValuedGram times a whole Gram matrix of a diagonal Gaussian
// (spd's line search computes one per trial step) on a1a-like one-hot rows:
// the dense route (SYRK and exp pass) against the two-valued one.
func BenchmarkTwoValuedGram(b *testing.B) {
	for _, n := range []int{1284, 2548} {
		X := l1Mixed(n, 123, 0, 1)
		q := l1Theta(123)
		for k := range q {
			q[k] *= 0.01
		}
		g, _ := NewGaussianDiag(q)
		b.Run(fmt.Sprintf("dense/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				x, n, d := rowMajor(X)
				xt, p := g.transform(x, n, d, colMeans(x, n, d))
				h := rowNorms2Half(xt, n, p)
				innerGram(xt, n, p, expFinish(h, h, true))
			}
		})
		b.Run(fmt.Sprintf("two-valued/n=%d", n), func(b *testing.B) {
			for b.Loop() {
				g.Gram(X)
			}
		})
	}
}

// TestTwoValuedGradDiag checks GaussianGradDiag's two-valued route against
// the dense route (laplacianTimes, itself checked by finite differences in
// grad_test.go) on one-hot-like rows with and without many-valued features,
// for a weight matrix C of both signs stored in the upper triangle only (as
// spd's weights are).
func TestTwoValuedGradDiag(t *testing.T) {
	for _, tc := range []struct {
		name string
		X    *mat.Dense
	}{{"binary", l1Mixed(200, 50, 0, 4)}, {"binary+2 dense", l1Mixed(200, 50, 2, 5)}} {
		n, d := tc.X.Dims()
		q := l1Theta(d)
		for k := range q {
			q[k] *= 0.05
		}
		g, _ := NewGaussianDiag(q)
		K := g.Gram(tc.X)
		rng := rand.New(rand.NewPCG(9, 9))
		C := mat.NewSymDense(n, nil)
		raw := C.RawSymmetric()
		for i := 0; i < n; i++ {
			for j := i; j < n; j++ {
				raw.Data[i*raw.Stride+j] = rng.NormFloat64()
			}
		}
		got := make([]float64, d)
		GaussianGradDiag(got, tc.X, K, C)
		x, _, _ := rowMajor(tc.X)
		ones := make([]float64, d)
		for k := range ones {
			ones[k] = 1
		}
		if newTwoValued(x, n, d, ones, true, gaussTwoValuedMaxCost) == nil {
			t.Fatalf("%s: not the two-valued route", tc.name)
		}
		xc, m, _, _ := laplacianTimes(tc.X, K, C)
		for k := 0; k < d; k++ {
			var want, scale float64
			for i := 0; i < n; i++ {
				want -= xc[i*d+k] * m[i*d+k]
				scale += math.Abs(xc[i*d+k] * m[i*d+k])
			}
			if math.Abs(got[k]-want) > 1e-11*(1+scale) {
				t.Errorf("%s: ∂F/∂q_%d = %.15g, dense route %.15g", tc.name, k, got[k], want)
			}
		}
	}
}

// TestGramIntoReuses: a diagonal Gaussian's Gram on the two-valued route,
// written into a used matrix of the right size (every entry garbage), is
// that matrix, holding Gram's values to the last bit; a matrix of another
// size, or nil, gives a new one.
func TestGramIntoReuses(t *testing.T) {
	X := l1Mixed(300, 60, 2, 5)
	q := make([]float64, 62)
	for k := range q {
		q[k] = 0.02 * float64(1+k%5)
	}
	g, err := NewGaussianDiag(q)
	if err != nil {
		t.Fatal(err)
	}
	want := g.Gram(X)
	used := mat.NewSymDense(300, nil)
	raw := used.RawSymmetric()
	for i := range raw.Data {
		raw.Data[i] = float64(i%13) - 6.5
	}
	got := g.GramInto(X, used)
	if got != used {
		t.Fatal("GramInto did not write into the given 300×300 matrix")
	}
	for i := range 300 {
		for j := range 300 {
			if math.Float64bits(got.At(i, j)) != math.Float64bits(want.At(i, j)) || math.Float64bits(raw.Data[i*300+j]) != math.Float64bits(want.RawSymmetric().Data[i*300+j]) {
				t.Fatalf("entry (%d, %d): %.17g (stored %.17g), Gram %.17g", i, j, got.At(i, j), raw.Data[i*300+j], want.At(i, j))
			}
		}
	}
	if other := mat.NewSymDense(299, nil); g.GramInto(X, other) == other {
		t.Error("GramInto wrote a 300-row Gram into a 299×299 matrix")
	}
}
