package kernel

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

type gaussKind int

const (
	gaussIso gaussKind = iota
	gaussDiag
	gaussFull
)

// Gaussian is the kernel k_Q(x,z) = exp(-½ (x-z)ᵀ Q (x-z)) with a fixed metric
// Q, stored in one of three forms: isotropic (Q = 2γI, LIBSVM's
// exp(-γ‖x-z‖²)), diagonal (Q = diag(q)) or full SPD. A Gaussian is
// immutable and safe for concurrent use.
//
// Bulk evaluation maps the rows once, X̃ = (X - 1μᵀ) L with Q = L Lᵀ
// (Cholesky; for diagonal and isotropic Q a column scaling), so that
// ½(x-z)ᵀQ(x-z) = ½‖x̃‖² + ½‖z̃‖² - x̃·z̃ and a Gram matrix is one SYRK and
// one exp pass (docs/design.md "Fast kernel matrices"). Subtracting the column
// mean μ does not change any distance but keeps the cancellation in that
// identity small on data far from the origin.
type Gaussian struct {
	kind  gaussKind
	d     int       // input dimension; 0 for isotropic (any dimension)
	gamma float64   // isotropic: Q = 2γI
	q     []float64 // diagonal: Q = diag(q)

	// full Q
	qm *mat.SymDense
	l  []float64 // lower Cholesky factor of Q, d×d row-major

	// diagonal: the columns with q_k > 0 and their scales √q_k
	cols  []int
	scale []float64
}

var _ Kernel = (*Gaussian)(nil)

// NewGaussian returns the Gaussian kernel with the full metric Q, which must
// be symmetric positive definite (checked by a Cholesky factorisation; the
// error then wraps ErrNotSPD). Q is copied.
func NewGaussian(Q mat.Symmetric) (*Gaussian, error) {
	d := Q.SymmetricDim()
	if d == 0 {
		return nil, fmt.Errorf("build Gaussian kernel: Q is empty")
	}
	qm := mat.NewSymDense(d, nil)
	qm.CopySym(Q)
	for i := 0; i < d; i++ {
		for j := i; j < d; j++ {
			if v := qm.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, fmt.Errorf("build Gaussian kernel: Q[%d][%d] = %v is not finite", i, j, v)
			}
		}
	}
	var chol mat.Cholesky
	if !chol.Factorize(qm) {
		return nil, fmt.Errorf("build Gaussian kernel: %w: Cholesky factorisation of the %d×%d metric Q failed", ErrNotSPD, d, d)
	}
	var lt mat.TriDense
	chol.LTo(&lt)
	l := make([]float64, d*d)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			l[i*d+j] = lt.At(i, j)
		}
	}
	return &Gaussian{kind: gaussFull, d: d, qm: qm, l: l}, nil
}

// NewGaussianDiag returns the Gaussian kernel with Q = diag(q),
// k(x,z) = exp(-½ Σ_k q_k (x_k-z_k)²). Each q_k must be finite and ≥ 0: a
// zero weight (a feature switched off, as the spd method drives noise
// features towards) gives a positive semidefinite Q and still a valid,
// finite kernel. q is copied.
func NewGaussianDiag(q []float64) (*Gaussian, error) {
	if len(q) == 0 {
		return nil, fmt.Errorf("build diagonal Gaussian kernel: no weights")
	}
	g := &Gaussian{kind: gaussDiag, d: len(q), q: append([]float64(nil), q...)}
	for k, v := range q {
		if math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
			return nil, fmt.Errorf("build diagonal Gaussian kernel: weight q[%d] = %v must be finite and non-negative", k, v)
		}
		if v > 0 {
			g.cols = append(g.cols, k)
			g.scale = append(g.scale, math.Sqrt(v))
		}
	}
	return g, nil
}

// NewGaussianIso returns LIBSVM's isotropic kernel exp(-γ‖x-z‖²), Q = 2γI.
// γ must be finite and > 0 (γ = 0 would be the constant kernel, a degenerate
// start for every method). The kernel accepts points of any dimension.
func NewGaussianIso(gamma float64) (*Gaussian, error) {
	if math.IsNaN(gamma) || math.IsInf(gamma, 0) || gamma <= 0 {
		return nil, fmt.Errorf("build isotropic Gaussian kernel: gamma = %v must be finite and positive", gamma)
	}
	return &Gaussian{kind: gaussIso, gamma: gamma}, nil
}

// Dim returns the input dimension d, or 0 for an isotropic kernel, which
// accepts any dimension.
func (g *Gaussian) Dim() int { return g.d }

