// Package sqp is a sequential quadratic programming solver for smooth
// nonlinear programs with equality, inequality and bound constraints,
//
//	min f(x)  s.t.  c_E(x) = 0,  c_I(x) ≥ 0,  l ≤ x ≤ u,
//
// with first derivatives supplied by the caller. It follows the line of
// Powell (1978) and Schittkowski's NLPQL (1985/86):
//
//   - the QP subproblem min ½dᵀBd + ∇fᵀd s.t. linearised constraints and the
//     bounds is solved by the dual active-set method of Goldfarb & Idnani (1983)
//     with Powell's stable factor updates (J = L⁻ᵀQ, R), dense, but reading only
//     the non-zero entries of each constraint row;
//   - B is a damped BFGS approximation of the Hessian of the Lagrangian
//     (Powell's damping keeps it positive definite), scaled after the first
//     step (Shanno–Phua);
//   - an inconsistent linearisation is handled as in NLPQL, by one extra
//     variable δ ∈ [0,1] that relaxes the violated constraints
//     (c + ∇cᵀd)(1-δ) with the penalty ½ρδ²;
//   - the step length comes from an Armijo search on the L1 exact penalty
//     f + Σ r_k |c_k⁻| with Powell's penalty update r ← max(|λ|, ½(r+|λ|)),
//     optionally non-monotone (the reference value is the largest of the last
//     M merit values, as NLPQLP's non-monotone search, Dai & Schittkowski 2008);
//   - it stops when the KKT residual (stationarity with the QP's multipliers,
//     feasibility, complementarity) falls below Settings.Tol.
//
// Structure: Problem.NumLinear declares trailing variables that enter the
// objective and every constraint linearly (SNOPT's "linear variables"). The
// Lagrangian's Hessian is then zero in those rows and columns, so B is kept
// block diagonal: BFGS on the leading block, a fixed small curvature on the
// linear block. This is what makes slack-variable formulations such as
// Schittkowski's eq. (12) — hundreds of slacks z_i appearing only in
// f_i(p) + z_i ≥ 0 — both well conditioned and cheap (the Cholesky factor of B
// is that of the small block). The QP's factors are n×n arrays, but each
// of their rows lists the columns where it may be non-zero, and the work
// runs over those (qp.go, gi): on slack problems J starts diagonal but for
// the small block, a dropped constraint's rotations are mostly row swaps,
// and 2–4 % of the factors end up non-zero. The numbers are the dense
// method's, bit for bit (TestSparseFactorsGiveTheDenseBits); one QP of
// 2,002 variables takes about 0.4× the dense method's CPU time
// (BenchmarkSlackQP, BENCHMARKS.md), and the factors are kept from one
// iteration to the next instead of allocated. Rows that fill in past
// n/denseFrac are held dense, so problems whose factors fill in (dense
// constraint rows) run as before.
// Before the lists, on such slack problems (three nonlinear variables, the
// shared 2-core machine at load ≈ 7, 11–12 iterations) an iteration took
// about 0.013 s at 303 variables, 0.17 s at 1,003 and 4 s at 2,403
// (TestSlackStructureScale with SQP_NT=300, 1000, 2400).
//
// Why our own code and not github.com/curioloop/optimizer (a pure-Go SLSQP):
// the problems this module solves are structured (up to ~2,500 variables of
// which all but a handful are slacks) and SLSQP's least-squares subproblem
// and full dense BFGS factor do not use that; its API has no context and no
// error return from callbacks (a callback that solves an inner optimisation
// problem can fail or be cancelled), and it is a young one-author module
// outside go.mod. The algorithm here is NLPQL's (with a Goldfarb–Idnani QP),
// the one Schittkowski's slack formulation was solved with.
package sqp

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// Problem is a nonlinear program. Func and Grad are required; the constraint
// counts may be zero.
type Problem struct {
	// Dim is the number of variables.
	Dim int
	// NumEq and NumIneq are the numbers of equality and inequality constraints.
	NumEq, NumIneq int
	// NumLinear is the number of trailing variables that enter the objective
	// and every constraint linearly (optional; 0 means none). Their block of
	// the Hessian approximation is held at Settings.LinearCurvature.
	NumLinear int
	// Lower and Upper are the bounds (nil means none; entries may be ±Inf).
	Lower, Upper []float64

	// Func returns f(x) and writes c_E(x) into eq and c_I(x) into ineq.
	Func func(x, eq, ineq []float64) (float64, error)
	// Grad writes ∇f(x) into grad and the constraint Jacobians (one row per
	// constraint, NumEq×Dim and NumIneq×Dim) into jeq and jin, which are
	// zeroed before the call. It is always called at the x of the latest
	// Func call, so a caller may reuse work done there.
	Grad func(x, grad []float64, jeq, jin *mat.Dense) error
}

