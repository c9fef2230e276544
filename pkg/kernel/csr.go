package kernel

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// This file holds the kernels on data held in compressed rows (a
// *sparse.CSR: text-sized LIBSVM files, tens of thousands of features at a
// few dozen non-zeros a row). The isotropic and the diagonal Gaussian and
// the linear kernel read the CSR directly: the sparse route of sparse.go
// (CSR and CSC of the scaled rows, a column by scattering a row's
// non-zeros down the CSC) is built from the stored entries in O(nnz), with
// no dense scan and no base shift (the stored values are the non-zeros,
// as in LIBSVM, which computes its kernels on the same rows). A diagonal
// metric diag(q) is a column scale, √q_k per feature, as cheap as the
// isotropic one. A full metric Q (d×d: 17 GB at rcv1's 47,236 features)
// and the L1 kernel are refused (*SparseError; Rows, Gram and Cross panic
// with it, so a caller checks first with SparseSupport).
//
// The entries are the sparse route's: each the sum, in ascending feature
// order and starting from 0, of the products of the two rows' common
// non-zeros (scaled), then, for a Gaussian, exp(min(0, dot − ½‖x̃_i‖² −
// ½‖x̃_j‖²)). So a column computed whole, as a prefix or through idx, a
// Gram entry and a Cross entry of the same two rows agree to the last bit;
// and on the same data held dense, an isotropic Gaussian whose dense rows
// take the sparse route (sparseGaussRows: sparse enough, close enough to
// the origin, majority value 0 in every column) gives the same bits too
// (TestCSRMatchesDense).

// ErrSparse is wrapped by a *SparseError.
var ErrSparse = errors.New("kernel does not compute on compressed rows")

// SparseError says that a kernel cannot compute on data held in compressed
// rows: Kind is "full" (a Gaussian with a full metric Q) or "l1", Features
// the data's number of features.
type SparseError struct {
	Kind     string
	Features int
}

func (e *SparseError) Error() string {
	switch e.Kind {
	case "full":
		return fmt.Sprintf("a Gaussian kernel with a full metric Q does not compute on sparse data (Q would be %d×%d); the isotropic, diagonal and linear kernels do", e.Features, e.Features)
	}
	return fmt.Sprintf("the %s kernel does not compute on sparse data of %d features; the isotropic, diagonal Gaussian and linear kernels do", e.Kind, e.Features)
}

func (e *SparseError) Unwrap() error { return ErrSparse }

// SparseSupport returns nil when k computes on compressed rows of d
// features (an isotropic or diagonal Gaussian, or the linear kernel), else
// a *SparseError.
func SparseSupport(k Kernel, d int) error {
	switch k := k.(type) {
	case *Gaussian:
		if k.kind != gaussFull {
			return nil
		}
		return &SparseError{Kind: "full", Features: d}
	case Linear, *Linear:
		return nil
	case *L1:
		return &SparseError{Kind: KindL1, Features: d}
	}
	return &SparseError{Kind: fmt.Sprintf("%T", k), Features: d}
}

// csrScale returns the scale of the features of a kernel on compressed rows
// of d features: s (one scale for every feature, colScale nil) or colScale
// (a diagonal metric's √q_k, 0 where q_k = 0), and whether the kernel is
// linear; it panics with a *SparseError for a kernel that does not compute
// on compressed rows. colScale comes from ws when ws is not nil.
func csrScale(k Kernel, d int, ws *RowsWorkspace) (s float64, colScale []float64, linear bool) {
	if err := SparseSupport(k, d); err != nil {
		panic(err)
	}
	g, ok := k.(*Gaussian)
	if !ok {
		return 1, nil, true
	}
	g.checkDim(d)
	if g.kind == gaussIso {
		return math.Sqrt(2 * g.gamma), nil, false
	}
	colScale = ws.scales(d)
	for c, j := range g.cols {
		colScale[j] = g.scale[c]
	}
	return 0, colScale, false
}