// Gamma returns LIBSVM's γ (Q = 2γI) and true for an isotropic kernel, and
// (0, false) otherwise.
func (g *Gaussian) Gamma() (float64, bool) {
	if g.kind == gaussIso {
		return g.gamma, true
	}
	return 0, false
}

// QDiag returns a copy of q (Q = diag(q)) and true for a diagonal kernel, and
// (nil, false) otherwise.
func (g *Gaussian) QDiag() ([]float64, bool) {
	if g.kind == gaussDiag {
		return append([]float64(nil), g.q...), true
	}
	return nil, false
}

// Q returns a copy of the metric Q as a d×d matrix. An isotropic kernel has
// no fixed dimension, and Q returns nil for it; use Metric(d).
func (g *Gaussian) Q() *mat.SymDense {
	if g.kind == gaussIso {
		return nil
	}
	return g.Metric(g.d)
}

// Metric returns a copy of Q as a d×d matrix for any kind of Gaussian
// (2γI for an isotropic one). It panics if the kernel has a fixed dimension
// other than d.
func (g *Gaussian) Metric(d int) *mat.SymDense {
	g.checkDim(d)
	m := mat.NewSymDense(d, nil)
	switch g.kind {
	case gaussIso:
		for k := 0; k < d; k++ {
			m.SetSym(k, k, 2*g.gamma)
		}
	case gaussDiag:
		for k, v := range g.q {
			m.SetSym(k, k, v)
		}
	case gaussFull:
		m.CopySym(g.qm)
	}
	return m
}

// Spec returns {gaussian, gamma}, {gaussian, q_diag} or {gaussian, q}
// according to how the kernel was made.
func (g *Gaussian) Spec() Spec {
	switch g.kind {
	case gaussIso:
		return Spec{Kind: KindGaussian, Gamma: g.gamma}
	case gaussDiag:
		return Spec{Kind: KindGaussian, Diag: append([]float64(nil), g.q...)}
	}
	q := make([][]float64, g.d)
	for i := range q {
		q[i] = make([]float64, g.d)
		for j := range q[i] {
			q[i][j] = g.qm.At(i, j)
		}
	}
	return Spec{Kind: KindGaussian, Q: q}
}

func (g *Gaussian) checkDim(d int) {
	if g.d != 0 && d != g.d {
		panic(fmt.Sprintf("kernel: Gaussian of dimension %d given points of dimension %d", g.d, d))
	}
}

// Eval returns exp(-½ (x-z)ᵀ Q (x-z)).
func (g *Gaussian) Eval(x, z []float64) float64 {
	if len(x) != len(z) {
		panic("kernel: Eval: points of different lengths")
	}
	g.checkDim(len(x))
	var s float64
	switch g.kind {
	case gaussIso:
		for k, v := range x {
			t := v - z[k]
			s += t * t
		}
		return expNonPos(-g.gamma * s)
	case gaussDiag:
		for k, v := range x {
			t := v - z[k]
			s += g.q[k] * t * t
		}
	case gaussFull:
		raw := g.qm.RawSymmetric()
		for k := range x {
			tk := x[k] - z[k]
			row := raw.Data[k*raw.Stride:]
			off := 0.0
			for l := k + 1; l < len(x); l++ {
				off += row[l] * (x[l] - z[l])
			}
			s += tk * (row[k]*tk + 2*off)
		}
	}
	return expNonPos(math.Min(0, -s/2)) // s < 0 only by rounding
}

// transform returns X̃ = (X - 1μᵀ) L as fresh n×p row-major data.
func (g *Gaussian) transform(x []float64, n, d int, mu []float64) (xt []float64, p int) {
	switch g.kind {
	case gaussIso:
		s := math.Sqrt(2 * g.gamma)
		xt = make([]float64, n*d)
		for i := 0; i < n; i++ {
			src, dst := x[i*d:(i+1)*d], xt[i*d:(i+1)*d]
			for k, v := range src {
				dst[k] = (v - mu[k]) * s
			}
		}
		return xt, d
	case gaussDiag:
		p = len(g.cols)
		xt = make([]float64, n*p)
		for i := 0; i < n; i++ {
			src, dst := x[i*d:(i+1)*d], xt[i*p:(i+1)*p]
			for c, k := range g.cols {
				dst[c] = (src[k] - mu[k]) * g.scale[c]
			}
		}
		return xt, p
	}
	xt = make([]float64, n*d)
	for i := 0; i < n; i++ {
		src, dst := x[i*d:(i+1)*d], xt[i*d:(i+1)*d]
		for k, v := range src {
			dst[k] = v - mu[k]
		}
	}
	if n > 0 {
		blas64.Trmm(blas.Right, blas.NoTrans, 1,
			blas64.Triangular{Uplo: blas.Lower, Diag: blas.NonUnit, N: d, Stride: d, Data: g.l},
			blas64.General{Rows: n, Cols: d, Stride: d, Data: xt})
	}
	return xt, d
}