// Settings configure Minimize. The zero value of every field means its
// default.
type Settings struct {
	// MaxIter is the iteration limit (default 200).
	MaxIter int
	// Tol is the KKT tolerance (default 1e-8): stationarity relative to
	// max(1, ‖∇f‖∞), the largest constraint violation relative to max(1, its
	// value at x0) (constraints that hold do not count), complementarity
	// relative to max(1, |f|).
	Tol float64
	// NonMonotone is the memory M of the non-monotone line search (default
	// 1: monotone).
	NonMonotone int
	// LinearCurvature is the diagonal of B on the Problem.NumLinear block
	// (default 1e-2). Smaller values let the slack variables move further
	// per iteration.
	LinearCurvature float64
	// Recorder, if non-nil, is called after every iteration.
	Recorder func(Iteration)
}

// Iteration describes one accepted SQP step.
type Iteration struct {
	Iter      int
	F         float64 // objective at the new point
	Merit     float64 // L1 penalty function at the new point
	KKT       float64 // stationarity residual at the previous point
	Violation float64 // constraint violation at the new point
	Step      float64 // line-search step length
	X         []float64
}

// Result is the outcome of Minimize.
type Result struct {
	X []float64
	F float64
	// LambdaEq and LambdaIneq are the multipliers of the constraints
	// (LambdaIneq ≥ 0), LambdaBound those of the bounds (positive at an
	// active lower bound, negative at an active upper bound), in the
	// convention ∇f = J_Eᵀλ_E + J_Iᵀλ_I + λ_B. They come from the last QP
	// solved: at X when Converged, Infeasible or LineSearchFailure;
	// otherwise (a limit, a cancellation, a failure) at an earlier iterate,
	// usually the one before X, or nil when no QP was solved.
	LambdaEq, LambdaIneq, LambdaBound []float64
	// KKT is the stationarity residual ‖∇f - Jᵀλ - λ_B‖∞ and
	// Complementarity Σ|λ_k c_k|, both where the multipliers were computed
	// (see above); Violation is the largest constraint violation at X.
	KKT, Violation, Complementarity float64
	// Iter counts accepted steps; FuncEvals and GradEvals the callback calls.
	Iter, FuncEvals, GradEvals int
	Status                     status.Status
}

// errNotPD: the quasi-Newton matrix lost positive definiteness to rounding.
var errNotPD = errors.New("BFGS matrix lost positive definiteness")

// ErrBadProblem reports an inconsistent Problem or start point.
var ErrBadProblem = errors.New("bad SQP problem")

// state is the point the iteration is at.
type state struct {
	x, g   []float64
	f      float64
	ce, ci []float64
	je, ji *mat.Dense
	viol   float64
}

// Minimize solves the problem from x0 (projected onto the bounds). The error
// is non-nil only when the run cannot continue: the problem or x0 is
// inconsistent (ErrBadProblem), a callback failed or returned a non-finite
// value, the context was cancelled, or the QP broke down; Result then holds
// the last point (none for ErrBadProblem).
func Minimize(ctx context.Context, p Problem, x0 []float64, s Settings) (Result, error) {
	if err := p.check(x0); err != nil {
		return Result{Status: status.Failure}, err
	}
	n, me, mi := p.Dim, p.NumEq, p.NumIneq
	if s.MaxIter <= 0 {
		s.MaxIter = 200
	}
	if s.Tol <= 0 {
		s.Tol = 1e-8
	}
	if s.NonMonotone <= 0 {
		s.NonMonotone = 1
	}
	if s.LinearCurvature <= 0 {
		s.LinearCurvature = 1e-2
	}
	// NaN passes the tests above: a NaN Tol makes every convergence test
	// false, an infinite LinearCurvature freezes the linear variables.
	if math.IsNaN(s.Tol) || math.IsInf(s.Tol, 0) || math.IsNaN(s.LinearCurvature) || math.IsInf(s.LinearCurvature, 0) {
		return Result{Status: status.Failure}, fmt.Errorf("%w: Settings.Tol = %g, LinearCurvature = %g: want finite numbers", ErrBadProblem, s.Tol, s.LinearCurvature)
	}
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i := range lo {
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if p.Lower != nil {
			lo[i] = p.Lower[i]
		}
		if p.Upper != nil {
			hi[i] = p.Upper[i]
		}
		if lo[i] > hi[i] || math.IsNaN(lo[i]) || math.IsNaN(hi[i]) {
			return Result{Status: status.Failure}, fmt.Errorf("%w: bounds of x[%d]: [%g, %g] is empty", ErrBadProblem, i, lo[i], hi[i])
		}
	}
	m := &minimizer{ctx: ctx, p: p, s: s, n: n, me: me, mi: mi, lo: lo, hi: hi}
	return m.run(x0)
}

