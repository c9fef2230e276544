package kernel

import (
	"math"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// Sub returns the kernel matrix of m restricted to the rows idx (in that
// order): entry (a, b) is m's (idx[a], idx[b]). It is how a
// cross-validation fold trains on its rows of a kernel matrix computed from
// data rows without copying anything: the rows are prepared once (Rows) for
// the whole training part, and every fold, and every test row's decision,
// reads its columns through its own index list. Memory stays what the
// solver's column cache holds, not a fold's k×k Gram matrix.
//
// Like m, the result is safe for concurrent use if m is, and it is
// Splittable when m is (the same entries, computed the same way, whatever
// the index list).
func Sub(m Matrix, idx []int) Matrix {
	s := &sub{m: m, idx: idx}
	if _, ok := m.(Splittable); ok {
		return &splittableSub{s}
	}
	return s
}

type sub struct {
	m   Matrix
	idx []int
	// scratch holds []int buffers for index lists mapped through idx.
	scratch sync.Pool
}

func (s *sub) Len() int           { return len(s.idx) }
func (s *sub) Diag(i int) float64 { return s.m.Diag(s.idx[i]) }

func (s *sub) Column(i int, idx []int, dst []float64) {
	if idx == nil {
		s.m.Column(s.idx[i], s.idx[:len(dst)], dst)
		return
	}
	bp, _ := s.scratch.Get().(*[]int)
	if bp == nil || cap(*bp) < len(idx) {
		b := make([]int, len(idx), max(len(idx), len(s.idx)))
		bp = &b
	}
	mapped := (*bp)[:len(idx)]
	for k, j := range idx {
		mapped[k] = s.idx[j]
	}
	s.m.Column(s.idx[i], mapped, dst)
	s.scratch.Put(bp)
}

type splittableSub struct{ *sub }

func (s *splittableSub) EntryCost() int { return entryCost(s.m) }

// RowsAt returns k's kernel matrix of the rows idx of X, in that order:
// entry for entry the matrix k.Rows returns for a copy of those rows, but
// without the copy where the kernel reads the rows in place (the isotropic
// Gaussian's sparse route builds its compressed rows from X's rows
// directly, and compressed rows are read in place whatever the kernel that
// computes on them: csr.go). A multi-class model's binary SVMs index the
// rows of the one training matrix this way, instead of each copying its two
// classes. X is a *mat.Dense or a *sparse.CSR.
func RowsAt(k Kernel, X mat.Matrix, idx []int) Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return rowsAtCSR(k, s, idx)
	}
	dense := X.(*mat.Dense)
	_, d := X.Dims()
	if g, ok := k.(*Gaussian); ok && g.kind == gaussIso {
		g.checkDim(d)
		row := func(i int) []float64 { return dense.RawRowView(idx[i]) }
		if r := sparseGaussRowsOf(row, len(idx), d, math.Sqrt(2*g.gamma), sparseMaxCost); r != nil {
			return r
		}
	}
	rows := mat.NewDense(max(len(idx), 1), max(d, 1), nil)
	if len(idx) == 0 || d == 0 {
		rows = &mat.Dense{}
	}
	for a, i := range idx {
		rows.SetRow(a, dense.RawRowView(i))
	}
	return k.Rows(rows)
}
