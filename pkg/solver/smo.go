package solver

import (
	"context"
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// Bound status of a variable (LIBSVM's alpha_status).
const (
	atLower uint8 = iota
	atUpper
	free
)

// smo is LIBSVM's Solver state. Variables live in a permuted order: the
// active (not shrunk) ones are the prefix [0, active) and perm maps a position
// to the caller's index. Permuting, as LIBSVM does, rather than keeping a list
// of active indices, keeps every O(n) inner loop (gradient update, WSS,
// shrinking) a contiguous sweep over dense slices with no index indirection,
// which is what makes SMO iterations cheap; the price is swapping entries of
// the cached columns when a variable is shrunk (cache.swap, applied lazily),
// which happens at most a few times per variable per solve.
type smo struct {
	n, active int
	eps       float64
	shrink    bool
	unshrunk  bool // LIBSVM's "unshrink": the one final unshrink has happened

	y      []float64 // ±1
	alpha  []float64
	g      []float64 // ∇f = Pα + p
	gbar   []float64 // Ḡ_i = Σ_{j at upper bound} C_j P_ij
	p      []float64
	c      []float64
	qd     []float64 // P_ii = Q_ii
	status []uint8
	perm   []int // position → original index

	// up[t] = -y_t when t is in I_up (y_tα_t can grow), low[t] = y_t when t
	// is in I_low (it can shrink), NaN otherwise: -y_t G_t is up[t]·G_t
	// exactly (a sign flip), and NaN fails every comparison, so the WSS
	// sweeps test set membership and sign with no branch on y or status.
	up, low []float64

	cache *cache
	iter  int

	// The first pass of WSS3 (i = argmax over I_up of -y_t G_t) is fused
	// into the gradient update loop of the previous iteration; nextValid
	// says nextI/nextGmax are current (the active set has not changed).
	nextI     int
	nextGmax  float64
	nextValid bool

	blowup float64 // bound on an unbounded α_i before ErrUnbounded
}

func newSMO(pr Problem, eps float64, shrink bool, cacheBytes int, ws *Workspace, single bool) (*smo, error) {
	n := pr.Q.Len()
	m := &smo{
		n: n, active: n, eps: eps, shrink: shrink,
		y: make([]float64, n), alpha: make([]float64, n), g: make([]float64, n),
		gbar: make([]float64, n), p: make([]float64, n), c: make([]float64, n),
		qd: make([]float64, n), status: make([]uint8, n), perm: make([]int, n),
		up: make([]float64, n), low: make([]float64, n),
	}
	pmax := math.Abs(pr.Delta)
	for i := range n {
		m.perm[i] = i
		yi := 1.0
		if pr.Y != nil {
			yi = pr.Y[i]
		}
		if yi != 1 && yi != -1 {
			return nil, fmt.Errorf("solve QP: label y[%d] = %g, want ±1", i, yi)
		}
		m.y[i] = yi
		pi := -1.0
		if pr.P != nil {
			pi = pr.P[i]
		}
		if math.IsNaN(pi) || math.IsInf(pi, 0) {
			return nil, fmt.Errorf("%w: linear term p[%d] = %g", ErrNaN, i, pi)
		}
		m.p[i] = pi
		pmax = max(pmax, math.Abs(pi))
		var ci float64
		switch {
		case pr.C != nil:
			ci = pr.C[i]
		case yi > 0:
			ci = pr.Cp
		default:
			ci = pr.Cn
		}
		if !(ci > 0) {
			return nil, fmt.Errorf("solve QP: upper bound C[%d] = %g, want > 0 (or +Inf)", i, ci)
		}
		m.c[i] = ci
		d := pr.Q.Diag(i)
		if math.IsNaN(d) || math.IsInf(d, 0) {
			return nil, fmt.Errorf("%w: kernel diagonal K[%d,%d] = %g", ErrNaN, i, i, d)
		}
		m.qd[i] = d
	}
	if math.IsNaN(pr.Delta) || math.IsInf(pr.Delta, 0) {
		return nil, fmt.Errorf("%w: Δ = %g", ErrInfeasible, pr.Delta)
	}
	if err := m.initAlpha(pr); err != nil {
		return nil, err
	}
	m.cache = newCacheOf(pr.Q, m.perm, m.y, cacheBytes, ws, single)
	if single {
		for _, d := range m.qd {
			m.cache.maxAbs = max(m.cache.maxAbs, math.Abs(d))
		}
	}

	// Scale for the blow-up test: an unbounded α_i beyond
	// blowupFactor·max(|p|,|Δ|)/scale means the objective has no minimum.
	scale := 0.0
	for _, d := range m.qd {
		scale = max(scale, math.Abs(d))
	}
	if scale == 0 { // e.g. the L1 kernel, K_ii = 0: use the first column
		for _, v := range m.cache.get(0, n) {
			scale = max(scale, math.Abs(v))
		}
	}
	if pmax == 0 {
		pmax = 1
	}
	m.blowup = math.Inf(1)
	if scale > 0 {
		m.blowup = blowupFactor * pmax / scale
	}
	return m, nil
}

// initAlpha sets α from the warm start (checked for feasibility) or builds a
// feasible starting point: 0 when Δ = 0, otherwise Δ poured into variables of
// sign(Δ) in index order, each up to C_i (as LIBSVM's one-class start), so the
// initial gradient needs few kernel columns.
func (m *smo) initAlpha(pr Problem) error {
	n := m.n
	if pr.Alpha0 != nil {
		sum, scale := 0.0, math.Abs(pr.Delta)
		for i, a := range pr.Alpha0 {
			if math.IsNaN(a) || math.IsInf(a, 0) || a < 0 || a > m.c[i] {
				return fmt.Errorf("%w: warm start α[%d] = %g outside [0, %g]", ErrInfeasible, i, a, m.c[i])
			}
			m.alpha[i] = a
			sum += m.y[i] * a
			scale = max(scale, a)
		}
		if math.Abs(sum-pr.Delta) > 1e-9*max(1, scale)*math.Sqrt(float64(n)) {
			return fmt.Errorf("%w: warm start has yᵀα = %g, want Δ = %g", ErrInfeasible, sum, pr.Delta)
		}
	} else if pr.Delta != 0 {
		sign := math.Copysign(1, pr.Delta)
		rest := math.Abs(pr.Delta)
		for i := 0; i < n && rest > 0; i++ {
			if m.y[i] != sign {
				continue
			}
			a := min(m.c[i], rest)
			m.alpha[i] = a
			rest -= a
		}
		if rest > 1e-12*math.Abs(pr.Delta) {
			return fmt.Errorf("%w: no 0 ≤ α ≤ C has yᵀα = Δ = %g", ErrInfeasible, pr.Delta)
		}
	}
	for i := range n {
		m.updateStatus(i)
	}
	return nil
}

func (m *smo) updateStatus(i int) {
	switch {
	case m.alpha[i] >= m.c[i]:
		m.status[i] = atUpper
	case m.alpha[i] <= 0:
		m.status[i] = atLower
	default:
		m.status[i] = free
	}
	nan := math.NaN()
	m.up[i], m.low[i] = -m.y[i], m.y[i]
	switch {
	case m.status[i] == atUpper && m.y[i] > 0, m.status[i] == atLower && m.y[i] < 0:
		m.up[i] = nan
	case m.status[i] == atLower && m.y[i] > 0, m.status[i] == atUpper && m.y[i] < 0:
		m.low[i] = nan
	}
}

// initGradient computes G = Pα + p and Ḡ from the columns of the non-zero α.
// It checks ctx first and every 1000 columns.
func (m *smo) initGradient(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	n := m.n
	copy(m.g, m.p)
	clear(m.gbar)
	if c := m.cache; c.stored != nil && c.cols32 == nil && c.identity {
		return m.initGradientStored(ctx)
	}
	cnt := 0
	for i := range n {
		if m.status[i] == atLower {
			continue
		}
		if cnt++; cnt%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		qi := m.cache.get(i, n)
		axpy(m.alpha[i], qi, m.g)
		if m.status[i] == atUpper {
			axpy(m.c[i], qi, m.gbar)
		}
	}
	return nil
}

// initGradientStored is initGradient on a kernel held in memory in double
// precision (the dense route of the grid's cross-validation): each column
// read where it lies, signed as it is added, not copied into the cache
// first. Every G_k and Ḡ_k is the sum initGradient forms, in the same
// order, to the last bit: Σ_i α_i·(K_ik·(y_i y_k)) over i ascending, the
// cache's column entry inside the parentheses. The columns read are
// counted as the cache counts the ones it computes (Result.Columns); the
// cache does not keep them, so a column the solve then asks for is read
// again (a warm start reads one per support vector, and the solve asks
// for few of the bounded ones).
func (m *smo) initGradientStored(ctx context.Context) error {
	n, c := m.n, m.cache
	y, g, gbar := m.y[:n], m.g[:n], m.gbar[:n]
	z := 0.0
	cnt := 0
	for i := range n {
		if m.status[i] == atLower {
			continue
		}
		if cnt++; cnt%1000 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		col := c.stored.StoredColumn(i)[:n]
		c.misses++
		c.entries += int64(n)
		a, yi := m.alpha[i], y[i]
		upper := m.status[i] == atUpper
		ci := m.c[i]
		switch {
		case !c.sign:
			for k, v := range col {
				z += v - v
				g[k] += a * v
			}
			if upper {
				for k, v := range col {
					gbar[k] += ci * v
				}
			}
		default:
			z += signedAdd(g, col, y, a, yi)
			if upper {
				signedAdd(gbar, col, y, ci, yi)
			}
		}
	}
	if z != 0 {
		c.nonFinite = true
	}
	return nil
}

// axpy sets y += a·x.
func axpy(a float64, x, y []float64) {
	y = y[:len(x)]
	for k, v := range x {
		y[k] += a * v
	}
}

// solve runs SMO from the state initGradient built.
func (m *smo) solve(ctx context.Context, maxIter int) (status.Status, error) {
	counter := min(m.n, 1000) + 1
	st := status.IterationLimit
	for m.iter < maxIter {
		if counter--; counter == 0 {
			counter = min(m.n, 1000)
			if err := ctx.Err(); err != nil {
				m.unshrinkAll()
				return status.Canceled, err
			}
			if m.cache.nonFinite {
				m.unshrinkAll()
				return status.Failure, fmt.Errorf("%w, seen at iteration %d", m.cache.rangeErr(), m.iter)
			}
			if m.shrink {
				m.doShrinking()
			}
		}
		i, j, qi, ok := m.selectWorkingSet()
		if !ok {
			// Optimal on the active set: reconstruct the whole gradient and
			// check again on all variables.
			m.unshrinkAll()
			i, j, qi, ok = m.selectWorkingSet()
			if !ok {
				st = status.Converged
				break
			}
			counter = 1 // shrink at the next iteration
		}
		m.iter++
		if err := m.update(i, j, qi); err != nil {
			m.unshrinkAll()
			return status.Failure, err
		}
	}
	if st != status.Converged {
		m.unshrinkAll()
	}
	if err := m.cache.rangeErr(); err != nil {
		return status.Failure, err
	}
	for k, v := range m.g {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return status.Failure, fmt.Errorf("%w: gradient entry %d = %g at iteration %d", ErrNaN, m.perm[k], v, m.iter)
		}
	}
	return st, nil
}