// check reports the first inconsistency of p and x0 as ErrBadProblem.
func (p *Problem) check(x0 []float64) error {
	bad := func(format string, args ...any) error {
		return fmt.Errorf("%w: "+format, append([]any{ErrBadProblem}, args...)...)
	}
	switch {
	case p.Dim <= 0:
		return bad("Dim = %d, want > 0", p.Dim)
	case len(x0) != p.Dim:
		return bad("len(x0) = %d, want Dim = %d", len(x0), p.Dim)
	case p.Func == nil || p.Grad == nil:
		return bad("Func and Grad are required")
	case p.NumEq < 0 || p.NumIneq < 0:
		return bad("NumEq = %d, NumIneq = %d, want ≥ 0", p.NumEq, p.NumIneq)
	case p.NumLinear < 0 || p.NumLinear > p.Dim:
		return bad("NumLinear = %d, want 0 to Dim = %d", p.NumLinear, p.Dim)
	case p.Lower != nil && len(p.Lower) != p.Dim:
		return bad("len(Lower) = %d, want Dim = %d", len(p.Lower), p.Dim)
	case p.Upper != nil && len(p.Upper) != p.Dim:
		return bad("len(Upper) = %d, want Dim = %d", len(p.Upper), p.Dim)
	}
	if k := nonFinite(x0); k >= 0 {
		return bad("x0[%d] = %v", k, x0[k])
	}
	return nil
}

type minimizer struct {
	ctx    context.Context
	p      Problem
	s      Settings
	n      int
	me, mi int
	lo, hi []float64
	res    Result
	linv   []float64 // the QP's L⁻¹, n×n, kept between iterations (invCholFactorTo)
	qp     *gi       // the latest QP solver, whose factors the next reuses
}

func (m *minimizer) newState() *state {
	st := &state{
		x: make([]float64, m.n), g: make([]float64, m.n),
		ce: make([]float64, m.me), ci: make([]float64, m.mi),
	}
	if m.me > 0 {
		st.je = mat.NewDense(m.me, m.n, nil)
	}
	if m.mi > 0 {
		st.ji = mat.NewDense(m.mi, m.n, nil)
	}
	return st
}

// evalFunc and evalGrad return errors without saying where: run adds
// it with where the point was (the start or an iteration).
func (m *minimizer) evalFunc(st *state) error {
	f, err := m.p.Func(st.x, st.ce, st.ci)
	m.res.FuncEvals++
	if err != nil {
		return fmt.Errorf("evaluating the functions: %w", err)
	}
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return fmt.Errorf("objective is %v", f)
	}
	if k := nonFinite(st.ce); k >= 0 {
		return fmt.Errorf("equality constraint %d is %v", k, st.ce[k])
	}
	if k := nonFinite(st.ci); k >= 0 {
		return fmt.Errorf("inequality constraint %d is %v", k, st.ci[k])
	}
	st.f = f
	st.viol = violation(st.ce, st.ci)
	return nil
}

func (m *minimizer) evalGrad(st *state) error {
	if st.je != nil {
		st.je.Zero()
	}
	if st.ji != nil {
		st.ji.Zero()
	}
	clear(st.g)
	err := m.p.Grad(st.x, st.g, st.je, st.ji)
	m.res.GradEvals++
	if err != nil {
		return fmt.Errorf("evaluating the derivatives: %w", err)
	}
	if k := nonFinite(st.g); k >= 0 {
		return fmt.Errorf("gradient entry %d is %v", k, st.g[k])
	}
	// A non-finite Jacobian entry would reach the QP and end the run as a
	// line-search failure with no error.
	for _, j := range []struct {
		name string
		a    *mat.Dense
	}{{"equality", st.je}, {"inequality", st.ji}} {
		if j.a == nil {
			continue
		}
		r, _ := j.a.Dims()
		for i := range r {
			if k := nonFinite(j.a.RawRowView(i)); k >= 0 {
				return fmt.Errorf("derivative %d of %s constraint %d is %v", k, j.name, i, j.a.At(i, k))
			}
		}
	}
	return nil
}

