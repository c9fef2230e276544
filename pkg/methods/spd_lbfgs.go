package methods

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
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
// strong Wolfe conditions), through lbfgsRun. It is not the paper's
// algorithm (mode "lbfgs"). It stops when w has not fallen by more than
// Tol·(|w|+1) for three iterations (gonum's FunctionConverge): Converged;
// after MaxIter accepted steps or 40·MaxIter calls of w: IterationLimit;
// when the line search finds no further decrease (w flat to the SVM
// solver's accuracy): Converged, with a note. A trial point that cannot be
// evaluated (a kernel that over- or underflows far along a step) counts as
// w = +∞. The trace's StepSize is ‖Δθ‖₂.
func spdLBFGS(ctx context.Context, p *spdProblem, Q0 *mat.SymDense, cfg spdConfig, record func(Step)) (spdOutcome, error) {
	out := spdOutcome{status: status.IterationLimit, lastRel: math.NaN()}
	chart := spdChart{diag: p.diag, d: p.d}
	theta, err := chart.coords(Q0)
	if err != nil {
		return out, &BreakdownError{Method: "spd", Err: err}
	}
	type point struct {
		Q     *mat.SymDense
		nsv   int
		alpha []float64
	}
	var acc point // the last accepted point
	eval := func(th []float64) (float64, []float64, point, error) {
		Q, L := chart.point(th)
		K, err := p.gram(Q)
		if err != nil {
			return 0, nil, point{}, err
		}
		res, err := p.solve(ctx, K, acc.alpha)
		out.solves++
		out.evals++
		if err != nil {
			return 0, nil, point{}, err
		}
		f := p.value(K, res.Alpha)
		G := &mat.SymDense{}
		p.grad(G, K, res.Alpha)
		g := make([]float64, len(th))
		chart.pullBack(g, G, Q, L)
		if math.IsNaN(f) || math.IsInf(f, 0) || !floats.Equal(g, g) {
			return 0, nil, point{}, fmt.Errorf("criterion or gradient is not finite (w = %v)", f)
		}
		return f, g, point{Q: Q, nsv: res.NSV, alpha: res.Alpha}, nil
	}
	var x []float64 // the last accepted θ
	run := lbfgsRun[point]{Eval: eval, InfOnError: true,
		Accept: func(it int, th []float64, f float64, pt point) {
			step := 0.0
			if it == 0 {
				out.w0 = f
			} else {
				var diff mat.Dense
				diff.Sub(pt.Q, acc.Q)
				out.iters, out.lastRel = it, mat.Norm(&diff, 2)/mat.Norm(acc.Q, 2)
				step = floats.Distance(th, x, 2)
			}
			acc, x, out.w = pt, th, f
			record(Step{Iter: it, Objective: f, StepSize: step, NSV: pt.nsv})
		},
		Method: optimize.LBFGS{Store: 10},
		Settings: optimize.Settings{
			Converger:       &optimize.FunctionConverge{Absolute: cfg.tol, Relative: cfg.tol, Iterations: 3},
			MajorIterations: cfg.maxIter + 1, // gonum counts the start as one
			FuncEvaluations: 40 * cfg.maxIter,
		},
	}
	st, stall, err := run.minimize(ctx, theta)
	out.Q, out.status = acc.Q, st
	it := out.iters + 1
	if x == nil { // the start failed
		it = 0
	}
	switch {
	case err != nil: // cancelled, or a breakdown
		return out, spdBreakdown(ctx, it, err)
	case stall != nil:
		out.notes = append(out.notes, fmt.Sprintf("mode lbfgs: stopped after iteration %d: the line search found no further decrease of w (%v)", out.iters, stall))
	}
	return out, nil
}