func (m *smo) unshrinkAll() {
	m.reconstructGradient()
	m.active = m.n
	m.nextValid = false
}

// selectWorkingSet is WSS3 (Fan, Chen & Lin 2005, Algorithm 2; LIBSVM's
// Solver::select_working_set): i maximises -y_i∇f_i over I_up, j minimises the
// second-order decrease -b²/a over I_low with b > 0, a = K_ii+K_jj-2K_ij
// (τ when a ≤ 0). ok is false when the maximal violation m(α)-M(α) < eps.
// qi is column i's active part, for update.
func (m *smo) selectWorkingSet() (outI, outJ int, qi column, ok bool) {
	act := m.active
	g, up, low := m.g[:act], m.up[:act], m.low[:act]
	gmax, gmax2 := math.Inf(-1), math.Inf(-1)
	gmaxIdx, gminIdx := -1, -1
	if m.nextValid {
		gmax, gmaxIdx = m.nextGmax, m.nextI
	} else {
		for t, u := range up {
			if v := u * g[t]; v >= gmax {
				gmax, gmaxIdx = v, t
			}
		}
	}
	i := gmaxIdx
	if i != -1 {
		qi = m.cache.getCol(i, act)
		gmax2, gminIdx = lowPassCol(g, low, m.qd[:act], qi, gmax, m.qd[i], 2*m.y[i])
	}
	if gmax+gmax2 < m.eps || gminIdx == -1 {
		return 0, 0, column{}, false
	}
	return gmaxIdx, gminIdx, qi, true
}