// nonFinite returns the index of the first NaN or ±Inf in v, or -1.
func nonFinite(v []float64) int {
	for k, x := range v {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return k
		}
	}
	return -1
}

func violation(ce, ci []float64) float64 {
	var v float64
	for _, c := range ce {
		v = math.Max(v, math.Abs(c))
	}
	for _, c := range ci {
		v = math.Max(v, -c)
	}
	return v
}

// merit is the L1 penalty f + Σ r_k |c_k⁻|.
func merit(f float64, ce, ci, pen []float64) float64 {
	v := f
	for k, c := range ce {
		v += pen[k] * math.Abs(c)
	}
	for k, c := range ci {
		if c < 0 {
			v -= pen[len(ce)+k] * c
		}
	}
	return v
}

func (m *minimizer) finish(st *state, end status.Status, lam, mu []float64) {
	r := &m.res
	r.X = append([]float64(nil), st.x...)
	r.F = st.f
	r.Violation = st.viol
	r.Status = end
	if lam != nil {
		r.LambdaEq = append([]float64(nil), lam[:m.me]...)
		r.LambdaIneq = append([]float64(nil), lam[m.me:]...)
		r.LambdaBound = append([]float64(nil), mu...)
	}
}

// kkt returns the stationarity residual ‖g - Jᵀλ - μ‖∞ and the
// complementarity Σ|λ_k c_k| at st.
func (m *minimizer) kkt(st *state, lam, mu []float64) (stat, comp float64) {
	res := make([]float64, m.n)
	m.lagGrad(res, st, lam)
	floats.Sub(res, mu)
	for k, c := range st.ce {
		comp += math.Abs(lam[k] * c)
	}
	for k, c := range st.ci {
		comp += math.Abs(lam[m.me+k] * c)
	}
	return floats.Norm(res, math.Inf(1)), comp
}

