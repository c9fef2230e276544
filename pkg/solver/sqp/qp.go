package sqp

import (
	"errors"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// errQPInfeasible is returned by the QP solver when the constraints of the
// subproblem cannot be satisfied (the dual step is unbounded).
var errQPInfeasible = errors.New("QP subproblem is infeasible")

// errQPLimit is returned when the dual active-set method exceeds its
// iteration limit (cycling caused by rounding).
var errQPLimit = errors.New("QP subproblem iteration limit")

// qpProblem is the strictly convex quadratic program
//
//	min ½ xᵀGx + aᵀx  s.t.  A_k x = b_k (k < neq),  A_k x ≥ b_k (neq ≤ k < m),
//	                        lo ≤ x ≤ hi,
//
// with G = L Lᵀ given by the inverse factor Linv = L⁻¹ (lower triangular,
// row-major n×n). Bounds of ±Inf are absent.
type qpProblem struct {
	n    int
	linv []float64 // L⁻¹, row-major n×n, lower triangular
	nlin int       // linv's trailing nlin rows are zero off the diagonal (0: not known)
	a    []float64
	A    []float64 // m×n row-major
	b    []float64
	m    int
	neq  int
	lo   []float64
	hi   []float64
}

// qpResult holds the solution and the multipliers of a QP.
type qpResult struct {
	x      []float64
	lambda []float64 // general constraints (≥ 0 for inequalities)
	mu     []float64 // bounds: lower multiplier minus upper multiplier
}

// gi is the dual active-set method of Goldfarb & Idnani (1983, Math. Prog. 27,
// 1–33) with the numerically stable update of the factors J = L⁻ᵀQ and R
// (Powell 1985): starting from the unconstrained minimum it adds violated
// constraints one at a time, dropping active constraints whose multipliers
// would turn negative, so every iterate is dual feasible and the first primal
// feasible iterate is optimal.
//
// Constraint ids: k < m are the general rows, m+j is x_j ≥ lo_j and m+n+j is
// -x_j ≥ -hi_j. The rows of the general constraints are scanned for their
// non-zero entries once, so structured (sparse) constraint matrices cost
// O(nnz) per product.
//
// Sparsity of the factors. On slack-structured problems (Problem.NumLinear:
// G = diag(G₁, D) with a small G₁, constraints with a few non-zeros each) J
// starts diagonal but for G₁'s block and stays sparse: a constraint added
// or dropped rotates only the rows of J it touches. Measured on twolevel's
// QPs (a1a, 1,072 variables) at the end of a solve, 2–3 % of Jᵀ's entries
// and 4 % of R's upper triangle are non-zero, and 80 % of R's rows have
// nothing off the diagonal, but the non-zeros are scattered (R's columns
// are in the order the constraints were added). So Jᵀ and R stay dense
// arrays, and each row also lists the columns where it may be non-zero
// (jcol, rcol; sorted): rotations, swaps, column shifts, axpys and dot
// products run over the listed columns only; a rotation with c = 0 (90 %
// of a drop's, on twolevel's QPs) swaps two rows; a row whose list grows
// past n/denseFrac is held dense again (jdense, rdense), as all rows are
// where the factors fill in. The arithmetic is the dense
// code's, on the same numbers in the same order: a rotation, a shift or an
// axpy is element-wise, and a dot product is summed in floats.Dot's lanes
// (dotList). What is skipped is products with an exact zero, which leave a
// sum's bits as they are (a zero term can change only the sign of a zero
// sum, and nothing here divides by such a sum). full switches the lists
// off (every row dense): the reference the tests compare with.
type gi struct {
	p  *qpProblem
	n  int
	jt [][]float64 // Jᵀ by rows: row i is column i of J
	r  [][]float64 // R by rows, upper triangular n×n (leading q×q used)
	q  int

	active []int     // active constraint ids, in R's column order
	u      []float64 // multipliers of the active constraints
	isAct  []bool
	flip   []bool // equality used with reversed sign

	nz    [][]int     // non-zero columns of each general row
	nzv   [][]float64 // their values
	nrm   []float64   // Euclidean norms of the general rows
	x     []float64
	d, z  []float64
	rv    []float64
	iters int

	full   bool      // the dense method throughout (the tests' reference; setFull)
	jcol   [][]int32 // row i of Jᵀ is zero outside the columns jcol[i]
	rcol   [][]int32 // row i of R (i < q) is zero outside the columns rcol[i]
	jdense []bool    // row i of Jᵀ is held dense (jcol[i] unused)
	rdense []bool    // row i of R is held dense (rcol[i] unused)
	zlo    int       // z is zero outside [zlo, zhi)
	zhi    int
	tmp    []int32 // scratch of union
	rvnz   []int32 // scratch of step: rv's non-zeros, right to left
}

// denseFrac: a rotation whose rows would list more than n/denseFrac columns
// runs on the whole rows (rotRows, in AVX2) and leaves them dense. Where the
// factors fill in (many nonlinear variables, dense constraint rows) the
// lists would cost more than the dense rows.
const denseFrac = 8

// setFull makes s the dense method: every row dense, no swaps.
func (s *gi) setFull() {
	s.full = true
	for i := range s.jdense {
		s.jdense[i], s.rdense[i] = true, true
	}
}

// tooLong reports whether lists of a and b entries are past the dense
// threshold.
func (s *gi) tooLong(a, b int) bool { return a+b > s.n/denseFrac }

// union sets s.tmp to the sorted union of the column lists a and b.
func (s *gi) union(a, b []int32) []int32 {
	u := s.tmp[:0]
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		switch {
		case a[i] < b[j]:
			u = append(u, a[i])
			i++
		case a[i] > b[j]:
			u = append(u, b[j])
			j++
		default:
			u = append(u, a[i])
			i++
			j++
		}
	}
	u = append(u, a[i:]...)
	u = append(u, b[j:]...)
	s.tmp = u
	return u
}