// expFinish returns the tile pass K_ij = exp(min(0, G_ij - h_i - h_j)) of a
// Gram (sym: only i ≤ j, and K_ii = 1 exactly) or cross matrix. The min
// guards against a squared distance made slightly negative by rounding.
func expFinish(hi, hj []float64, sym bool) func(c []float64, stride int, t tile) {
	return func(c []float64, stride int, t tile) {
		for i := t.i0; i < t.i1; i++ {
			j0 := t.j0
			if sym {
				if i >= t.j1 {
					break
				}
				if i >= j0 {
					j0 = i
					c[i*stride+i] = 1
					j0++
				}
			}
			a := hi[i]
			row := c[i*stride : i*stride+t.j1]
			h := hj[:t.j1]
			for j := j0; j < t.j1; j++ {
				v := row[j] - a - h[j]
				if v > 0 {
					v = 0
				}
				row[j] = v
			}
			expNonPosSlice(row[j0:t.j1])
		}
	}
}

// Gram returns K_ij = k(x_i, x_j): one SYRK on X̃ and an exp pass, tiled over
// all cores. Both triangles of the result's storage are filled.
func (g *Gaussian) Gram(X mat.Matrix) *mat.SymDense {
	return g.GramInto(X, nil)
}

// GramInto is Gram, written into dst's storage when dst is an n×n matrix
// that its caller no longer needs (one a previous Gram returned), on the
// routes that can (the two-valued route: one-hot rows under a diagonal
// metric); it returns a new matrix otherwise. The values are Gram's, bit
// for bit. spd's line search evaluates a Gram a step and keeps one: on
// 5,000 rows each new one was 200 MB of fresh pages to clear, 21 % of
// spd's CPU at 32,561 Adult-like rows.
func (g *Gaussian) GramInto(X mat.Matrix, dst *mat.SymDense) *mat.SymDense {
	if s, ok := X.(*sparse.CSR); ok {
		return gramCSR(g, s)
	}
	x, n, d := rowMajor(X)
	g.checkDim(d)
	if r := g.twoValued(x, n, d); r != nil {
		return r.gramInto(dst)
	}
	xt, p := g.transform(x, n, d, colMeans(x, n, d))
	h := rowNorms2Half(xt, n, p)
	return innerGram(xt, n, p, expFinish(h, h, true))
}

// Cross returns k(a_i, b_j): one GEMM on Ã, B̃ (both shifted by the mean of
// the rows of B) and an exp pass; when A or B is held in compressed rows,
// the sparse route's scatter (csr.go).
func (g *Gaussian) Cross(A, B mat.Matrix) *mat.Dense {
	if isCSR(A) || isCSR(B) {
		return crossCSR(g, A, B)
	}
	a, m, da := rowMajor(A)
	b, n, db := rowMajor(B)
	if da != db {
		panic("kernel: Cross: A and B have different numbers of columns")
	}
	g.checkDim(da)
	mu := colMeans(b, n, db)
	at, p := g.transform(a, m, da, mu)
	bt, _ := g.transform(b, n, db, mu)
	return innerCross(at, m, bt, n, p, expFinish(rowNorms2Half(at, m, p), rowNorms2Half(bt, n, p), false))
}

// CrossCols returns k.Cross(A, B) with only the columns cols computed and
// every other entry 0: each computed entry has the bits of Cross's (the
// centring is B's whole column means, a tile's product is one dot product
// per entry, and the exp pass is the same per entry in every lane), in
// |cols|/n of Cross's time for a dense Gaussian. A caller that reads a
// few columns of a large cross block (twolevel's validation rows against
// the support vectors of its inner SVM) computes only those. Other kernels,
// and compressed rows, compute the whole block and clear the rest.
func CrossCols(k Kernel, A, B mat.Matrix, cols []int) *mat.Dense {
	return CrossColsTo(nil, k, A, B, cols)
}