// run is the SQP from x0 (clamped into the bounds): each iteration solves
// the QP subproblem at B (subproblem), tests convergence, updates the
// penalties, searches along the step on the L1 merit (lineSearch) and
// updates B (updateB). A failure with an updated B first retries from a
// fresh B; with a fresh B it is final.
func (m *minimizer) run(x0 []float64) (Result, error) {
	cur, err := m.start(x0)
	if err != nil {
		m.finish(cur, status.Failure, nil, nil)
		return m.res, fmt.Errorf("SQP start point: %w", err)
	}
	feasScale := math.Max(1, cur.viol)
	B := m.newHessian()
	pen := make([]float64, m.me+m.mi)
	history := []float64{}
	trial := m.newState()
	var lam, mu []float64

	// done counts accepted steps (Result.Iter); iter is the step being
	// computed. A retry from a fresh B is not a new iteration.
	for done := 0; ; {
		iter := done + 1
		m.res.Iter = done
		if err := m.ctx.Err(); err != nil {
			m.finish(cur, status.Canceled, lam, mu)
			return m.res, err
		}
		if done >= m.s.MaxIter {
			m.finish(cur, status.IterationLimit, lam, mu)
			return m.res, nil
		}

		d, qlam, qmu, delta, err := m.subproblem(cur, B.a)
		if err != nil {
			if (errors.Is(err, errQPLimit) || errors.Is(err, errNotPD)) && !B.fresh {
				B.reset()
				continue
			}
			m.finish(cur, status.Failure, lam, mu)
			return m.res, fmt.Errorf("SQP iteration %d: %w", iter, err)
		}
		lam, mu = qlam, qmu
		stat, comp := m.kkt(cur, lam, mu)
		m.res.KKT, m.res.Complementarity = stat, comp
		gscale := math.Max(1, floats.Norm(cur.g, math.Inf(1)))
		if delta < 1e-10 && stat <= m.s.Tol*gscale && cur.viol <= m.s.Tol*feasScale &&
			comp <= m.s.Tol*math.Max(1, math.Abs(cur.f)) {
			m.finish(cur, status.Converged, lam, mu)
			return m.res, nil
		}
		if delta > 1-1e-8 && floats.Norm(d, math.Inf(1)) <= m.s.Tol*(1+floats.Norm(cur.x, math.Inf(1))) {
			m.finish(cur, status.Infeasible, lam, mu)
			return m.res, nil
		}

		// Powell's penalty update.
		for k := range pen {
			a := math.Abs(lam[k])
			pen[k] = math.Max(a, 0.5*(pen[k]+a))
		}
		phi := merit(cur.f, cur.ce, cur.ci, pen)
		D := m.meritSlope(cur, d, pen)
		dnorm := floats.Norm(d, math.Inf(1))
		if D >= 0 || dnorm == 0 {
			if dnorm <= m.s.Tol*(1+floats.Norm(cur.x, math.Inf(1))) && cur.viol <= m.s.Tol*feasScale {
				// No descent left: the point is stationary to rounding.
				m.finish(cur, status.Converged, lam, mu)
				return m.res, nil
			}
			if !B.fresh {
				B.reset()
				continue
			}
			m.finish(cur, status.LineSearchFailure, lam, mu)
			return m.res, nil
		}
		history = append(history, phi)
		if len(history) > m.s.NonMonotone {
			history = history[len(history)-m.s.NonMonotone:]
		}
		ref := phi
		for _, h := range history {
			ref = math.Max(ref, h)
		}

		alpha, phit, accepted, err := m.lineSearch(cur, trial, d, pen, phi, ref, D)
		if err != nil {
			m.finish(cur, status.Failure, lam, mu)
			return m.res, fmt.Errorf("SQP iteration %d: %w", iter, err)
		}
		if !accepted {
			// Rounding-limited: the predicted decrease of the merit function
			// is below what its floating-point value can show.
			if math.Abs(D) <= 1e-12*math.Max(1, math.Abs(phi)) && cur.viol <= math.Sqrt(m.s.Tol)*feasScale {
				m.finish(cur, status.Converged, lam, mu)
				return m.res, nil
			}
			if !B.fresh {
				B.reset()
				continue
			}
			m.finish(cur, status.LineSearchFailure, lam, mu)
			return m.res, nil
		}
		if err := m.evalGrad(trial); err != nil {
			m.finish(trial, status.Failure, lam, mu)
			return m.res, fmt.Errorf("SQP iteration %d: %w", iter, err)
		}
		m.updateB(B, cur, trial, lam)

		cur, trial = trial, cur
		done++
		m.res.Iter = done
		if m.s.Recorder != nil {
			m.s.Recorder(Iteration{Iter: iter, F: cur.f, Merit: phit, KKT: stat,
				Violation: cur.viol, Step: alpha, X: append([]float64(nil), cur.x...)})
		}
	}
}

// start returns the state at x0 clamped into the bounds, its function
// values and derivatives evaluated.
func (m *minimizer) start(x0 []float64) (*state, error) {
	cur := m.newState()
	for i, v := range x0 {
		cur.x[i] = math.Min(math.Max(v, m.lo[i]), m.hi[i])
	}
	if err := m.evalFunc(cur); err != nil {
		return cur, err
	}
	return cur, m.evalGrad(cur)
}

// hessian is the SQP's n×n approximation B of the Lagrangian's Hessian
// (row-major), with the buffers of its update. fresh is true while B is
// its initial matrix (reset); scaled is bfgs's.
type hessian struct {
	a             []float64
	n, nn         int // nn: the nonlinear block's size
	linear        float64
	fresh, scaled bool
	bs, y, sv, gl []float64
}

// newHessian returns B = I on the nonlinear block and LinearCurvature on
// the linear block.
func (m *minimizer) newHessian() *hessian {
	n := m.n
	B := &hessian{a: make([]float64, n*n), n: n, nn: n - m.p.NumLinear, linear: m.s.LinearCurvature,
		bs: make([]float64, n), y: make([]float64, n), sv: make([]float64, n), gl: make([]float64, n)}
	B.reset()
	return B
}

// reset sets B to its initial matrix.
func (B *hessian) reset() {
	clear(B.a)
	for i := 0; i < B.n; i++ {
		if i < B.nn {
			B.a[i*B.n+i] = 1
		} else {
			B.a[i*B.n+i] = B.linear
		}
	}
	B.fresh, B.scaled = true, false
}