// csrRows builds the sparse route on the rows idx of X (all rows, in order,
// when idx is nil), each stored value v of feature k mapped to v·s (or
// v·colScale[k]); entries that are or become 0 are dropped. The row indices
// are int32. Its arrays come from ws when ws is not nil (RowsAtIn).
//
// The route keeps no compressed rows of its own: a column reads row
// idx[i] of X (row i when idx is nil) in place and scales its values as
// it goes (scatterSrc),
// the same products in the same order, so the same bits; only the
// compressed columns are built, half the arrays (on ten classes of 778
// features, 2,000 rows a pair, 7 of 15 MB held by two pairs at once; a
// sparse model's support vectors prepared for prediction, SparseCrossOf,
// 6 of 17 MB).
// Rows far wider than their non-zeros (wideCSR) keep theirs: their
// compressed rows hold the features renumbered (colOf).
func csrRows(X *sparse.CSR, idx []int, s float64, colScale []float64, linear bool, ws *RowsWorkspace) *sparseRows {
	n, d := X.Dims()
	if idx != nil {
		n = len(idx)
	}
	if n > math.MaxInt32 {
		panic(fmt.Sprintf("kernel: %d rows exceed the sparse route's int32 row indices", n))
	}
	row := func(i int) ([]int32, []float64) {
		if idx != nil {
			i = idx[i]
		}
		return X.Row(i)
	}
	scaled := func(k int32, v float64) float64 {
		if colScale != nil {
			return v * colScale[k]
		}
		return v * s
	}
	// Count each feature's non-zeros: over all d features, or, on rows
	// far wider than their non-zeros (hashed features: millions of columns
	// at a few dozen entries a row), over the features set only, numbered
	// in order of first appearance (colOf), so that nothing is O(d).
	var (
		colNNZ []int
		colOf  map[int32]int32
		nnz    int
	)
	if wideCSR(X, idx, d) {
		colOf = make(map[int32]int32)
		for i := 0; i < n; i++ {
			ind, val := row(i)
			for p, k := range ind {
				if scaled(k, val[p]) == 0 {
					continue
				}
				c, ok := colOf[k]
				if !ok {
					c = int32(len(colNNZ))
					colOf[k] = c
					colNNZ = append(colNNZ, 0)
				}
				colNNZ[c]++
				nnz++
			}
		}
	} else {
		colNNZ = ws.counts(d)
		for i := 0; i < n; i++ {
			ind, val := row(i)
			for p, k := range ind {
				if scaled(k, val[p]) != 0 {
					colNNZ[k]++
					nnz++
				}
			}
		}
	}
	var work float64
	for _, c := range colNNZ {
		work += float64(c) * float64(c)
	}
	u := len(colNNZ) // the route's columns: d, or the features set
	inPlace := colOf == nil
	r := ws.rows(n, u, nnz, !inPlace)
	r.d = d
	r.colOf = colOf
	if inPlace {
		r.src, r.srcIdx = X, idx
	}
	r.s, r.scale, r.linear = s, colScale, linear
	r.cost = 16
	if n > 0 {
		r.cost += int(work / float64(n) / float64(n))
	}
	for k, c := range colNNZ {
		r.colPtr[k+1] = r.colPtr[k] + c
	}
	next := colNNZ // reused as the next free place of each column
	copy(next, r.colPtr[:u])
	p := 0
	for i := 0; i < n; i++ {
		ind, val := row(i)
		var hh float64
		for q, k := range ind {
			v := scaled(k, val[q])
			if v == 0 {
				continue
			}
			if colOf != nil {
				k = colOf[k]
			}
			if inPlace {
				c := next[k]
				r.colRow[c], r.colVal[c] = int32(i), v
				next[k]++
			} else {
				r.put(p, i, k, v, next)
			}
			p++
			hh += v * v
		}
		if !inPlace {
			r.rowPtr[i+1] = p
		}
		r.h[i] = hh / 2
	}
	r.noteConstColumns(ws)
	r.noteBits(ws)
	return r
}

// wideCSR reports whether the rows idx of X (all of them when nil) have
// far fewer non-zeros than X has features (d > 2·nnz + 65,536), so that the
// sparse route numbers only the features set rather than hold arrays of d.
// Text data of 47,236 words at 60 a row keeps the arrays indexed by feature
// (a lookup per entry is cheaper than a map's); a hashed-feature file of 67
// million columns at 20 a row does not.
func wideCSR(X *sparse.CSR, idx []int, d int) bool {
	if d <= 65536 {
		return false
	}
	nnz := 0
	if idx == nil {
		nnz = X.NNZ()
	} else {
		for _, i := range idx {
			ind, _ := X.Row(i)
			nnz += len(ind)
		}
	}
	return d > 2*nnz+65536
}

// asCSR returns X as compressed rows: itself when it is a *sparse.CSR, else
// its non-zeros (sparse.FromDense).
func asCSR(X mat.Matrix) *sparse.CSR {
	if s, ok := X.(*sparse.CSR); ok {
		return s
	}
	return sparse.FromDense(X)
}

// isCSR reports whether X is held in compressed rows.
func isCSR(X mat.Matrix) bool {
	_, ok := X.(*sparse.CSR)
	return ok
}