// colsFrom is the part of the sorted column list cols at or right of k.
func colsFrom(cols []int32, k int) []int32 {
	for len(cols) > 0 && int(cols[0]) < k {
		cols = cols[1:]
	}
	return cols
}

// scaleRow multiplies x by a at the columns cols, or everywhere if dense.
func (s *gi) scaleRow(x []float64, cols []int32, dense bool, a float64) {
	if dense {
		if a != 1 {
			floats.Scale(a, x)
		}
		return
	}
	scaleList(x, cols, a)
}

// scaleList multiplies x by a at the columns cols.
func scaleList(x []float64, cols []int32, a float64) {
	if a == 1 {
		return
	}
	for _, k := range cols {
		x[k] *= a
	}
}

// rowsOf returns n rows of length n, zero, over one array.
func rowsOf(n int) [][]float64 {
	a := make([]float64, n*n)
	rows := make([][]float64, n)
	for i := range rows {
		rows[i] = a[i*n : (i+1)*n : (i+1)*n]
	}
	return rows
}

// rotList applies [c s; -s c] to the rows x and y at the columns cols, as
// rotRowsGo does to every column (the same products and sums).
func rotList(x, y []float64, cols []int32, c, s float64) {
	for _, k := range cols {
		xi, yi := x[k], y[k]
		x[k] = c*xi + s*yi
		y[k] = -s*xi + c*yi
	}
}

// outside reports whether column j lies outside the range of row i of Jᵀ's
// listed columns (so Jᵀ[i][j] is zero; never with full).
func (s *gi) outside(i, j int) bool {
	if s.jdense[i] {
		return false
	}
	jc := s.jcol[i]
	return len(jc) == 0 || j < int(jc[0]) || j > int(jc[len(jc)-1])
}

// rotJ rotates rows a and b of Jᵀ by [c s; -s c]; both then list the union
// of their columns.
func (s *gi) rotJ(a, b int, c, sn float64) {
	ra, rb := s.jt[a], s.jt[b]
	if s.full {
		rotRows(ra, rb, c, sn)
		return
	}
	if c == 0 {
		// A signed swap: x' = s·y, y' = -s·x, the numbers the rotation
		// gives (c·x is a zero, which adds nothing to a non-zero). Most
		// rotations of a drop are these (90 % on twolevel's QPs on a1a):
		// dropping a constraint rotates every later pair of rows, and
		// where a row of R has nothing there the rotation is a swap. As
		// a union it would fill every row the chain passes.
		s.jt[a], s.jt[b] = rb, ra
		s.jcol[a], s.jcol[b] = s.jcol[b], s.jcol[a]
		s.jdense[a], s.jdense[b] = s.jdense[b], s.jdense[a]
		s.scaleRow(s.jt[a], s.jcol[a], s.jdense[a], sn)
		s.scaleRow(s.jt[b], s.jcol[b], s.jdense[b], -sn)
		return
	}
	if s.jdense[a] || s.jdense[b] || s.tooLong(len(s.jcol[a]), len(s.jcol[b])) {
		rotRows(ra, rb, c, sn)
		s.jdense[a], s.jdense[b] = true, true
		return
	}
	u := s.union(s.jcol[a], s.jcol[b])
	rotList(ra, rb, u, c, sn)
	s.jcol[a] = append(s.jcol[a][:0], u...)
	s.jcol[b] = append(s.jcol[b][:0], u...)
}