// CrossColsTo is CrossCols with the result in buf where buf has room for
// its m·n entries (every one is written), else in a new array: a caller
// computing blocks of one size again and again keeps one array.
func CrossColsTo(buf []float64, k Kernel, A, B mat.Matrix, cols []int) *mat.Dense {
	g, ok := k.(*Gaussian)
	if !ok || isCSR(A) || isCSR(B) {
		return clearOtherCols(k.Cross(A, B), cols)
	}
	a, m, da := rowMajor(A)
	b, n, db := rowMajor(B)
	if da != db {
		panic("kernel: Cross: A and B have different numbers of columns")
	}
	g.checkDim(da)
	if m == 0 || n == 0 {
		return &mat.Dense{}
	}
	cols = slices.Clone(cols)
	slices.Sort(cols)
	cols = slices.Compact(cols)
	s := len(cols)
	if s > 0 && (cols[0] < 0 || cols[s-1] >= n) {
		panic(fmt.Sprintf("kernel: CrossCols: column %d out of range [0, %d)", cols[s-1], n))
	}
	mu := colMeans(b, n, db)
	at, p := g.transform(a, m, da, mu)
	full, _ := g.transform(b, n, db, mu) // O(n·p): B's rows mapped as Cross maps them
	bt := make([]float64, s*p)
	for c, j := range cols {
		copy(bt[c*p:(c+1)*p], full[j*p:(j+1)*p])
	}
	// The m×s block is computed at the front of the m×n result and then
	// spread to its columns in place, from the last entry back: with cols
	// ascending, entry (i, c) moves to i·n + cols[c] ≥ i·s + c, past every
	// entry not yet moved.
	var out []float64
	if cap(buf) >= m*n {
		out = buf[:m*n]
	} else {
		out = make([]float64, m*n)
	}
	if s > 0 {
		innerCrossTo(out, at, m, bt, s, p, expFinish(rowNorms2Half(at, m, p), rowNorms2Half(bt, s, p), false))
	}
	for i := m - 1; i >= 0; i-- {
		row := out[i*n : (i+1)*n]
		for c := s - 1; c >= 0; c-- {
			row[cols[c]] = out[i*s+c]
		}
		// Clear the gaps between the columns (entries moved from there or
		// never written).
		next := n
		for c := s - 1; c >= -1; c-- {
			j := -1
			if c >= 0 {
				j = cols[c]
			}
			clear(row[j+1 : next])
			next = j
		}
	}
	return mat.NewDense(m, n, out)
}

// clearOtherCols sets every entry of c outside the columns cols to 0.
func clearOtherCols(c *mat.Dense, cols []int) *mat.Dense {
	m, n := c.Dims()
	keep := make([]bool, n)
	for _, j := range cols {
		keep[j] = true
	}
	for i := 0; i < m; i++ {
		row := c.RawRowView(i)
		for j := range row {
			if !keep[j] {
				row[j] = 0
			}
		}
	}
	return c
}

// Rows maps the rows of X once (X̃ and ½‖x̃_i‖²) for column evaluation.
// An isotropic Gaussian on sparse rows takes the sparse route (sparse.go),
// as does an isotropic or diagonal one on compressed rows (csr.go; a full
// metric panics there with its *SparseError: check SparseSupport first).
// The Matrix is read-only and safe for concurrent use.
func (g *Gaussian) Rows(X mat.Matrix) Matrix {
	if s, ok := X.(*sparse.CSR); ok {
		return rowsCSR(g, s)
	}
	x, n, d := rowMajor(X)
	g.checkDim(d)
	if g.kind == gaussIso {
		if r := sparseGaussRows(x, n, d, math.Sqrt(2*g.gamma)); r != nil {
			return r
		}
	}
	if r := g.twoValued(x, n, d); r != nil {
		return r
	}
	xt, p := g.transform(x, n, d, colMeans(x, n, d))
	return &gaussRows{xt: xt, n: n, p: p, h: rowNorms2Half(xt, n, p)}
}

// twoValued returns the two-valued route (twovalued.go) of a diagonal
// metric on one-hot-like rows, or nil (other metrics, or data where the
// route does not pay: gaussTwoValuedMaxCost).
func (g *Gaussian) twoValued(x []float64, n, d int) *twoValued {
	if g.kind != gaussDiag {
		return nil
	}
	scale := make([]float64, d)
	for c, k := range g.cols {
		scale[k] = g.scale[c]
	}
	return newTwoValued(x, n, d, scale, true, gaussTwoValuedMaxCost)
}

// gaussRows is a Gaussian kernel matrix computed column by column.
type gaussRows struct {
	xt   []float64 // X̃, n×p
	n, p int
	h    []float64 // ½‖x̃_i‖²
}

func (r *gaussRows) Len() int           { return r.n }
func (r *gaussRows) Diag(i int) float64 { _ = r.h[i]; return 1 }