// updateB is the damped BFGS update of B on the Lagrangian (Powell 1978),
// nonlinear block only, for the step from cur to trial: y = ∇L(x⁺, λ) -
// ∇L(x, λ).
func (m *minimizer) updateB(B *hessian, cur, trial *state, lam []float64) {
	m.lagGrad(B.gl, trial, lam)
	copy(B.y, B.gl)
	m.lagGrad(B.gl, cur, lam)
	floats.Sub(B.y, B.gl)
	for i := range B.sv {
		B.sv[i] = trial.x[i] - cur.x[i]
	}
	nn := B.nn
	m.bfgs(B.a, B.sv[:nn], B.y[:nn], B.bs[:nn], &B.scaled)
	B.fresh = nn == 0
}

// meritSlope is the directional derivative bound of the L1 merit along d
// at cur: ∇fᵀd plus the change of the penalty term under the
// linearisation.
func (m *minimizer) meritSlope(cur *state, d, pen []float64) float64 {
	D := floats.Dot(cur.g, d)
	for k := 0; k < m.me; k++ {
		lin := cur.ce[k] + floats.Dot(cur.je.RawRowView(k), d)
		D += pen[k] * (math.Abs(lin) - math.Abs(cur.ce[k]))
	}
	for k := 0; k < m.mi; k++ {
		lin := cur.ci[k] + floats.Dot(cur.ji.RawRowView(k), d)
		D += pen[m.me+k] * (math.Max(0, -lin) - math.Max(0, -cur.ci[k]))
	}
	return D
}

// lineSearch is Armijo backtracking with safeguarded quadratic
// interpolation along d from cur (merit phi, slope D < 0) against the
// non-monotone reference ref: trial holds the last point tried (its
// functions evaluated), alpha its step and phit its merit; accepted is
// false when 40 tries or the rounding floor of the step were reached.
func (m *minimizer) lineSearch(cur, trial *state, d, pen []float64, phi, ref, D float64) (alpha, phit float64, accepted bool, err error) {
	dnorm := floats.Norm(d, math.Inf(1))
	alpha = 1.0
	for ls := 0; ls < 40; ls++ {
		for i := range trial.x {
			trial.x[i] = math.Min(math.Max(cur.x[i]+alpha*d[i], m.lo[i]), m.hi[i])
		}
		if err := m.evalFunc(trial); err != nil {
			return alpha, phit, false, err
		}
		phit = merit(trial.f, trial.ce, trial.ci, pen)
		if phit <= ref+1e-4*alpha*D {
			return alpha, phit, true, nil
		}
		den := 2 * (phit - phi - alpha*D)
		next := 0.1 * alpha
		if den > 0 {
			next = math.Max(next, math.Min(0.5*alpha, -D*alpha*alpha/den))
		}
		alpha = next
		if alpha*dnorm < 1e-15*(1+floats.Norm(cur.x, math.Inf(1))) {
			break
		}
	}
	return alpha, phit, false, nil
}

// lagGrad sets dst = ∇f - J_Eᵀλ_E - J_Iᵀλ_I at st.
func (m *minimizer) lagGrad(dst []float64, st *state, lam []float64) {
	copy(dst, st.g)
	for k := 0; k < m.me; k++ {
		if lam[k] != 0 {
			floats.AddScaled(dst, -lam[k], st.je.RawRowView(k))
		}
	}
	for k := 0; k < m.mi; k++ {
		if l := lam[m.me+k]; l != 0 {
			floats.AddScaled(dst, -l, st.ji.RawRowView(k))
		}
	}
}

// bfgs applies Powell's damped BFGS update to the leading nn×nn block of B
// (row-major n×n) with the step s and gradient change y (both of length nn).
func (m *minimizer) bfgs(B, s, y, bs []float64, scaled *bool) {
	n, nn := m.n, len(s)
	if nn == 0 {
		return
	}
	sy := floats.Dot(s, y)
	ss := floats.Dot(s, s)
	if ss == 0 {
		return
	}
	if !*scaled && sy > 0 {
		// Shanno–Phua scaling of the initial matrix: B₀ = (yᵀy / sᵀy) I.
		g := floats.Dot(y, y) / sy
		if g > 0 && !math.IsInf(g, 0) {
			for i := 0; i < nn; i++ {
				row := B[i*n : i*n+nn]
				floats.Scale(g, row)
			}
		}
		*scaled = true
	}
	for i := 0; i < nn; i++ {
		bs[i] = floats.Dot(B[i*n:i*n+nn], s)
	}
	sbs := floats.Dot(s, bs)
	if sbs <= 0 {
		return
	}
	if sy < 0.2*sbs {
		theta := 0.8 * sbs / (sbs - sy)
		for i := range y {
			y[i] = theta*y[i] + (1-theta)*bs[i]
		}
		sy = floats.Dot(s, y)
	}
	if sy <= 1e-300 {
		return
	}
	for i := 0; i < nn; i++ {
		row := B[i*n : i*n+nn]
		floats.AddScaled(row, y[i]/sy, y)
		floats.AddScaled(row, -bs[i]/sbs, bs)
	}
	// Keep B exactly symmetric.
	for i := 0; i < nn; i++ {
		for j := i + 1; j < nn; j++ {
			v := 0.5 * (B[i*n+j] + B[j*n+i])
			B[i*n+j], B[j*n+i] = v, v
		}
	}
}