// update solves the two-variable subproblem on (i, j) analytically with
// clipping to the box (LIBSVM's Solver::Solve loop body) and updates G and Ḡ.
// qi is column i's active part, as selectWorkingSet returned it: the cache's
// most recent column, so the get of column j leaves it in place.
func (m *smo) update(i, j int, qi column) error {
	act := m.active
	qj := m.cache.getCol(j, act)
	a := m.alpha
	ci, cj := m.c[i], m.c[j]
	oldI, oldJ := a[i], a[j]
	if m.y[i] != m.y[j] {
		quad := m.qd[i] + m.qd[j] + 2*qi.at(j)
		if quad <= 0 {
			quad = tau
		}
		delta := (-m.g[i] - m.g[j]) / quad
		diff := a[i] - a[j]
		a[i] += delta
		a[j] += delta
		if diff > 0 {
			if a[j] < 0 {
				a[j], a[i] = 0, diff
			}
		} else if a[i] < 0 {
			a[i], a[j] = 0, -diff
		}
		// diff > C_i - C_j decides which upper bound binds first; with both
		// bounds infinite neither does (and C_i - C_j would be NaN).
		switch {
		case math.IsInf(ci, 1) && math.IsInf(cj, 1):
		case diff > ci-cj:
			if a[i] > ci {
				a[i], a[j] = ci, ci-diff
			}
		default:
			if a[j] > cj {
				a[j], a[i] = cj, cj+diff
			}
		}
	} else {
		quad := m.qd[i] + m.qd[j] - 2*qi.at(j)
		if quad <= 0 {
			quad = tau
		}
		delta := (m.g[i] - m.g[j]) / quad
		sum := a[i] + a[j]
		a[i] -= delta
		a[j] += delta
		if sum > ci {
			if a[i] > ci {
				a[i], a[j] = ci, sum-ci
			}
		} else if a[j] < 0 {
			a[j], a[i] = 0, sum
		}
		if sum > cj {
			if a[j] > cj {
				a[j], a[i] = cj, sum-cj
			}
		} else if a[i] < 0 {
			a[i], a[j] = 0, sum
		}
	}
	// Only an unbounded variable can run away; a finite C bounds the problem.
	if (a[i] > m.blowup && math.IsInf(ci, 1)) || (a[j] > m.blowup && math.IsInf(cj, 1)) {
		k := i
		if a[j] > a[i] {
			k = j
		}
		return fmt.Errorf("%w: α[%d] = %.3g beyond %.3g at iteration %d", ErrUnbounded, m.perm[k], a[k], m.blowup, m.iter)
	}

	dai, daj := a[i]-oldI, a[j]-oldJ
	ui, uj := m.status[i] == atUpper, m.status[j] == atUpper
	m.updateStatus(i)
	m.updateStatus(j)

	// G += P_i Δα_i + P_j Δα_j, and in the same sweep the first half of the
	// next WSS3: argmax of -y_t G_t over I_up (ties to the last, as LIBSVM).
	gmax, gmaxIdx := gradPassCol(m.g[:act], qi, qj, m.up[:act], dai, daj)
	m.nextGmax, m.nextI, m.nextValid = gmax, gmaxIdx, true

	m.updateGbar(i, ui)
	m.updateGbar(j, uj)
	return nil
}

