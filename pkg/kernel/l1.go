package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// L1 is Boughorbel's multi-parameter kernel k_θ(x,z) = -Σ_k |x_k-z_k| / θ_k,
// θ_k > 0 (the kernel of the lccp method). It is only conditionally positive
// definite: valid inside an SVM dual with the constraint yᵀα = 0, and made
// positive semidefinite by Centred. An L1 is immutable and safe for
// concurrent use.
//
// There is no BLAS form of an L1 distance, so its Gram matrix costs O(n²d)
// scalar work; it runs as tight loops over contiguous rows of X/θ, tiled over
// all cores.
type L1 struct {
	theta []float64
	inv   []float64 // 1/θ_k
}

var _ Kernel = (*L1)(nil)

// NewL1 returns the L1 kernel with widths θ (copied), each finite and > 0.
func NewL1(theta []float64) (*L1, error) {
	if len(theta) == 0 {
		return nil, fmt.Errorf("build L1 kernel: no widths theta")
	}
	k := &L1{theta: append([]float64(nil), theta...), inv: make([]float64, len(theta))}
	for i, v := range theta {
		if math.IsNaN(v) || math.IsInf(v, 0) || v <= 0 {
			return nil, fmt.Errorf("build L1 kernel: theta[%d] = %v must be finite and positive", i, v)
		}
		k.inv[i] = 1 / v
	}
	return k, nil
}

// Theta returns a copy of θ.
func (k *L1) Theta() []float64 { return append([]float64(nil), k.theta...) }

// Dim returns the input dimension d = len(θ).
func (k *L1) Dim() int { return len(k.theta) }

// Spec returns {l1, theta}.
func (k *L1) Spec() Spec { return Spec{Kind: KindL1, Theta: k.Theta()} }

func (k *L1) checkDim(d int) {
	if d != len(k.theta) {
		panic(fmt.Sprintf("kernel: L1 kernel of dimension %d given points of dimension %d", len(k.theta), d))
	}
}

// Eval returns -Σ_k |x_k-z_k| / θ_k.
func (k *L1) Eval(x, z []float64) float64 {
	if len(x) != len(z) {
		panic("kernel: Eval: points of different lengths")
	}
	k.checkDim(len(x))
	var s float64
	for i, v := range x {
		s += math.Abs(v-z[i]) * k.inv[i]
	}
	return -s
}

// scaled returns the rows of X divided by θ, n×d row-major.
func (k *L1) scaled(X mat.Matrix) ([]float64, int) {
	x, n, d := rowMajor(X)
	k.checkDim(d)
	out := make([]float64, n*d)
	for i := 0; i < n; i++ {
		src, dst := x[i*d:(i+1)*d], out[i*d:(i+1)*d]
		for j, v := range src {
			dst[j] = v * k.inv[j]
		}
	}
	return out, n
}

// l1Row sets dst[k] = -l1dist(xi, xs[j*d:(j+1)*d]) for j = idx[k], or
// j = j0+k when idx is nil: on amd64 with AVX2 in assembly (l1_amd64.s,
// l1dist's four sums as the lanes of one register, the same additions in
// the same order, so the same bits: TestL1RowAgrees).
func l1Row(dst, xi, xs []float64, d, j0 int, idx []int) {
	if len(dst) == 0 {
		return
	}
	if useAVX2 && d > 0 {
		xi = xi[:d]
		if idx == nil {
			base := xs[j0*d : (j0+len(dst))*d]
			l1RowAVX2(&dst[0], &xi[0], &base[0], d, nil, len(dst))
			return
		}
		idx = idx[:len(dst)]
		rows := len(xs) / d
		for _, j := range idx {
			if uint(j) >= uint(rows) {
				panic("kernel: L1 column: index out of range")
			}
		}
		l1RowAVX2(&dst[0], &xi[0], &xs[0], d, &idx[0], len(dst))
		return
	}
	if idx == nil {
		for k := range dst {
			j := j0 + k
			dst[k] = -l1dist(xi, xs[j*d:(j+1)*d])
		}
		return
	}
	for k, j := range idx[:len(dst)] {
		dst[k] = -l1dist(xi, xs[j*d:(j+1)*d])
	}
}

