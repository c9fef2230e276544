package methods

import (
	"context"
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// spdChart maps unconstrained coordinates θ to an SPD metric: diag mode
// Q = diag(exp θ); full mode Q = LLᵀ with L lower triangular, L_kk = exp θ_kk
// and L_kl = θ_kl below the diagonal (log-Cholesky), both onto the whole cone.
type spdChart struct {
	diag bool
	d    int
}

func (c spdChart) dim() int {
	if c.diag {
		return c.d
	}
	return c.d * (c.d + 1) / 2
}

// point returns Q(θ) and, in full mode, L.
func (c spdChart) point(theta []float64) (*mat.SymDense, *mat.Dense) {
	d := c.d
	Q := mat.NewSymDense(d, nil)
	if c.diag {
		for k, t := range theta {
			Q.SetSym(k, k, math.Exp(t))
		}
		return Q, nil
	}
	L := mat.NewDense(d, d, nil)
	idx := 0
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := theta[idx]
			if i == j {
				v = math.Exp(v)
			}
			L.Set(i, j, v)
			idx++
		}
	}
	Q.SymOuterK(1, L)
	return Q, L
}

// coords returns θ of an SPD Q.
func (c spdChart) coords(Q *mat.SymDense) ([]float64, error) {
	d := c.d
	theta := make([]float64, 0, c.dim())
	if c.diag {
		for k := 0; k < d; k++ {
			theta = append(theta, math.Log(Q.At(k, k)))
		}
		return theta, nil
	}
	var ch mat.Cholesky
	if !ch.Factorize(Q) {
		return nil, kernel.ErrNotSPD
	}
	var L mat.TriDense
	ch.LTo(&L)
	for i := 0; i < d; i++ {
		for j := 0; j <= i; j++ {
			v := L.At(i, j)
			if i == j {
				v = math.Log(v)
			}
			theta = append(theta, v)
		}
	}
	return theta, nil
}

// pullBack sets dθ from the Euclidean gradient G = ∂w/∂Q (every entry
// independent): diag ∂w/∂θ_k = G_kk q_k; full ∂w/∂L = 2GL on the lower
// triangle, times L_kk on the diagonal.
func (c spdChart) pullBack(dtheta []float64, G, Q *mat.SymDense, L *mat.Dense) {
	if c.diag {
		for k := range dtheta {
			dtheta[k] = G.At(k, k) * Q.At(k, k)
		}
		return
	}
	var GL mat.Dense
	GL.Mul(G, L)
	idx := 0
	for i := 0; i < c.d; i++ {
		for j := 0; j <= i; j++ {
			v := 2 * GL.At(i, j)
			if i == j {
				v *= L.At(i, i)
			}
			dtheta[idx] = v
			idx++
		}
	}
}