// updateGbar keeps Ḡ = Σ_{j at upper bound} C_j P_j when variable k has
// reached or left its upper bound (wasUpper is its status before the step).
func (m *smo) updateGbar(k int, wasUpper bool) {
	if wasUpper == (m.status[k] == atUpper) {
		return
	}
	c := m.c[k]
	if wasUpper {
		c = -c
	}
	axpy(c, m.cache.get(k, m.n), m.gbar)
}

// beShrunk is LIBSVM's Solver::be_shrunk.
func (m *smo) beShrunk(i int, gmax1, gmax2 float64) bool {
	switch m.status[i] {
	case atUpper:
		if m.y[i] > 0 {
			return -m.g[i] > gmax1
		}
		return -m.g[i] > gmax2
	case atLower:
		if m.y[i] > 0 {
			return m.g[i] > gmax2
		}
		return m.g[i] > gmax1
	}
	return false
}

// doShrinking is LIBSVM's Solver::do_shrinking: variables at a bound whose
// gradient says they will stay there are moved out of the active prefix; the
// first time the violation falls below 10·eps the full gradient is
// reconstructed once and everything is unshrunk.
func (m *smo) doShrinking() {
	m.nextValid = false
	gmax1, gmax2 := math.Inf(-1), math.Inf(-1)
	for i := range m.active {
		if m.y[i] > 0 {
			if m.status[i] != atUpper && -m.g[i] >= gmax1 {
				gmax1 = -m.g[i]
			}
			if m.status[i] != atLower && m.g[i] >= gmax2 {
				gmax2 = m.g[i]
			}
		} else {
			if m.status[i] != atUpper && -m.g[i] >= gmax2 {
				gmax2 = -m.g[i]
			}
			if m.status[i] != atLower && m.g[i] >= gmax1 {
				gmax1 = m.g[i]
			}
		}
	}
	if !m.unshrunk && gmax1+gmax2 <= m.eps*10 {
		m.unshrunk = true
		m.unshrinkAll()
	}
	for i := 0; i < m.active; i++ {
		if !m.beShrunk(i, gmax1, gmax2) {
			continue
		}
		m.active--
		for m.active > i {
			if !m.beShrunk(m.active, gmax1, gmax2) {
				m.swap(i, m.active)
				break
			}
			m.active--
		}
	}
}

