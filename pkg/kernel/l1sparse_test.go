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

// TestL1SparseRoute checks which data take the two-valued route and that
// its entries are the kernel's: against Eval (1e-12 relative to the row's
// scale), K_ii = 0 and K_ij = K_ji exactly, and a column computed whole,
// as a prefix, through idx or read off Gram agrees to the last bit.
func TestL1SparseRoute(t *testing.T) {
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
		t.Run(tc.name, func(t *testing.T) {
			n, d := tc.X.Dims()
			k, err := NewL1(l1Theta(d))
			if err != nil {
				t.Fatal(err)
			}
			m := k.Rows(tc.X)
			sp, ok := m.(*l1SparseRows)
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
				if col[i] != 0 || sp.Diag(i) != 0 {
					t.Errorf("K_%d,%d = %g", i, i, col[i])
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