// spdLBFGS minimises the same criterion w(Q) = 2D*(Q) + ρ‖K^Q - K′‖²_F
// (α = α*(Q) re-solved at every evaluation, warm-started from the last
// accepted point's α; the envelope gradient) in the chart spdChart by
// gonum's L-BFGS (memory 10) with its default line search (Bisection,
// strong Wolfe conditions). It is not the paper's algorithm (mode "lbfgs").
// It stops when w has not fallen by more than Tol·(|w|+1) for three
// iterations (gonum's FunctionConverge): Converged; after MaxIter accepted
// steps or 40·MaxIter calls of w: IterationLimit; when the line search finds
// no further decrease (w flat to the SVM solver's accuracy): Converged, with
// a note. The trace's StepSize is ‖Δθ‖₂.
func spdLBFGS(ctx context.Context, p *spdProblem, Q0 *mat.SymDense, cfg spdConfig, record func(Step)) (spdOutcome, error) {
	out := spdOutcome{status: IterationLimit, lastRel: math.NaN()}
	chart := spdChart{diag: p.diag, d: p.d}
	theta, err := chart.coords(Q0)
	if err != nil {
		return out, &BreakdownError{Method: "spd", Err: err}
	}
	n := len(theta)

	type point struct {
		theta, grad []float64
		Q           *mat.SymDense
		f           float64
		nsv         int
		alpha       []float64
	}
	eval := func(th []float64, alpha0 []float64) (point, error) {
		Q, L := chart.point(th)
		K, err := p.gram(Q)
		if err != nil {
			return point{}, err
		}
		res, err := p.solve(ctx, K, alpha0)
		out.solves++
		out.evals++
		if err != nil {
			return point{}, err
		}
		f := p.value(K, res.Alpha)
		G := &mat.SymDense{}
		p.grad(G, K, res.Alpha)
		g := make([]float64, n)
		chart.pullBack(g, G, Q, L)
		if math.IsNaN(f) || math.IsInf(f, 0) || !floats.Equal(g, g) {
			return point{}, fmt.Errorf("criterion or gradient is not finite (w = %v)", f)
		}
		return point{theta: append([]float64(nil), th...), grad: g, Q: Q, f: f, nsv: res.NSV, alpha: res.Alpha}, nil
	}
	acc, err := eval(theta, nil) // the last accepted point
	if err != nil {
		return out, spdBreakdown(ctx, 0, err)
	}
	out.w0 = acc.f
	// gonum asks for w and ∂w/∂θ in separate calls at the same point: at
	// solves α* once per point (last). A point that cannot be evaluated (a
	// cancelled solve, or a kernel that over- or underflows far along a
	// trial step) counts as w = +∞, so the line search steps back.
	last := acc
	at := func(x []float64) *point {
		if !floats.Equal(x, last.theta) {
			pt, err := eval(x, acc.alpha)
			if err != nil {
				pt = point{theta: append([]float64(nil), x...), grad: make([]float64, n), f: math.Inf(1)}
			}
			last = pt
		}
		return &last
	}

	conv := &spdConverger{FunctionConverge: optimize.FunctionConverge{Absolute: cfg.tol, Relative: cfg.tol, Iterations: 3}}
	it := -1
	conv.major = func(loc *optimize.Location) {
		it++
		pt, step := at(loc.X), 0.0 // the last point evaluated: no new solve
		if it > 0 {
			var diff mat.Dense
			diff.Sub(pt.Q, acc.Q)
			out.iters, out.lastRel = it, mat.Norm(&diff, 2)/mat.Norm(acc.Q, 2)
			step = floats.Distance(pt.theta, acc.theta, 2)
		}
		acc = *pt
		record(Step{Iter: it, Objective: pt.f, StepSize: step, NSV: pt.nsv})
	}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return at(x).f },
		Grad: func(g, x []float64) { copy(g, at(x).grad) },
		Status: func() (optimize.Status, error) {
			if err := ctx.Err(); err != nil {
				return optimize.Failure, err
			}
			return optimize.NotTerminated, nil
		},
	}
	settings := &optimize.Settings{
		Converger:       conv,
		MajorIterations: cfg.maxIter + 1, // gonum counts the start as one
		FuncEvaluations: 40 * cfg.maxIter,
	}
	res, err := optimize.Minimize(prob, theta, settings, &optimize.LBFGS{Store: 10})
	out.Q, out.w, out.nsv = acc.Q, acc.f, acc.nsv
	switch {
	case err != nil && ctx.Err() != nil:
		return out, fmt.Errorf("methods: spd: iteration %d: %w", out.iters+1, ctx.Err())
	case errors.Is(err, optimize.ErrLinesearcherFailure), errors.Is(err, optimize.ErrNoProgress),
		errors.Is(err, optimize.ErrNonDescentDirection), errors.Is(err, optimize.ErrLinesearcherBound):
		out.status = Converged
		out.notes = append(out.notes, fmt.Sprintf("mode lbfgs: stopped after iteration %d: the line search found no further decrease of w (%v)", out.iters, err))
	case err != nil:
		return out, spdBreakdown(ctx, out.iters+1, err)
	case res.Status.Early(): // iteration, evaluation or runtime limit
		out.status = IterationLimit
	default: // FunctionConvergence, GradientThreshold
		out.status = Converged
	}
	return out, nil
}

// spdConverger is gonum's FunctionConverge that first hands every accepted
// point (major iteration, the start included) to major.
type spdConverger struct {
	optimize.FunctionConverge
	major func(loc *optimize.Location)
}

func (c *spdConverger) Converged(loc *optimize.Location) optimize.Status {
	c.major(loc)
	return c.FunctionConverge.Converged(loc)
}