// l1dist returns Σ_k |a_k - b_k| for equal-length slices.
func l1dist(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	j := 0
	for ; j+4 <= len(a); j += 4 {
		s0 += math.Abs(a[j] - b[j])
		s1 += math.Abs(a[j+1] - b[j+1])
		s2 += math.Abs(a[j+2] - b[j+2])
		s3 += math.Abs(a[j+3] - b[j+3])
	}
	for ; j < len(a); j++ {
		s0 += math.Abs(a[j] - b[j])
	}
	return (s0 + s1) + (s2 + s3)
}

// Gram returns K_ij = -Σ_k |x_ik-x_jk|/θ_k (K_ii = 0), both triangles filled.
func (k *L1) Gram(X mat.Matrix) *mat.SymDense {
	if s, ok := X.(*sparse.CSR); ok {
		_, d := s.Dims()
		panic(&SparseError{Kind: KindL1, Features: d})
	}
	x, n, d := rowMajor(X)
	k.checkDim(d)
	if r := k.sparseRows(x, n, d); r != nil {
		return r.gram()
	}
	xs, n := k.scaled(X)
	if n == 0 {
		return &mat.SymDense{}
	}
	c := make([]float64, n*n)
	ts := upperTiles(n)
	parallelFor(len(ts), workers(n*n/2*max(1, d/8)), func(t int) {
		tl := ts[t]
		for i := tl.i0; i < tl.i1; i++ {
			if j0 := max(tl.j0, i+1); j0 < tl.j1 {
				l1Row(c[i*n+j0:i*n+tl.j1], xs[i*d:(i+1)*d], xs, d, j0, nil)
			}
		}
		mirrorTile(c, n, tl)
	})
	return mat.NewSymDense(n, c)
}

// Cross returns k(a_i, b_j).
func (k *L1) Cross(A, B mat.Matrix) *mat.Dense {
	if isCSR(A) || isCSR(B) {
		_, d := A.Dims()
		panic(&SparseError{Kind: KindL1, Features: d})
	}
	as, m := k.scaled(A)
	bs, n := k.scaled(B)
	d := len(k.theta)
	if m == 0 || n == 0 {
		return &mat.Dense{}
	}
	c := make([]float64, m*n)
	ts := rectTiles(m, n)
	parallelFor(len(ts), workers(m*n*max(1, d/8)), func(t int) {
		tl := ts[t]
		for i := tl.i0; i < tl.i1; i++ {
			l1Row(c[i*n+tl.j0:i*n+tl.j1], as[i*d:(i+1)*d], bs, d, tl.j0, nil)
		}
	})
	return mat.NewDense(m, n, c)
}

// Rows prepares X/θ for column evaluation. The Matrix is read-only and safe
// for concurrent use.
func (k *L1) Rows(X mat.Matrix) Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		_, d := s.Dims()
		panic(&SparseError{Kind: KindL1, Features: d})
	}
	x, n, d := rowMajor(X)
	k.checkDim(d)
	if r := k.sparseRows(x, n, d); r != nil {
		return r
	}
	xs, n := k.scaled(X)
	return &l1Rows{xs: xs, n: n, d: len(k.theta)}
}

type l1Rows struct {
	xs   []float64 // X/θ, n×d
	n, d int
}

func (r *l1Rows) Len() int { return r.n }

// EntryCost: d absolute differences and additions.
func (r *l1Rows) EntryCost() int { return 2 * r.d }
func (r *l1Rows) Diag(i int) float64 {
	if i < 0 || i >= r.n {
		panic("kernel: Diag: index out of range")
	}
	return 0
}

func (r *l1Rows) Column(i int, idx []int, dst []float64) {
	d := r.d
	xi := r.xs[i*d : (i+1)*d]
	checkColumn(r.n, idx, dst)
	if idx == nil {
		l1Row(dst, xi, r.xs, d, 0, nil)
		return
	}
	l1Row(dst[:len(idx)], xi, r.xs, d, 0, idx)
}