// subproblem solves the QP at st; on an inconsistent linearisation it
// solves the relaxed QP with the extra variable δ and returns δ > 0.
func (m *minimizer) subproblem(st *state, B []float64) (d, lam, mu []float64, delta float64, err error) {
	n, me, mi := m.n, m.me, m.mi
	if m.linv == nil {
		m.linv = make([]float64, n*n)
	}
	linv, ok := invCholFactorTo(m.linv, B, n, m.p.NumLinear)
	if !ok {
		return nil, nil, nil, 0, errNotPD
	}
	mt := me + mi
	var A []float64
	b := make([]float64, mt)
	if me == 0 && mi > 0 && st.ji.RawMatrix().Stride == n {
		// The inequality Jacobian as it is (the QP only reads it).
		A = st.ji.RawMatrix().Data[:mi*n]
	} else {
		A = make([]float64, mt*n)
		for k := 0; k < me; k++ {
			copy(A[k*n:(k+1)*n], st.je.RawRowView(k))
		}
		for k := 0; k < mi; k++ {
			copy(A[(me+k)*n:(me+k+1)*n], st.ji.RawRowView(k))
		}
	}
	for k := 0; k < me; k++ {
		b[k] = -st.ce[k]
	}
	for k := 0; k < mi; k++ {
		b[me+k] = -st.ci[k]
	}
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i := range lo {
		lo[i] = m.lo[i] - st.x[i]
		hi[i] = m.hi[i] - st.x[i]
	}
	qp := &qpProblem{n: n, linv: linv, nlin: m.p.NumLinear, a: st.g, A: A, b: b, m: mt, neq: me, lo: lo, hi: hi}
	g := newGIFrom(qp, m.qp)
	m.qp = g
	res, err := g.solve(1e-12)
	if err == nil {
		return res.x, res.lambda, res.mu, 0, nil
	}
	if !errors.Is(err, errQPInfeasible) {
		return nil, nil, nil, 0, err
	}
	// Relaxed QP in (d, δ): the violated constraints become
	// ∇c_kᵀd + (1-δ)c_k ≥ 0 (= 0 for equalities), 0 ≤ δ ≤ 1, cost ½ρδ².
	n1 := n + 1
	var bmax float64
	for i := 0; i < n; i++ {
		bmax = math.Max(bmax, B[i*n+i])
	}
	rho := 1e6 * math.Max(1, bmax)
	linv1 := make([]float64, n1*n1)
	for i := 0; i < n; i++ {
		copy(linv1[i*n1:i*n1+n], linv[i*n:(i+1)*n])
	}
	linv1[n*n1+n] = 1 / math.Sqrt(rho)
	A1 := make([]float64, mt*n1)
	for k := 0; k < mt; k++ {
		copy(A1[k*n1:k*n1+n], A[k*n:(k+1)*n])
		relax := k < me || st.ci[k-me] < 0
		if relax {
			A1[k*n1+n] = b[k] // -c_k δ moved left: ∇cᵀd - c_k δ ≥ -c_k
		}
	}
	a1 := append(append([]float64(nil), st.g...), 0)
	lo1 := append(lo, 0)
	hi1 := append(hi, 1)
	qp1 := &qpProblem{n: n1, linv: linv1, a: a1, A: A1, b: b, m: mt, neq: me, lo: lo1, hi: hi1}
	res, err = solveQP(qp1, 1e-12)
	if err != nil {
		return nil, nil, nil, 0, err
	}
	return res.x[:n], res.lambda, res.mu[:n], res.x[n], nil
}
