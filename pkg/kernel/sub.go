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
	return RowsAtIn(k, X, idx, nil)
}

// RowsAtIn is RowsAt building the compressed rows and columns of the
// sparse route (csr.go, sparse.go) into the arrays of ws, which it grows
// as needed, instead of new ones; nil ws allocates them, as RowsAt. The
// entries are the same bits either way. The matrix RowsAtIn returned
// before with the same ws is overwritten: it must no longer be in use.
// A multi-class model's binary SVMs solved one after another on a core
// build each its matrix this way, so that the pairs' compressed rows are
// held once per core, not made afresh per pair (on ten classes of 778
// features, 45 pairs of 2,000 rows, 284 MB of the fit's 406 MB allocated).
func RowsAtIn(k Kernel, X mat.Matrix, idx []int, ws *RowsWorkspace) Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return rowsAtCSR(k, s, idx, ws)
	}
	dense := X.(*mat.Dense)
	_, d := X.Dims()
	if g, ok := k.(*Gaussian); ok && g.kind == gaussIso {
		g.checkDim(d)
		row := func(i int) []float64 { return dense.RawRowView(idx[i]) }
		if r := sparseGaussRowsOf(row, len(idx), d, math.Sqrt(2*g.gamma), sparseMaxCost, ws); r != nil {
			return r
		}
		if len(idx) > 0 && d > 0 {
			return g.denseRowsAt(dense, idx, d, ws)
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

// denseRowsAt is Gaussian.Rows of the rows idx of X where the sparse route
// does not pay (an isotropic Gaussian): the column means and the mapped
// rows computed from X's rows in place, in the order a copy of them would
// give (the same sums, so the same bits), into ws's arrays, where a copy of
// the rows and a mapped copy were made for each pair of a multi-class fit
// (on letter's 325 pairs, 94 of the 371 MB train allocated).
func (g *Gaussian) denseRowsAt(X *mat.Dense, idx []int, d int, ws *RowsWorkspace) *gaussRows {
	if ws == nil {
		ws = new(RowsWorkspace)
	}
	n := len(idx)
	mu := grow(&ws.mu, d)
	for _, i := range idx {
		for k, v := range X.RawRowView(i)[:d] {
			mu[k] += v
		}
	}
	for k := range mu {
		mu[k] /= float64(n)
	}
	s := math.Sqrt(2 * g.gamma)
	xt := grow(&ws.xt, n*d)
	for a, i := range idx {
		dst := xt[a*d : (a+1)*d]
		for k, v := range X.RawRowView(i)[:d] {
			dst[k] = (v - mu[k]) * s
		}
	}
	h := grow(&ws.h, n)
	for a := range h {
		var sq float64
		for _, v := range xt[a*d : (a+1)*d] {
			sq += v * v
		}
		h[a] = sq / 2
	}
	return &gaussRows{xt: xt, n: n, p: d, h: h}
}

// RowsWorkspace holds the arrays of the sparse route's compressed rows and
// columns that RowsAtIn built last, for its next call to build into. It is
// not safe for concurrent use: give each goroutine its own. The zero value
// is ready to use.
type RowsWorkspace struct {
	rowPtr, colPtr []int
	rowIdx, colRow []int32
	rowVal, colVal []float64
	h              []float64
	colConst       []float64 // the columns' constant values (noteConstColumns)
	bits           []uint64  // the rows' bitsets (noteBits)
	hCls           []uint16  // the rows' classes of h (noteBits)
	count          []int     // a column's non-zeros, or its vote (columnBasesIn)
	sum            []float64 // a column's sum (sparseRowsShiftedOf)
	base           []float64 // the columns' bases (columnBasesIn)
	scale          []float64 // a diagonal metric's column scales (csrScale)
	mu, xt         []float64 // the dense route's column means and mapped rows (denseRowsAt)
}

// grow returns b[:n] zeroed, or a new slice when b is too short, with
// room for a quarter more (the next pair may be a little larger: without
// it, 45 pairs of 2,000 rows of about 244,000 entries each regrew their
// arrays about every other pair).
func grow[E any](b *[]E, n int) []E {
	if cap(*b) < n {
		*b = make([]E, n, n+n/4)
	}
	*b = (*b)[:n]
	clear(*b)
	return *b
}

// growInt32s is grow without the clearing: its callers write every entry.
func growInt32s(b *[]int32, n int) []int32 {
	if cap(*b) < n {
		*b = make([]int32, n, n+n/4)
	}
	*b = (*b)[:n]
	return *b
}

// counts returns d zeroed counters, from ws when not nil.
func (ws *RowsWorkspace) counts(d int) []int {
	if ws == nil {
		return make([]int, d)
	}
	return grow(&ws.count, d)
}

// sums returns d zeroed sums, from ws when not nil.
func (ws *RowsWorkspace) sums(d int) []float64 {
	if ws == nil {
		return make([]float64, d)
	}
	return grow(&ws.sum, d)
}

// bases returns d zeroed bases, from ws when not nil.
func (ws *RowsWorkspace) bases(d int) []float64 {
	if ws == nil {
		return make([]float64, d)
	}
	return grow(&ws.base, d)
}

// scales returns d zeroed column scales, from ws when not nil.
func (ws *RowsWorkspace) scales(d int) []float64 {
	if ws == nil {
		return make([]float64, d)
	}
	return grow(&ws.scale, d)
}

// rows returns a sparse route of n rows, d features and nnz entries with
// its arrays zeroed (rowPtr, colPtr, h) or of the right length to be
// written whole (the entries), from ws when not nil. Without withRows it
// has compressed columns only (rowPtr, rowIdx and rowVal nil: the route
// reads its rows in place, csrRows).
func (ws *RowsWorkspace) rows(n, d, nnz int, withRows bool) *sparseRows {
	r := &sparseRows{n: n, d: d}
	if !withRows {
		if ws == nil {
			r.colPtr, r.colRow, r.colVal = make([]int, d+1), make([]int32, nnz), make([]float64, nnz)
			r.h = make([]float64, n)
			return r
		}
		r.colPtr, r.colRow = grow(&ws.colPtr, d+1), growInt32s(&ws.colRow, nnz)
		if cap(ws.colVal) < nnz {
			ws.colVal = make([]float64, nnz, nnz+nnz/4)
		}
		ws.colVal = ws.colVal[:nnz]
		r.colVal = ws.colVal
		r.h = grow(&ws.h, n)
		return r
	}
	if ws == nil {
		r.rowPtr, r.colPtr = make([]int, n+1), make([]int, d+1)
		r.rowIdx, r.colRow = make([]int32, nnz), make([]int32, nnz)
		r.rowVal, r.colVal = make([]float64, nnz), make([]float64, nnz)
		r.h = make([]float64, n)
		return r
	}
	r.rowPtr, r.colPtr = grow(&ws.rowPtr, n+1), grow(&ws.colPtr, d+1)
	r.rowIdx, r.colRow = growInt32s(&ws.rowIdx, nnz), growInt32s(&ws.colRow, nnz)
	if cap(ws.rowVal) < nnz {
		ws.rowVal = make([]float64, nnz, nnz+nnz/4)
	}
	if cap(ws.colVal) < nnz {
		ws.colVal = make([]float64, nnz, nnz+nnz/4)
	}
	ws.rowVal, ws.colVal = ws.rowVal[:nnz], ws.colVal[:nnz]
	r.rowVal, r.colVal = ws.rowVal, ws.colVal
	r.h = grow(&ws.h, n)
	return r
}