func newGI(p *qpProblem) *gi { return newGIFrom(p, nil) }

// newGIFrom is newGI reusing the n×n factors of prev, a solver of a
// problem of the same size (nil: none), whose non-zeros are listed: the
// SQP's QPs are all of one size, and allocating and clearing two dense
// n×n arrays per iteration cost more than a sparse solve.
func newGIFrom(p *qpProblem, prev *gi) *gi {
	n := p.n
	var jt, r [][]float64
	var jcol, rcol [][]int32
	var jdense, rdense []bool
	if prev != nil && prev.n == n && !prev.full {
		jt, r, jcol, rcol, jdense, rdense = prev.jt, prev.r, prev.jcol, prev.rcol, prev.jdense, prev.rdense
		for i := 0; i < n; i++ {
			if jdense[i] {
				clear(jt[i])
			}
			for _, c := range jcol[i] {
				jt[i][c] = 0
			}
			if rdense[i] {
				clear(r[i])
			}
			for _, c := range rcol[i] {
				r[i][c] = 0
			}
			jcol[i], rcol[i] = jcol[i][:0], rcol[i][:0]
			jdense[i], rdense[i] = false, false
		}
	} else {
		jt, r = rowsOf(n), rowsOf(n)
		jcol, rcol = make([][]int32, n), make([][]int32, n)
		jdense, rdense = make([]bool, n), make([]bool, n)
	}
	s := &gi{
		p: p, n: n,
		jt:     jt,
		r:      r,
		isAct:  make([]bool, p.m+2*n),
		flip:   make([]bool, p.m),
		nz:     make([][]int, p.m),
		nzv:    make([][]float64, p.m),
		nrm:    make([]float64, p.m),
		x:      make([]float64, n),
		d:      make([]float64, n),
		z:      make([]float64, n),
		rv:     make([]float64, n),
		jcol:   jcol,
		rcol:   rcol,
		jdense: jdense,
		rdense: rdense,
	}
	// Jᵀ = L⁻¹ is lower triangular, and diagonal in its trailing nlin
	// rows.
	for i := 0; i < n; i++ {
		lo := 0
		if i >= n-p.nlin {
			lo = i
		}
		for j, v := range p.linv[i*n+lo : i*n+i+1] {
			if v != 0 {
				s.jt[i][lo+j] = v
				s.jcol[i] = append(s.jcol[i], int32(lo+j))
			}
		}
	}
	for k := 0; k < p.m; k++ {
		row := p.A[k*n : (k+1)*n]
		var idx []int
		var val []float64
		for j, v := range row {
			if v != 0 {
				idx = append(idx, j)
				val = append(val, v)
			}
		}
		s.nz[k], s.nzv[k] = idx, val
		s.nrm[k] = floats.Norm(val, 2) // the row's norm (only its zeros left out)
	}
	return s
}

// dotNormal returns n_kᵀv for constraint id k (sign of a flipped equality
// included).
func (s *gi) dotNormal(k int, v []float64) float64 {
	p := s.p
	switch {
	case k < p.m:
		val := s.nzv[k]
		var t float64
		for c, j := range s.nz[k] {
			t += val[c] * v[j]
		}
		if s.flip[k] {
			return -t
		}
		return t
	case k < p.m+s.n:
		return v[k-p.m]
	default:
		return -v[k-p.m-s.n]
	}
}

// rhs returns b_k for constraint id k (sign of a flipped equality included).
func (s *gi) rhs(k int) float64 {
	p := s.p
	switch {
	case k < p.m:
		if s.flip[k] {
			return -p.b[k]
		}
		return p.b[k]
	case k < p.m+s.n:
		return p.lo[k-p.m]
	default:
		return -p.hi[k-p.m-s.n]
	}
}

