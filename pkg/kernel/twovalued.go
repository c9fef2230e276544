package kernel

import (
	"math"
	"sort"
	"sync"

	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// This file holds the two-valued route of the L1 kernel's columns (L1.Rows
// and L1.Gram). On one-hot data (LIBSVM's a1a: 123 binary features, 14 set
// per row, z-scored by train's default normalisation so that each feature
// takes two values) the dense route spends d absolute differences on every
// entry, most between two equal values. A feature k that takes only the
// values b_k (its majority value, columnBases) and v_k has
//
//	|x_ik - x_jk|/θ_k = w_k (m_ik + m_jk - 2 m_ik m_jk),   w_k = |v_k - b_k|/θ_k,
//
// with m_ik = 1 where x_ik = v_k ("marked"), so over the two-valued features
// Σ_k |x_ik - x_jk|/θ_k = s_i + s_j - 2 c_ij with s_i = Σ_{k marked in i} w_k
// and c_ij = Σ_{k marked in both} w_k: c_i· is a scatter of row i's marks down
// the marked rows of each feature (as the sparse Gaussian route's dot
// products, sparse.go), Σ_{k marked in i} nnz_k additions instead of n·d.
// The other features (more than two values) keep the dense absolute
// differences. An entry is
//
//	K_ij = -(Σ_{k dense} |x_ik - x_jk|/θ_k + max(0, (s_i + s_j) - 2 c_ij)),
//
// each sum in ascending feature order whatever asks for it, so a column
// computed whole, as a prefix or in parts through idx agrees to the last bit
// (Splittable), K_ij = K_ji exactly, and K_ii = 0 exactly (c_ii sums the same
// terms as s_i in the same order). The values differ from the dense route's
// in the last bits only (the same terms summed in another order).

// l1SparseMaxCost is the largest ratio of the route's work per entry (a
// scatter step taken as l1ScatterCost absolute differences, plus the dense
// features) to the dense route's d for which the route is taken. At 1/2 the
// default compare's data (heart, breast-wisconsin, diabetes: a few binary
// features among many-valued ones) keep the dense route, and a1a takes this
// one (ratio 0.09: a column 9× cheaper, measured by BenchmarkL1SparseColumn).
const (
	l1SparseMaxCost = 0.5
	l1ScatterCost   = 2
	// gaussTwoValuedMaxCost is the same bound for a diagonal Gaussian,
	// whose dense route is a SYRK (SIMD multiply-adds, several per scatter
	// step).
	gaussTwoValuedMaxCost = 0.25
)

// twoValued is an L1 or diagonal Gaussian kernel matrix on two-valued
// features.
type twoValued struct {
	n     int
	gauss bool // a diagonal Gaussian: K = exp(-½ distance), else L1: K = -distance
	// the features with more than two values, scaled: n×len(dense)
	dense []int
	xd    []float64
	// CSR of the marks: row i's marked two-valued features
	// rowIdx[rowPtr[i]:rowPtr[i+1]], ascending
	rowPtr []int
	rowIdx []int32
	// CSC: feature k's marked rows colRow[colPtr[k]:colPtr[k+1]], ascending
	colPtr []int
	colRow []int32
	w      []float64 // w_k, 0 for the features in dense
	s      []float64 // s_i
	cost   int
	// scratch holds []float64 buffers for the columns asked through idx.
	scratch sync.Pool
}

// sparseRows returns the two-valued route of the L1 kernel for the n×d
// row-major x, or nil when it would not pay (l1SparseMaxCost).
func (l *L1) sparseRows(x []float64, n, d int) *twoValued {
	return newTwoValued(x, n, d, l.inv, false, l1SparseMaxCost)
}

// newTwoValued returns the two-valued route for the n×d row-major x with
// the per-feature scales scale (features of scale 0 are left out): the L1
// distance Σ_k scale_k|x_ik - x_jk| (gauss false) or the squared distance
// Σ_k (scale_k(x_ik - x_jk))² of a diagonal Gaussian (gauss true, K =
// exp(-½·)), or nil when the route's work per entry exceeds maxCost times
// the dense route's.
func newTwoValued(x []float64, n, d int, scale []float64, gauss bool, maxCost float64) *twoValued {
	if n < 2 || n > math.MaxInt32 {
		return nil
	}
	base := columnBases(x, n, d)
	other := make([]float64, d) // the second value, NaN once a third is seen
	seen := make([]bool, d)
	colNNZ := make([]int, d)
	for i := 0; i < n; i++ {
		for k, v := range x[i*d : (i+1)*d] {
			switch {
			case v == base[k] || math.IsNaN(other[k]):
			case !seen[k]:
				other[k], seen[k] = v, true
				colNNZ[k]++
			case v == other[k]:
				colNNZ[k]++
			default:
				other[k] = math.NaN()
			}
		}
	}
	var dense []int
	var work float64
	nnz, used := 0, 0
	for k := range d {
		if scale[k] == 0 {
			colNNZ[k] = 0
			continue
		}
		used++
		if math.IsNaN(other[k]) {
			dense = append(dense, k)
			colNNZ[k] = 0
			continue
		}
		work += float64(colNNZ[k]) * float64(colNNZ[k])
		nnz += colNNZ[k]
	}
	fn := float64(n)
	perEntry := l1ScatterCost*work/(fn*fn) + float64(len(dense))
	if len(dense) == used || perEntry > maxCost*float64(used) {
		return nil
	}
	r := &twoValued{
		n: n, gauss: gauss, dense: dense, xd: make([]float64, n*len(dense)),
		rowPtr: make([]int, n+1), rowIdx: make([]int32, nnz),
		colPtr: make([]int, d+1), colRow: make([]int32, nnz),
		w: make([]float64, d), s: make([]float64, n),
		cost: int(math.Ceil(perEntry)) + 2,
	}
	for k := range d {
		if colNNZ[k] > 0 {
			r.w[k] = math.Abs(other[k]-base[k]) * scale[k]
			if gauss {
				r.w[k] *= r.w[k]
			}
		}
		r.colPtr[k+1] = r.colPtr[k] + colNNZ[k]
	}
	next := append([]int(nil), r.colPtr[:d]...)
	p := 0
	for i := 0; i < n; i++ {
		row := x[i*d : (i+1)*d]
		var s float64
		for k, v := range row {
			if colNNZ[k] == 0 || v == base[k] {
				continue
			}
			r.rowIdx[p] = int32(k)
			p++
			r.colRow[next[k]] = int32(i)
			next[k]++
			s += r.w[k]
		}
		r.rowPtr[i+1] = p
		r.s[i] = s
		xd := r.xd[i*len(dense) : (i+1)*len(dense)]
		for c, k := range dense {
			xd[c] = row[k] * scale[k]
		}
	}
	return r
}

func (r *twoValued) Len() int { return r.n }

// EntryCost: the dense features and the scatter work per entry.
func (r *twoValued) EntryCost() int { return r.cost }

func (r *twoValued) Diag(i int) float64 {
	if i < 0 || i >= r.n {
		panic("kernel: Diag: index out of range")
	}
	if r.gauss {
		return 1
	}
	return 0
}

// Column sets K(i, ·) for a prefix or the rows in idx.
func (r *twoValued) Column(i int, idx []int, dst []float64) {
	checkColumn(r.n, idx, dst)
	if idx == nil {
		clear(dst)
		r.scatter(i, 0, dst)
		r.args(i, 0, dst)
		r.finish(dst)
		return
	}
	if len(idx) == 0 {
		return
	}
	lo, top := idx[0], idx[0]
	for _, j := range idx {
		lo, top = min(lo, j), max(top, j)
	}
	buf := r.buffer(top - lo + 1)
	r.scatter(i, lo, *buf)
	for k, j := range idx {
		dst[k] = r.entry(i, j, (*buf)[j-lo])
	}
	r.scratch.Put(buf)
}

// entry returns K_ij from c_ij.
func (r *twoValued) entry(i, j int, c float64) float64 {
	if r.gauss {
		return expNonPos(r.arg(i, j, c))
	}
	return r.arg(i, j, c)
}

// arg returns K_ij from c_ij for the L1 kernel and log K_ij for the
// Gaussian, whose rows take their exp in one pass (expNonPosSlice).
func (r *twoValued) arg(i, j int, c float64) float64 {
	m := len(r.dense)
	var dd float64
	if m > 0 {
		a, b := r.xd[i*m:(i+1)*m], r.xd[j*m:(j+1)*m]
		if r.gauss {
			for k, v := range a {
				e := v - b[k]
				dd += e * e
			}
		} else {
			dd = l1dist(a, b)
		}
	}
	v := (r.s[i] + r.s[j]) - 2*c
	if v < 0 { // math.Max(0, v), which keeps a NaN; -0 becomes +0 below
		v = 0
	}
	dist := dd + v
	if r.gauss {
		return -dist / 2
	}
	return -dist
}

// args sets row[k] = arg(i, j0+k, row[k]) for every k, without a call per
// entry when every feature is two-valued (dd = 0).
func (r *twoValued) args(i, j0 int, row []float64) {
	if len(r.dense) > 0 {
		for k := range row {
			row[k] = r.arg(i, j0+k, row[k])
		}
		return
	}
	si, s := r.s[i], r.s[j0:j0+len(row)]
	var dd float64 // +0, as arg's: dd + v turns a -0 into +0
	if r.gauss {
		for k, c := range row {
			v := (si + s[k]) - 2*c
			if v < 0 {
				v = 0
			}
			row[k] = -(dd + v) / 2
		}
		return
	}
	for k, c := range row {
		v := (si + s[k]) - 2*c
		if v < 0 {
			v = 0
		}
		row[k] = -(dd + v)
	}
}

// finish sets a row of args (arg's values) to the kernel's values.
func (r *twoValued) finish(row []float64) {
	if r.gauss {
		expNonPosSlice(row)
	}
}

// buffer returns a zeroed scratch buffer of length m.
func (r *twoValued) buffer(m int) *[]float64 { return zeroedBuffer(&r.scratch, m, r.n) }

// scatter adds w_k to dst[j-lo] for every feature k marked in rows i and j,
// lo ≤ j < lo+len(dst), in ascending feature order.
func (r *twoValued) scatter(i, lo int, dst []float64) {
	end := int32(lo + len(dst))
	for p := r.rowPtr[i]; p < r.rowPtr[i+1]; p++ {
		k := r.rowIdx[p]
		w := r.w[k]
		rows := r.colRow[r.colPtr[k]:r.colPtr[k+1]]
		a := 0
		if lo > 0 {
			a = sort.Search(len(rows), func(q int) bool { return rows[q] >= int32(lo) })
		}
		for _, j := range rows[a:] {
			if j >= end {
				break
			}
			dst[int(j)-lo] += w
		}
	}
}

// gram returns the whole matrix, both triangles, from the upper triangle's
// rows (the entries of Column, to the last bit), rows spread over all cores.
func (r *twoValued) gram() *mat.SymDense { return r.gramInto(nil) }

// gramInto is gram in dst's storage when dst is n×n with stride n (every
// entry is written: each row's upper part is cleared just before its
// scatter adds to it), in a new matrix otherwise.
func (r *twoValued) gramInto(dst *mat.SymDense) *mat.SymDense {
	n := r.n
	var c []float64
	reuse := false
	if dst != nil && !dst.IsEmpty() && dst.SymmetricDim() == n {
		if raw := dst.RawSymmetric(); raw.Stride == n && len(raw.Data) >= n*n {
			c, reuse = raw.Data[:n*n], true
		}
	}
	if !reuse {
		c = make([]float64, n*n)
	}
	const rowsPerTask = 16
	tasks := (n + rowsPerTask - 1) / rowsPerTask
	parallelFor(tasks, workers(n*n/2*max(1, r.cost/8)), func(t int) {
		for i := t * rowsPerTask; i < min(n, (t+1)*rowsPerTask); i++ {
			row := c[i*n+i : (i+1)*n]
			if reuse {
				clear(row)
			}
			r.scatter(i, i, row)
			r.args(i, i, row)
			r.finish(row)
		}
	})
	for i := 0; i < n; i++ {
		for j := i + 1; j < n; j++ {
			c[j*n+i] = c[i*n+j]
		}
	}
	if reuse {
		return dst
	}
	return mat.NewSymDense(n, c)
}

// gradDiag is GaussianGradDiag's two-valued route: for a feature with the
// two values b_k, v_k (δ_k = v_k - b_k, marked rows M_k),
//
//	-½ Σ_ij W_ij (x_ik - x_jk)² = -δ_k² (Σ_{i∈M_k} r_i - Σ_{i,j∈M_k} W_ij),
//
// r_i = Σ_j W_ij, W = C ∘ K, the pair sums gathered along each marked row's
// features over the marked rows after it (Σ_k nnz_k²/2 additions instead of
// the dense route's n²d). The features with more values take
// -½ Σ_ij W_ij (x_ik - x_jk)² directly. Row blocks run in parallel, their
// sums added in a fixed order, so the result does not depend on scheduling.
func (r *twoValued) gradDiag(dst []float64, x []float64, d int, k, c blas64.Symmetric) {
	n := r.n
	w := func(i, j int) float64 { // i ≤ j
		return c.Data[i*c.Stride+j] * k.Data[i*k.Stride+j]
	}
	const rowsPerTask = 32
	tasks := (n + rowsPerTask - 1) / rowsPerTask
	nd := len(r.dense)
	// per task: Σ over its rows i of W_ii and 2Σ_{j>i} W_ij for the pairs
	// marked in both (per feature), of W_ij (j > i) for r, and the dense
	// features' sums
	pairs := make([][]float64, tasks)
	denseSum := make([][]float64, tasks)
	rowUp := make([]float64, n) // Σ_{j≥i} W_ij
	colLow := make([][]float64, tasks)
	parallelFor(tasks, workers(n*n/2), func(t int) {
		ps, ds, cl := make([]float64, d), make([]float64, nd), make([]float64, n)
		for i := t * rowsPerTask; i < min(n, (t+1)*rowsPerTask); i++ {
			var s float64
			xi := x[i*d : (i+1)*d]
			for j := i; j < n; j++ {
				v := w(i, j)
				s += v
				if j > i {
					cl[j] += v
					if nd > 0 {
						xj := x[j*d : (j+1)*d]
						for q, f := range r.dense {
							e := xi[f] - xj[f]
							ds[q] += v * e * e
						}
					}
				}
			}
			rowUp[i] = s
			wii := w(i, i)
			for p := r.rowPtr[i]; p < r.rowPtr[i+1]; p++ {
				f := r.rowIdx[p]
				rows := r.colRow[r.colPtr[f]:r.colPtr[f+1]]
				a := sort.Search(len(rows), func(q int) bool { return rows[q] > int32(i) })
				var g float64
				for _, j := range rows[a:] {
					g += w(i, int(j))
				}
				ps[f] += wii + 2*g
			}
		}
		pairs[t], denseSum[t], colLow[t] = ps, ds, cl
	})
	rsum := rowUp
	for t := range tasks {
		for j, v := range colLow[t] {
			rsum[j] += v
		}
	}
	clear(dst)
	for f := range d {
		if r.colPtr[f+1] == r.colPtr[f] {
			continue
		}
		var sr, sp float64
		for _, i := range r.colRow[r.colPtr[f]:r.colPtr[f+1]] {
			sr += rsum[i]
		}
		for t := range tasks {
			sp += pairs[t][f]
		}
		dst[f] = -r.w[f] * (sr - sp)
	}
	for q, f := range r.dense {
		var s float64
		for t := range tasks {
			s += denseSum[t][q]
		}
		dst[f] = -s // -½ Σ_ij = -Σ_{i<j}
	}
}