// rowsCSR is Kernel.Rows of k on compressed rows.
func rowsCSR(k Kernel, X *sparse.CSR) Matrix {
	_, d := X.Dims()
	s, colScale, linear := csrScale(k, d, nil)
	return csrRows(X, nil, s, colScale, linear, nil)
}

// gramCSR is Kernel.Gram of k on compressed rows: each row of the result is
// the route's column, so the matrix is symmetric to the last bit.
func gramCSR(k Kernel, X *sparse.CSR) *mat.SymDense {
	r := rowsCSR(k, X).(*sparseRows)
	n := r.n
	if n == 0 {
		return &mat.SymDense{}
	}
	c := make([]float64, n*n)
	parallelFor(n, workers(n*n), func(i int) { r.Column(i, nil, c[i*n:(i+1)*n]) })
	return mat.NewSymDense(n, c)
}

// crossCSR is Kernel.Cross of k when A or B is held in compressed rows (the
// other is taken as its non-zeros).
func crossCSR(k Kernel, A, B mat.Matrix) *mat.Dense {
	m, da := A.Dims()
	n, db := B.Dims()
	if da != db {
		panic("kernel: Cross: A and B have different numbers of columns")
	}
	if m == 0 || n == 0 {
		return &mat.Dense{}
	}
	c := &SparseCross{r: rowsCSR(k, asCSR(B)).(*sparseRows)}
	dst := mat.NewDense(m, n, nil)
	c.Block(asCSR(A), dst)
	return dst
}

// SparseCrossOf returns the compressed rows B prepared for kernel blocks of
// k against any number of other rows (a model's support vectors against
// the points it predicts), or a *SparseError for a kernel that does not
// compute on compressed rows.
func SparseCrossOf(k Kernel, B *sparse.CSR) (*SparseCross, error) {
	_, d := B.Dims()
	if err := SparseSupport(k, d); err != nil {
		return nil, err
	}
	return &SparseCross{r: rowsCSR(k, B).(*sparseRows)}, nil
}

// Len returns the number of rows B.
func (c *SparseCross) Len() int { return c.r.n }

// blockCSR is Block for rows held in compressed rows: row i of dst is the
// scatter of a_i's scaled non-zeros down B's compressed columns, in
// ascending feature order (the columns' own sums), then the kernel's
// finish. Rows are spread over the cores.
func (c *SparseCross) blockCSR(A *sparse.CSR, dst *mat.Dense) {
	r := c.r
	m, _ := A.Dims()
	parallelFor(m, workers(m*r.n), func(i int) {
		ind, val := A.Row(i)
		out := dst.RawRowView(i)
		clear(out)
		var ha float64
		for p, k := range ind {
			v := r.mapped(int(k), val[p])
			if v == 0 {
				continue
			}
			ha += v * v
			r.scatterFeature(k, v, out)
		}
		r.finishRow(ha/2, out)
	})
}

// mapped returns the value v of feature k as the route stores it: less the
// column's base (dense rows only), scaled.
func (r *sparseRows) mapped(k int, v float64) float64 {
	if r.base != nil {
		if v == r.base[k] {
			return 0
		}
		v -= r.base[k]
	}
	if r.scale != nil {
		return v * r.scale[k]
	}
	return v * r.s
}

// scatterFeature adds v·x̃_jk to out[j] for every row j with feature k set.
func (r *sparseRows) scatterFeature(k int32, v float64, out []float64) {
	if r.colOf != nil {
		c, ok := r.colOf[k]
		if !ok {
			return // a feature no row of the route has
		}
		k = c
	}
	rows := r.colRow[r.colPtr[k]:r.colPtr[k+1]]
	vals := r.colVal[r.colPtr[k]:r.colPtr[k+1]]
	for p, j := range rows {
		out[j] += v * vals[p]
	}
}

// finishRow turns the dot products of a row a (ha = ½‖ã‖²) with every row
// of the route into kernel values (a Gaussian's exp pass; nothing for the
// linear kernel).
func (r *sparseRows) finishRow(ha float64, out []float64) {
	if r.linear {
		return
	}
	for j, dot := range out {
		out[j] = gaussArg(dot, ha, r.h[j])
	}
	expNonPosSlice(out)
}

// rowsAtCSR is RowsAtIn on compressed rows.
func rowsAtCSR(k Kernel, X *sparse.CSR, idx []int, ws *RowsWorkspace) Matrix {
	_, d := X.Dims()
	s, colScale, linear := csrScale(k, d, ws)
	return csrRows(X, idx, s, colScale, linear, ws)
}