// slack returns n_kᵀx - b_k.
func (s *gi) slack(k int) float64 { return s.dotNormal(k, s.x) - s.rhs(k) }

// computeD sets d = Jᵀ n_k.
func (s *gi) computeD(k int) {
	n, p := s.n, s.p
	switch {
	case k < p.m:
		sg := 1.0
		if s.flip[k] {
			sg = -1
		}
		idx, val := s.nz[k], s.nzv[k]
		for i := 0; i < n; i++ {
			if !s.jdense[i] && len(idx) > 0 {
				// Outside its columns' range the row gives sg·(+0),
				// what the sum of zero products gives.
				if jc := s.jcol[i]; len(jc) == 0 || idx[0] > int(jc[len(jc)-1]) || idx[len(idx)-1] < int(jc[0]) {
					s.d[i] = sg * 0
					continue
				}
			}
			ji := s.jt[i]
			var t float64
			for c, j := range idx {
				t += ji[j] * val[c]
			}
			s.d[i] = sg * t
		}
	case k < p.m+n:
		j := k - p.m
		for i := 0; i < n; i++ {
			if s.outside(i, j) {
				s.d[i] = 0
				continue
			}
			s.d[i] = s.jt[i][j]
		}
	default:
		j := k - p.m - n
		for i := 0; i < n; i++ {
			if s.outside(i, j) {
				s.d[i] = 0
				continue
			}
			s.d[i] = -s.jt[i][j]
		}
	}
}

// givens returns c, s, h with [c s; -s c][a; b] = [h; 0].
func givens(a, b float64) (c, s, h float64) {
	if b == 0 {
		return 1, 0, a
	}
	h = math.Hypot(a, b)
	return a / h, b / h, h
}

// rotRows applies [c s; -s c] to the pair of rows (x, y).
func rotRows(x, y []float64, c, s float64) {
	y = y[:len(x)]
	n4 := 0
	if useAVX2 && len(x) >= 4 {
		// Four entries at a time (rot_amd64.s): the same products and
		// sums, so the same bits (TestRotRowsAgrees).
		n4 = len(x) &^ 3
		rotRowsAVX2(&x[0], &y[0], n4, c, s)
	}
	rotRowsGo(x[n4:], y[n4:], c, s)
}

func rotRowsGo(x, y []float64, c, s float64) {
	y = y[:len(x)]
	for i, xi := range x {
		yi := y[i]
		x[i] = c*xi + s*yi
		y[i] = -s*xi + c*yi
	}
}

// add makes constraint k active with multiplier uk, using d = Jᵀn_k. The
// entries d_q.. are reduced to one by Givens rotations between the non-zero
// positions only (any pair of columns of J₂ may be rotated, and a column swap
// is orthogonal too), so a sparse d costs O(n·nnz) instead of O(n²).
func (s *gi) add(k int, uk float64) {
	n, q := s.n, s.q
	last := -1
	for j := n - 1; j >= q; j-- {
		if s.d[j] == 0 {
			continue
		}
		if last < 0 {
			last = j
			continue
		}
		c, sn, h := givens(s.d[j], s.d[last])
		s.d[j], s.d[last] = h, 0
		s.rotJ(j, last, c, sn)
		last = j
	}
	if last > q {
		a, b := s.jt[q], s.jt[last]
		if s.full {
			for i := range a {
				a[i], b[i] = b[i], a[i]
			}
		} else {
			s.jt[q], s.jt[last] = b, a
			s.jcol[q], s.jcol[last] = s.jcol[last], s.jcol[q]
			s.jdense[q], s.jdense[last] = s.jdense[last], s.jdense[q]
		}
		s.d[q], s.d[last] = s.d[last], 0
	}
	for i := 0; i <= q; i++ {
		if s.rdense[i] {
			s.r[i][q] = s.d[i]
			continue
		}
		// Column q is zero (the rows are zero right of the active
		// block): only its non-zeros are written.
		if s.d[i] != 0 {
			s.r[i][q] = s.d[i]
			s.rcol[i] = append(s.rcol[i], int32(q))
			s.rdense[i] = s.tooLong(len(s.rcol[i]), 0)
		}
	}
	s.active = append(s.active, k)
	s.u = append(s.u, uk)
	s.isAct[k] = true
	s.q++
}

