package kernel

import (
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// Linear is the kernel k(x,z) = xᵀz. The zero value is ready to use.
type Linear struct{}

var _ Kernel = Linear{}

// Spec returns {linear}.
func (Linear) Spec() Spec { return Spec{Kind: KindLinear} }

// Eval returns xᵀz.
func (Linear) Eval(x, z []float64) float64 {
	if len(x) != len(z) {
		panic("kernel: Eval: points of different lengths")
	}
	return dot(x, z)
}

// Gram returns X Xᵀ by one tiled SYRK, both triangles filled.
func (Linear) Gram(X mat.Matrix) *mat.SymDense {
	if s, ok := X.(*sparse.CSR); ok {
		return gramCSR(Linear{}, s)
	}
	x, n, d := rowMajor(X)
	return innerGram(x, n, d, nil)
}

// Cross returns A Bᵀ.
func (Linear) Cross(A, B mat.Matrix) *mat.Dense {
	if isCSR(A) || isCSR(B) {
		return crossCSR(Linear{}, A, B)
	}
	a, m, da := rowMajor(A)
	b, n, db := rowMajor(B)
	if da != db {
		panic("kernel: Cross: A and B have different numbers of columns")
	}
	return innerCross(a, m, b, n, da, nil)
}

// Rows keeps a contiguous copy of X for column evaluation by dot products;
// compressed rows take the sparse route (csr.go). The Matrix is read-only
// and safe for concurrent use.
func (Linear) Rows(X mat.Matrix) Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return rowsCSR(Linear{}, s)
	}
	n, d := X.Dims()
	x := copyRows(X)
	diag := make([]float64, n)
	for i := range diag {
		xi := x[i*d : (i+1)*d]
		diag[i] = dot(xi, xi)
	}
	return &linearRows{x: x, n: n, d: d, diag: diag}
}

type linearRows struct {
	x    []float64
	n, d int
	diag []float64
}

func (r *linearRows) Len() int           { return r.n }
func (r *linearRows) Diag(i int) float64 { return r.diag[i] }

// EntryCost: a dot product of length d.
func (r *linearRows) EntryCost() int { return r.d }

func (r *linearRows) Column(i int, idx []int, dst []float64) {
	checkColumn(r.n, idx, dst)
	rowDots(dst, r.x, r.d, i, idx)
}