// EntryCost: a dot product of length p and an exp (≈ 16 multiply-adds).
func (r *gaussRows) EntryCost() int { return r.p + 16 }

// Column computes K(i, ·) by dot products of x̃_i with the rows of X̃ (all
// rows, a prefix, or those in idx), then the exp pass. Each entry is computed
// the same way whichever form is asked (gaussArg, then expNonPos), so a cached full column
// and an entry computed through idx agree to the last bit. (One GEMV over X̃
// would round rows differently according to their place in its unrolled
// blocks; it saves about 15% of a full column at n = 2000, d = 50:
// BenchmarkKernelColumn.)
func (r *gaussRows) Column(i int, idx []int, dst []float64) {
	checkColumn(r.n, idx, dst)
	rowDots(dst, r.xt, r.p, i, idx)
	gaussColumn(i, idx, dst, r.h)
}

// gaussColumn turns the dot products x̃_i·x̃_j in dst (dst[j] for j <
// len(dst), or dst[k] for j = idx[k]) into the kernel column, with K_ii = 1
// exactly; h holds the halved squared norms.
func gaussColumn(i int, idx []int, dst, h []float64) {
	hi := h[i]
	if idx == nil {
		h := h[:len(dst)]
		for j, v := range dst {
			dst[j] = gaussArg(v, hi, h[j])
		}
		expNonPosSlice(dst)
		if i < len(dst) {
			dst[i] = 1
		}
		return
	}
	// The exponents first, then one exp pass (four at a time with AVX2,
	// the same bits as the scalar expNonPos: TestExpNonPosSlice): the
	// columns asked through idx (every column once the solver has shrunk
	// or swapped a variable, and every fold's column through Sub) spent a
	// quarter of svm's refinement at 32,561 rows in the scalar exp.
	for k, j := range idx {
		dst[k] = gaussArg(dst[k], hi, h[j])
	}
	expNonPosSlice(dst[:len(idx)])
	for k, j := range idx {
		if j == i {
			dst[k] = 1
		}
	}
}

// gaussArg is the exponent min(0, x̃_i·x̃_j - (h_i + h_j)) of a kernel value
// exp(gaussArg) from a dot product of mapped rows and their halved squared
// norms.
func gaussArg(dot, hi, hj float64) float64 {
	v := dot - (hi + hj)
	if v > 0 {
		v = 0 // a squared distance made negative by rounding
	}
	return v
}

// CrossBlocks computes Cross(A, B) for many blocks of rows A against one
// B, with B's side prepared once: for an isotropic or diagonal Gaussian on
// dense rows, B's column means, its mapped rows and their half squared
// norms, which Cross recomputes (and allocates) for every block, and each
// block's result in the caller's array. Every entry has the bits Cross
// gives it (the same centring, mapping, products and exp pass, entry by
// entry). Other kernels and compressed rows go through Cross.
type CrossBlocks struct {
	k       Kernel
	B       mat.Matrix
	g       *Gaussian // nil: Cross each time
	n, d, p int
	mu, bt  []float64
	hb      []float64
}

// NewCrossBlocks prepares B for CrossBlocks.Block.
func NewCrossBlocks(k Kernel, B mat.Matrix) *CrossBlocks {
	c := &CrossBlocks{k: k, B: B}
	g, ok := k.(*Gaussian)
	if !ok || (g.kind != gaussIso && g.kind != gaussDiag) || isCSR(B) {
		return c
	}
	b, n, d := rowMajor(B)
	g.checkDim(d)
	c.g, c.n, c.d = g, n, d
	c.mu = colMeans(b, n, d)
	c.bt, c.p = g.transform(b, n, d, c.mu)
	c.hb = rowNorms2Half(c.bt, n, c.p)
	return c
}

// Block returns Cross(A, B), in buf where it has room for the m×n result.
func (c *CrossBlocks) Block(A mat.Matrix, buf []float64) *mat.Dense {
	if c.g == nil || isCSR(A) {
		return c.k.Cross(A, c.B)
	}
	a, m, da := rowMajor(A)
	if da != c.d {
		panic("kernel: Cross: A and B have different numbers of columns")
	}
	if m == 0 || c.n == 0 {
		return &mat.Dense{}
	}
	at, p := c.g.transform(a, m, da, c.mu)
	var out []float64
	if cap(buf) >= m*c.n {
		out = buf[:m*c.n]
	} else {
		out = make([]float64, m*c.n)
	}
	innerCrossTo(out, at, m, c.bt, c.n, p, expFinish(rowNorms2Half(at, m, p), c.hb, false))
	return mat.NewDense(m, c.n, out)
}