// drop removes the active constraint at position l.
func (s *gi) drop(l int) {
	q := s.q
	s.isAct[s.active[l]] = false
	// Shift columns l+1..q-1 of R left.
	for i := 0; i < q; i++ {
		row := s.r[i]
		if s.rdense[i] {
			copy(row[l:q-1], row[l+1:q])
			row[q-1] = 0
			continue
		}
		// The same on the listed columns: column l's entry goes, each
		// c > l moves to c-1 (in increasing order, so a move lands on
		// an entry already moved or zero).
		rc := s.rcol[i]
		w := 0
		for _, c := range rc {
			switch {
			case int(c) < l:
				rc[w] = c
				w++
			case int(c) == l:
				row[c] = 0
			default:
				row[c-1], row[c] = row[c], 0
				rc[w] = c - 1
				w++
			}
		}
		s.rcol[i] = rc[:w]
	}
	// Restore triangularity: zero the sub-diagonal R[j+1][j], j = l..q-2.
	for j := l; j < q-1; j++ {
		c, sn, h := givens(s.r[j][j], s.r[j+1][j])
		if sn == 0 {
			continue
		}
		switch {
		case s.full:
			s.r[j][j], s.r[j+1][j] = h, 0
			if j+1 < q-1 {
				rotRows(s.r[j][j+1:q-1], s.r[j+1][j+1:q-1], c, sn)
			}
		case c == 0:
			// A signed swap (as in rotJ) of the rows right of column j:
			// row j+1 (its sub-diagonal becoming h) goes up, row j (its
			// entry at column j becoming 0) down.
			s.r[j], s.r[j+1] = s.r[j+1], s.r[j]
			s.rcol[j], s.rcol[j+1] = s.rcol[j+1], s.rcol[j]
			s.rdense[j], s.rdense[j+1] = s.rdense[j+1], s.rdense[j]
			s.r[j][j], s.r[j+1][j] = h, 0
			if s.rdense[j] {
				floats.Scale(sn, s.r[j][j+1:q-1])
			} else {
				scaleList(s.r[j], colsFrom(s.rcol[j], j+1), sn)
			}
			if s.rdense[j+1] {
				floats.Scale(-sn, s.r[j+1][j+1:q-1])
			} else {
				b := s.rcol[j+1]
				s.rcol[j+1] = b[:copy(b, colsFrom(b, j+1))]
				scaleList(s.r[j+1], s.rcol[j+1], -sn)
			}
		case s.rdense[j] || s.rdense[j+1] || s.tooLong(len(s.rcol[j]), len(s.rcol[j+1])):
			s.r[j][j], s.r[j+1][j] = h, 0
			rotRows(s.r[j][j+1:q-1], s.r[j+1][j+1:q-1], c, sn)
			s.rdense[j], s.rdense[j+1] = true, true
		default:
			s.r[j][j], s.r[j+1][j] = h, 0
			// Row j holds columns ≥ j, row j+1 columns ≥ j (its
			// sub-diagonal, now zero) and both lie left of q-1.
			u := s.union(colsFrom(s.rcol[j], j+1), colsFrom(s.rcol[j+1], j+1))
			rotList(s.r[j], s.r[j+1], u, c, sn)
			s.rcol[j] = append(append(s.rcol[j][:0], int32(j)), u...)
			s.rcol[j+1] = append(s.rcol[j+1][:0], u...)
		}
		s.rotJ(j, j+1, c, sn)
	}
	s.rcol[q-1] = s.rcol[q-1][:0]
	s.rdense[q-1] = s.full
	s.active = append(s.active[:l], s.active[l+1:]...)
	s.u = append(s.u[:l], s.u[l+1:]...)
	s.q--
}

// isEq reports whether constraint id k is an equality.
func (s *gi) isEq(k int) bool { return k < s.p.neq }

