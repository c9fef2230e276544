package kernel

import (
	"fmt"
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// This file holds the sparse route of an isotropic Gaussian's columns. On
// sparse data (LIBSVM's a1a: 14 of 123 features set per row) a dense dot
// product spends almost all its work on zeros. There the rows are kept as
// compressed rows (CSR) and compressed columns (CSC), not centred, and a
// column K(i, ·) is computed by scattering x_i's nonzeros down the CSC: a
// column costs Σ_{k ∈ nz(x_i)} nnz(feature k) multiply-adds instead of n·d.
//
// The rows are stored shifted by each column's majority value (columnBases:
// 0 for LIBSVM's sparse files, the shifted zero of a z-scored one-hot
// feature), not centred: centring, which the dense route uses against
// cancellation on data far from the origin, would make the rows dense. The
// shifted rows being mostly zeros, ½‖x‖² is of the order of the distances
// (LIBSVM computes the kernel the same way, from its sparse rows), and
// sparseMaxOffset refuses the data where it is not.
//
// Every entry is the sum, in ascending feature order and starting from 0,
// of the products of the two rows' common nonzeros, whichever form of
// Column asks for it; so a column computed whole, as a prefix or in parts
// through idx agrees to the last bit (Splittable's promise).

// sparseMaxOffset bounds ‖μ‖² / tr Σ for the rows as stored (less each
// column's base): the squared distance of their mean from the origin
// against their total variance (a1a: 0.80).
const sparseMaxOffset = 8

// sparseMaxCost is the largest ratio of the scatter route's work to the
// dense route's n·d multiply-adds for which the sparse route is taken. A
// scatter step (load an index, read-modify-write an entry) costs several
// SIMD multiply-adds of gonum's dot product. BenchmarkSparseColumn, one
// whole column at n = 2000 (µs, dense / sparse): ratio 0.005 (d = 300)
// 107 / 13; 0.036 (a1a-like, d = 123, n = 1605) 47 / 11; 0.12 32 / 15;
// 0.20 30 / 19; 0.28 30 / 26; 0.39 28 / 28. So the route is taken up to a
// ratio of 1/4, where it still gains 15%.
const sparseMaxCost = 0.25

// sparseRows is an isotropic Gaussian kernel matrix on sparse rows.
type sparseRows struct {
	n, d int
	// CSR of X̃ = √(2γ) X: row i's features rowIdx[rowPtr[i]:rowPtr[i+1]]
	// (ascending) with values rowVal[…].
	rowPtr []int
	rowIdx []int32
	rowVal []float64
	// CSC of X̃: feature k's rows colRow[colPtr[k]:colPtr[k+1]] (ascending)
	// with values colVal[…].
	colPtr []int
	colRow []int32
	colVal []float64
	// colConst[k] is the value every entry of compressed column k holds
	// when they all hold the same (binary and one-hot features: every
	// stored entry of LIBSVM's a1a and w8a is ±√(2γ)), NaN when they
	// differ (a stored value is never NaN: the data are finite). The
	// scatter then adds one product, v·colConst[k], and reads the rows
	// only (scatterColumn). Set by noteConstColumns.
	colConst []float64
	// bits, when set, holds each row's route columns as a bitset of
	// words words, dots[m] the dot product of two rows sharing m of them,
	// and hVals, hCls each row's h as one of few values (hVals nil: too
	// many): the bitset route of Column for rows whose stored entries all
	// have one square (bits.go, noteBits).
	bits  []uint64
	words int
	dots  []float64
	hVals []float64
	hCls  []uint16
	// colOf numbers the features set when the rows are far wider than
	// their non-zeros (compressed rows only, wideCSR): feature k is column
	// colOf[k] of the CSC, and rowIdx holds those columns. nil: column k
	// is feature k.
	colOf map[int32]int32
	h     []float64 // ½‖x̃_i‖²
	cost  int       // EntryCost
	base  []float64 // the columns' shifts (columnBases); nil on compressed rows (csr.go)
	s     float64   // the scale √(2γ) (1 for the linear kernel)
	// scale is a diagonal metric's per-feature scale √q_k, used instead of
	// s when set (compressed rows only, csr.go).
	scale []float64
	// linear says the entries are the dot products themselves (the linear
	// kernel on compressed rows), not a Gaussian's exp.
	linear bool
	// src, when set, holds the rows in place of rowPtr, rowIdx and rowVal
	// (nil then): row i is row srcIdx[i] of src (row i when srcIdx is
	// nil), its values scaled as they are read (csrRows, scatterSrc).
	src    *sparse.CSR
	srcIdx []int
	// scratch holds []float64 buffers for the columns asked through idx.
	scratch sync.Pool
}

// sparseGaussRows returns the sparse route for the n×d row-major x scaled by
// s = √(2γ), or nil when x is not sparse enough for it to pay
// (sparseMaxCost) or, less each column's base (columnBases), too far from
// the origin for rows that are not centred (sparseMaxOffset). Row indices
// are int32.
func sparseGaussRows(x []float64, n, d int, s float64) *sparseRows {
	return sparseGaussRowsCost(x, n, d, s, sparseMaxCost)
}

// sparseGaussRowsCost is sparseGaussRows with the ratio bound maxCost.
func sparseGaussRowsCost(x []float64, n, d int, s, maxCost float64) *sparseRows {
	return sparseGaussRowsOf(contiguousRows(x, d), n, d, s, maxCost, nil)
}

// sparseGaussRowsOf is sparseGaussRowsCost on the rows row(i), 0 ≤ i < n.
// Its arrays come from ws when ws is not nil (RowsAtIn).
func sparseGaussRowsOf(row func(i int) []float64, n, d int, s, maxCost float64, ws *RowsWorkspace) *sparseRows {
	if n < 2 || d < 2 || n > math.MaxInt32 {
		return nil
	}
	return sparseRowsShiftedOf(row, n, d, s, columnBasesIn(row, n, d, ws), maxCost, ws)
}

// sparseRowsShifted builds the route on the rows x - base.
func sparseRowsShifted(x []float64, n, d int, s float64, base []float64, maxCost float64) *sparseRows {
	return sparseRowsShiftedOf(contiguousRows(x, d), n, d, s, base, maxCost, nil)
}

// sparseRowsShiftedOf is sparseRowsShifted on the rows row(i), 0 ≤ i < n,
// read in place (RowsAt: a subset of a matrix's rows, not copied), its
// arrays from ws when ws is not nil (RowsAtIn).
func sparseRowsShiftedOf(row func(i int) []float64, n, d int, s float64, base []float64, maxCost float64, ws *RowsWorkspace) *sparseRows {
	colNNZ := ws.counts(d)
	sum := ws.sums(d)
	var sumSq float64
	nnz := 0
	for i := 0; i < n; i++ {
		for k, v := range row(i) {
			if v != base[k] {
				v -= base[k]
				colNNZ[k]++
				nnz++
				sum[k] += v
				sumSq += v * v
			}
		}
	}
	// Cancellation: the stored rows' ½‖x‖² average ½(‖μ‖² + tr Σ)
	// against the centred rows' ½ tr Σ; refuse data whose mean is far from
	// the origin (more than about one decimal digit lost against the dense
	// route's centring).
	var mu2 float64
	for _, v := range sum {
		mu2 += (v / float64(n)) * (v / float64(n))
	}
	if mu2 > sparseMaxOffset*(sumSq/float64(n)-mu2) {
		return nil
	}
	// The scatter work of column i is Σ_{k ∈ nz(x_i)} nnz_k; summed over
	// all i it is Σ_k nnz_k², against n²·d for the dense route.
	var work float64
	for _, c := range colNNZ {
		work += float64(c) * float64(c)
	}
	if work > maxCost*float64(n)*float64(n)*float64(d) {
		return nil
	}
	r := ws.rows(n, d, nnz, true)
	r.cost = int(work/float64(n)/float64(n)) + 16
	r.base, r.s = base, s
	for k, c := range colNNZ {
		r.colPtr[k+1] = r.colPtr[k] + c
	}
	next := colNNZ // reused as the next free place of each column
	copy(next, r.colPtr[:d])
	p := 0
	for i := 0; i < n; i++ {
		var hh float64
		for k, v := range row(i) {
			if v == base[k] {
				continue
			}
			v = (v - base[k]) * s
			r.put(p, i, int32(k), v, next)
			p++
			hh += v * v
		}
		r.rowPtr[i+1] = p
		r.h[i] = hh / 2
	}
	r.noteConstColumns(ws)
	r.noteBits(ws)
	return r
}

// constOf is colConst[k], or NaN when the columns were not checked.
func (r *sparseRows) constOf(k int32) float64 {
	if r.colConst == nil {
		return math.NaN()
	}
	return r.colConst[k]
}

// noteConstColumns sets colConst from the compressed columns, its array
// from ws when not nil; nil when the columns hold fewer than
// constMinColumn entries on average (hashed features: the check would
// cost more memory than it saves work).
func (r *sparseRows) noteConstColumns(ws *RowsWorkspace) {
	nc := len(r.colPtr) - 1
	if nc <= 0 || len(r.colRow) < constMinColumn*nc {
		r.colConst = nil
		return
	}
	if ws != nil {
		r.colConst = grow(&ws.colConst, nc)
	} else {
		r.colConst = make([]float64, nc)
	}
	for k := range nc {
		vals := r.colVal[r.colPtr[k]:r.colPtr[k+1]]
		c := math.NaN()
		if len(vals) > 0 && allEqual(vals[1:], vals[0]) {
			c = vals[0]
		}
		r.colConst[k] = c
	}
}

// allEqual reports whether every entry of s is c.
func allEqual(s []float64, c float64) bool {
	for _, v := range s {
		if v != c {
			return false
		}
	}
	return true
}

// constMinColumn is the average column length from which noteConstColumns
// notes the constant columns.
const constMinColumn = 16

// put stores v, row i's entry at feature k, as the p-th entry of the CSR
// and the next free entry of column k's CSC (next[k], advanced).
func (r *sparseRows) put(p, i int, k int32, v float64, next []int) {
	r.rowIdx[p], r.rowVal[p] = k, v
	c := next[k]
	r.colRow[c], r.colVal[c] = int32(i), v
	next[k]++
}

// columnBases returns, for each column of the n×d row-major x, its
// majority value when it has one (Boyer–Moore's vote; otherwise some value
// of the column). The kernel depends only on differences, so the sparse
// route stores x_ik - base_k: one-hot features stay sparse after a z-score
// or a [-1, 1] scaling moved their zeros (train's default normalisation),
// and a feature set in most rows is stored by its few unset rows.
func columnBases(x []float64, n, d int) []float64 {
	return columnBasesOf(contiguousRows(x, d), n, d)
}

// columnBasesOf is columnBases on the rows row(i), 0 ≤ i < n.
func columnBasesOf(row func(i int) []float64, n, d int) []float64 {
	return columnBasesIn(row, n, d, nil)
}

// columnBasesIn is columnBasesOf with its arrays from ws when ws is not nil.
func columnBasesIn(row func(i int) []float64, n, d int, ws *RowsWorkspace) []float64 {
	base := ws.bases(d)
	count := ws.counts(d)
	for i := 0; i < n; i++ {
		for k, v := range row(i) {
			switch {
			case v == base[k]:
				count[k]++
			case count[k] == 0:
				base[k], count[k] = v, 1
			default:
				count[k]--
			}
		}
	}
	return base
}

// contiguousRows reads the rows of the row-major x of d columns.
func contiguousRows(x []float64, d int) func(i int) []float64 {
	return func(i int) []float64 { return x[i*d : (i+1)*d] }
}

func (r *sparseRows) Len() int { return r.n }
func (r *sparseRows) Diag(i int) float64 {
	if r.linear {
		return 2 * r.h[i] // ‖x_i‖², as Column sums it
	}
	_ = r.h[i]
	return 1
}

// EntryCost: the average scatter work per entry, and the exp.
func (r *sparseRows) EntryCost() int { return r.cost }

// Column computes K(i, ·) by scattering row i's nonzeros over the rows
// asked for (a prefix, or the range spanned by idx), then the exp pass.
func (r *sparseRows) Column(i int, idx []int, dst []float64) {
	checkColumn(r.n, idx, dst)
	if r.bits != nil {
		r.bitsColumn(i, idx, dst)
		return
	}
	if idx == nil {
		clear(dst)
		r.scatter(i, 0, dst)
	} else if len(idx) > 0 {
		lo, top := idx[0], idx[0]
		for _, j := range idx {
			lo, top = min(lo, j), max(top, j)
		}
		buf := r.buffer(top - lo + 1)
		r.scatter(i, lo, *buf)
		for k, j := range idx {
			dst[k] = (*buf)[j-lo]
		}
		r.scratch.Put(buf)
	}
	if !r.linear {
		gaussColumn(i, idx, dst, r.h)
	}
}

// buffer returns a zeroed scratch buffer of length m.
func (r *sparseRows) buffer(m int) *[]float64 { return zeroedBuffer(&r.scratch, m, r.n) }

// zeroedBuffer returns a zeroed buffer of length m from pool (the sparse
// and the two-valued routes' scratch for columns asked through idx), made
// with room for n when the pool has none large enough.
func zeroedBuffer(pool *sync.Pool, m, n int) *[]float64 {
	b, _ := pool.Get().(*[]float64)
	if b == nil || cap(*b) < m {
		s := make([]float64, m, max(m, n))
		return &s
	}
	*b = (*b)[:m]
	clear(*b)
	return b
}

// scatter adds x̃_i·x̃_j to dst[j-lo] for the rows lo ≤ j < lo+len(dst), in
// ascending feature order.
func (r *sparseRows) scatter(i, lo int, dst []float64) {
	if r.src != nil {
		r.scatterSrc(i, lo, dst)
		return
	}
	end := int32(lo + len(dst))
	for p := r.rowPtr[i]; p < r.rowPtr[i+1]; p++ {
		r.scatterColumn(r.rowIdx[p], r.rowVal[p], lo, end, dst)
	}
}

// scatterSrc is scatter on rows read in place (src): row srcIdx[i]'s
// values scaled as csrRows stored them in the compressed columns (v·s, or
// v·scale[k]), those that are 0 skipped, in the row's ascending feature
// order; the same products in the same order as from a copy of the row.
func (r *sparseRows) scatterSrc(i, lo int, dst []float64) {
	end := int32(lo + len(dst))
	if r.srcIdx != nil {
		i = r.srcIdx[i]
	}
	ind, val := r.src.Row(i)
	for p, k := range ind {
		v := val[p]
		if r.scale != nil {
			v *= r.scale[k]
		} else {
			v *= r.s
		}
		if v == 0 {
			continue
		}
		r.scatterColumn(k, v, lo, end, dst)
	}
}

// scatterColumn adds v·x̃_jk to dst[j-lo] for the rows lo ≤ j < end with
// feature k set (column k of the compressed columns).
func (r *sparseRows) scatterColumn(k int32, v float64, lo int, end int32, dst []float64) {
	rows := r.colRow[r.colPtr[k]:r.colPtr[k+1]]
	vals := r.colVal[r.colPtr[k]:r.colPtr[k+1]]
	a := 0
	if lo > 0 {
		a = sort.Search(len(rows), func(q int) bool { return rows[q] >= int32(lo) })
	}
	if c := r.constOf(k); !math.IsNaN(c) {
		// Every vals[q] is c (the same bits: a stored entry is never ±0),
		// so every product is w.
		w := v * c
		for _, j := range rows[a:] {
			if j >= end {
				break
			}
			dst[int(j)-lo] += w
		}
		return
	}
	for q := a; q < len(rows); q++ {
		j := rows[q]
		if j >= end {
			break
		}
		dst[int(j)-lo] += v * vals[q]
	}
}

// SparseCross holds rows B prepared for kernel blocks k(a_i, b_j) against
// any number of other rows a (a model's support vectors against the points
// it predicts), on the sparse route: B's compressed columns, less each
// column's majority value, and each a's nonzeros (less the same values)
// scattered down them. On w8a's 300 binary features (12 set per row) a
// block costs the overlaps of the rows instead of 300 multiply-adds per
// entry.
type SparseCross struct {
	r *sparseRows
}

// SparseCross returns B prepared for sparse kernel blocks, or nil when g is
// not isotropic or B is not sparse enough for the route to pay (the rules
// of the columns' sparse route, sparseGaussRows). B held in compressed rows
// (a *sparse.CSR) always takes the route, for a diagonal metric too
// (SparseCrossOf; a full metric panics with its *SparseError).
func (g *Gaussian) SparseCross(B mat.Matrix) *SparseCross {
	if s, ok := B.(*sparse.CSR); ok {
		c, err := SparseCrossOf(g, s)
		if err != nil {
			panic(err)
		}
		return c
	}
	if g.kind != gaussIso {
		return nil
	}
	x, n, d := rowMajor(B)
	g.checkDim(d)
	r := sparseGaussRows(x, n, d, math.Sqrt(2*g.gamma))
	if r == nil {
		return nil
	}
	return &SparseCross{r: r}
}

// Block sets dst (m × len(B)) to k(a_i, b_j) for the m rows of A (dense,
// or a *sparse.CSR). Each entry is exp(min(0, ã·b̃ − ½‖ã‖² − ½‖b̃‖²)) of the
// shifted, scaled rows (the dot product alone for the linear kernel), the
// dot product summed in ascending feature order, as the columns' route
// computes it.
func (c *SparseCross) Block(A mat.Matrix, dst *mat.Dense) {
	r := c.r
	m, d := A.Dims()
	if d != r.d {
		panic(fmt.Sprintf("kernel: SparseCross.Block: rows of %d features against %d", d, r.d))
	}
	if rm, cn := dst.Dims(); rm != m || cn != r.n {
		panic(fmt.Sprintf("kernel: SparseCross.Block: dst is %d×%d, want %d×%d", rm, cn, m, r.n))
	}
	if s, ok := A.(*sparse.CSR); ok {
		c.blockCSR(s, dst)
		return
	}
	a := make([]float64, d)
	for i := 0; i < m; i++ {
		mat.Row(a, i, A)
		row := dst.RawRowView(i)
		clear(row)
		var ha float64
		for k, v := range a {
			v = r.mapped(k, v)
			if v == 0 {
				continue
			}
			ha += v * v
			r.scatterFeature(int32(k), v, row)
		}
		r.finishRow(ha/2, row)
	}
}