func (m *smo) swap(i, j int) {
	m.cache.swap(i, j)
	m.y[i], m.y[j] = m.y[j], m.y[i]
	m.alpha[i], m.alpha[j] = m.alpha[j], m.alpha[i]
	m.g[i], m.g[j] = m.g[j], m.g[i]
	m.gbar[i], m.gbar[j] = m.gbar[j], m.gbar[i]
	m.p[i], m.p[j] = m.p[j], m.p[i]
	m.c[i], m.c[j] = m.c[j], m.c[i]
	m.qd[i], m.qd[j] = m.qd[j], m.qd[i]
	m.status[i], m.status[j] = m.status[j], m.status[i]
	m.up[i], m.up[j] = m.up[j], m.up[i]
	m.low[i], m.low[j] = m.low[j], m.low[i]
	m.perm[i], m.perm[j] = m.perm[j], m.perm[i]
}

// reconstructGradient is LIBSVM's Solver::reconstruct_gradient: G of the
// inactive variables from Ḡ + p plus the free variables' contributions, by
// whichever loop order touches fewer kernel entries.
func (m *smo) reconstructGradient() {
	act, n := m.active, m.n
	if act == n {
		return
	}
	for j := act; j < n; j++ {
		m.g[j] = m.gbar[j] + m.p[j]
	}
	nFree := 0
	for j := range act {
		if m.status[j] == free {
			nFree++
		}
	}
	if nFree*n > 2*act*(n-act) {
		for i := act; i < n; i++ {
			qi := m.cache.get(i, act)
			s := 0.0
			for j := range act {
				if m.status[j] == free {
					s += m.alpha[j] * qi[j]
				}
			}
			m.g[i] += s
		}
	} else {
		for i := range act {
			if m.status[i] != free {
				continue
			}
			qi := m.cache.get(i, n)
			axpy(m.alpha[i], qi[act:n], m.g[act:n])
		}
	}
}

// rho is LIBSVM's Solver::calculate_rho: the mean of y_i∇f_i over free
// variables, else the midpoint of the feasible interval.
func (m *smo) rho() float64 {
	ub, lb := math.Inf(1), math.Inf(-1)
	nFree, sumFree := 0, 0.0
	for i := range m.active {
		yg := m.y[i] * m.g[i]
		switch {
		case m.status[i] == atUpper:
			if m.y[i] < 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		case m.status[i] == atLower:
			if m.y[i] > 0 {
				ub = min(ub, yg)
			} else {
				lb = max(lb, yg)
			}
		default:
			nFree++
			sumFree += yg
		}
	}
	switch {
	case nFree > 0:
		return sumFree / float64(nFree)
	case math.IsInf(ub, 1) && math.IsInf(lb, -1):
		return 0
	case math.IsInf(ub, 1):
		return lb
	case math.IsInf(lb, -1):
		return ub
	}
	return (ub + lb) / 2
}

// result returns the solution in the caller's order.
func (m *smo) result(st status.Status) Result {
	n := m.n
	r := Result{Alpha: make([]float64, n), G: make([]float64, n), Iter: m.iter, Status: st}
	obj := 0.0
	for k := range n {
		obj += m.alpha[k] * (m.g[k] + m.p[k])
		r.Alpha[m.perm[k]] = m.alpha[k]
		r.G[m.perm[k]] = m.g[k]
	}
	r.Obj = obj / 2
	r.Rho = m.rho()
	r.Gap = m.gap()
	r.Columns, r.Entries = m.cache.misses, m.cache.entries
	return r
}

// gap returns m(α) - M(α) = max over I_up of -y_t G_t minus min over I_low
// (0 when either set is empty).
func (m *smo) gap() float64 {
	up, low := math.Inf(-1), math.Inf(1)
	for t := range m.active {
		v := -m.y[t] * m.g[t]
		if (m.y[t] > 0 && m.status[t] != atUpper) || (m.y[t] < 0 && m.status[t] != atLower) {
			up = max(up, v)
		}
		if (m.y[t] > 0 && m.status[t] != atLower) || (m.y[t] < 0 && m.status[t] != atUpper) {
			low = min(low, v)
		}
	}
	if math.IsInf(up, 0) || math.IsInf(low, 0) {
		return 0
	}
	return max(up-low, 0)
}