// step performs GI's step 2 for the violated constraint k until it is added
// (or the problem is found infeasible).
func (s *gi) step(k int) error {
	n := s.n
	var uplus float64
	sk := s.slack(k)
	for {
		s.iters++
		if s.iters > 50*(n+s.p.m)+100 {
			return errQPLimit
		}
		s.computeD(k)
		q := s.q
		// z = J₂ d₂.
		if s.zlo < s.zhi {
			clear(s.z[s.zlo:s.zhi])
		}
		s.zlo, s.zhi = n, 0
		var zn, dn float64
		for i := 0; i < n; i++ {
			dn += s.d[i] * s.d[i]
		}
		for i := q; i < n; i++ {
			di := s.d[i]
			if di == 0 {
				continue
			}
			zn += di * di
			ji := s.jt[i]
			if s.jdense[i] {
				floats.AddScaled(s.z, di, ji)
				s.zlo, s.zhi = 0, n
				continue
			}
			jc := s.jcol[i]
			if len(jc) == 0 {
				continue
			}
			for _, c := range jc {
				s.z[c] += di * ji[c]
			}
			s.zlo, s.zhi = min(s.zlo, int(jc[0])), max(s.zhi, int(jc[len(jc)-1])+1)
		}
		// r = R⁻¹ d₁ by back substitution; entries past the last non-zero
		// of d₁ are zero.
		last := q - 1
		for last >= 0 && s.d[last] == 0 {
			s.rv[last] = 0
			last--
		}
		// rvnz lists r's non-zeros found so far, right to left: where r is
		// sparser than a row of R, the sum runs over r's non-zeros.
		rvnz := s.rvnz[:0]
		for i := last; i >= 0; i-- {
			row := s.r[i]
			t := s.d[i]
			if i < last {
				// A list as long as a quarter of the window: the
				// dense sum (the same bits) is faster.
				switch rl := len(rvnz); {
				case !s.rdense[i] && 4*len(s.rcol[i]) <= last-i && len(s.rcol[i]) <= rl:
					t -= dotList(row, s.rv, i+1, last+1, s.rcol[i])
				case !s.full && 4*rl <= last-i:
					t -= dotListRev(row, s.rv, i+1, last+1, rvnz)
				default:
					t -= floats.Dot(row[i+1:last+1], s.rv[i+1:last+1])
				}
			}
			s.rv[i] = t / row[i]
			if s.rv[i] != 0 {
				rvnz = append(rvnz, int32(i))
			}
		}
		s.rvnz = rvnz
		// Partial (dual) step length.
		t1, l := math.Inf(1), -1
		for j := 0; j < q; j++ {
			if s.isEq(s.active[j]) || s.rv[j] <= 0 {
				continue
			}
			if t := s.u[j] / s.rv[j]; t < t1 {
				t1, l = t, j
			}
		}
		// Full (primal) step length.
		t2 := math.Inf(1)
		if zn > 1e-26*dn && zn > 0 {
			t2 = math.Max(-sk, 0) / zn
		}
		t := math.Min(t1, t2)
		if math.IsInf(t, 1) {
			return errQPInfeasible
		}
		for j := 0; j < q; j++ {
			s.u[j] -= t * s.rv[j]
		}
		uplus += t
		if math.IsInf(t2, 1) {
			// Dual step only: x does not move.
			s.drop(l)
			continue
		}
		if s.zlo < s.zhi {
			floats.AddScaled(s.x[s.zlo:s.zhi], t, s.z[s.zlo:s.zhi])
		}
		if t == t2 {
			s.add(k, uplus)
			return nil
		}
		s.drop(l)
		sk = s.slack(k)
	}
}

// solve runs the method. tol is the relative feasibility tolerance.
func (s *gi) solve(tol float64) (qpResult, error) {
	p, n := s.p, s.n
	// Unconstrained minimum x = -J Jᵀ a.
	for i := 0; i < n; i++ {
		ji := s.jt[i]
		if s.jdense[i] {
			c := floats.Dot(ji, p.a)
			floats.AddScaled(s.x, -c, ji)
			continue
		}
		jc := s.jcol[i]
		c := dotList(ji, p.a, 0, n, jc)
		for _, k := range jc {
			s.x[k] += -c * ji[k]
		}
	}
	// Equalities first: they never leave the active set.
	for k := 0; k < p.neq; k++ {
		if s.nrm[k] == 0 {
			if math.Abs(p.b[k]) > tol*(1+math.Abs(p.b[k])) {
				return qpResult{}, errQPInfeasible
			}
			continue
		}
		sk := s.slack(k)
		if sk > 0 {
			s.flip[k] = true
		}
		if math.Abs(sk) <= tol*(1+math.Abs(p.b[k])) {
			// Already satisfied; still make it active so the step keeps it.
			s.computeD(k)
			q := s.q
			var zn, dn float64
			for i := 0; i < n; i++ {
				dn += s.d[i] * s.d[i]
				if i >= q {
					zn += s.d[i] * s.d[i]
				}
			}
			if zn > 1e-26*dn && zn > 0 {
				s.add(k, 0)
			}
			continue
		}
		if err := s.step(k); err != nil {
			return qpResult{}, err
		}
	}
	// Inequalities: add the most violated one until none is. The violation
	// is not normalised by ‖n_k‖: for a slack z_i with the two constraints
	// z_i ≥ 0 and c_i(x) + z_i ≥ 0, the raw violations pick the one that will
	// stay active, so the active set rarely churns (normalising favoured the
	// bounds and tripled the work on slack-structured problems).
	for {
		best, bestV := -1, 0.0
		for k := p.neq; k < p.m; k++ {
			if s.isAct[k] || s.nrm[k] == 0 {
				if s.nrm[k] == 0 && p.b[k] > tol*(1+math.Abs(p.b[k])) {
					return qpResult{}, errQPInfeasible
				}
				continue
			}
			sk := s.slack(k)
			if sk < -tol*(1+math.Abs(p.b[k])) {
				if v := sk; v < bestV {
					best, bestV = k, v
				}
			}
		}
		for j := 0; j < n; j++ {
			if k := p.m + j; !s.isAct[k] && !math.IsInf(p.lo[j], -1) {
				sk := s.x[j] - p.lo[j]
				if sk < -tol*(1+math.Abs(p.lo[j])) && sk < bestV {
					best, bestV = k, sk
				}
			}
			if k := p.m + n + j; !s.isAct[k] && !math.IsInf(p.hi[j], 1) {
				sk := p.hi[j] - s.x[j]
				if sk < -tol*(1+math.Abs(p.hi[j])) && sk < bestV {
					best, bestV = k, sk
				}
			}
		}
		if best < 0 {
			break
		}
		if err := s.step(best); err != nil {
			return qpResult{}, err
		}
	}
	res := qpResult{
		x:      append([]float64(nil), s.x...),
		lambda: make([]float64, p.m),
		mu:     make([]float64, n),
	}
	for l, k := range s.active {
		switch {
		case k < p.m:
			if s.flip[k] {
				res.lambda[k] = -s.u[l]
			} else {
				res.lambda[k] = s.u[l]
			}
		case k < p.m+n:
			res.mu[k-p.m] += s.u[l]
		default:
			res.mu[k-p.m-n] -= s.u[l]
		}
	}
	return res, nil
}

// invCholFactor returns L⁻¹ (row-major) for the SPD matrix B (row-major n×n),
// exploiting a trailing diagonal block of size nlin (B = diag(B₁, D)).
func invCholFactor(b []float64, n, nlin int) ([]float64, bool) {
	return invCholFactorTo(make([]float64, n*n), b, n, nlin)
}

// invCholFactorTo is invCholFactor writing into out, which is zero but
// where an earlier call with the same n and nlin wrote (its lower
// triangle on the leading block, its diagonal after it).
func invCholFactorTo(out, b []float64, n, nlin int) ([]float64, bool) {
	nn := n - nlin
	if nn > 0 {
		sym := mat.NewSymDense(nn, nil)
		for i := 0; i < nn; i++ {
			for j := i; j < nn; j++ {
				sym.SetSym(i, j, b[i*n+j])
			}
		}
		var ch mat.Cholesky
		if !ch.Factorize(sym) {
			return nil, false
		}
		var l mat.TriDense
		ch.LTo(&l)
		if err := l.InverseTri(&l); err != nil {
			return nil, false
		}
		for i := 0; i < nn; i++ {
			for j := 0; j <= i; j++ {
				out[i*n+j] = l.At(i, j)
			}
		}
	}
	for i := nn; i < n; i++ {
		v := b[i*n+i]
		if !(v > 0) {
			return nil, false
		}
		out[i*n+i] = 1 / math.Sqrt(v)
	}
	return out, true
}

// solveQP solves the QP with Hessian factor linv.
func solveQP(p *qpProblem, tol float64) (qpResult, error) {
	return newGI(p).solve(tol)
}
