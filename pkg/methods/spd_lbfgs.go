package methods

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"

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
// (α = α*(Q) re-solved, warm-started, at every evaluation; the envelope
// gradient) by L-BFGS (memory 10, Nocedal & Wright Algorithm 7.4) with an
// Armijo backtracking line search in the chart spdChart. It is not the
// paper's algorithm (mode "lbfgs"). It stops when the relative decrease of w
// stays below Tol for three iterations, or the step in θ falls below
// 1e-10, or at MaxIter.
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
	iter := 0
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
	cur, err := eval(theta, nil)
	if err != nil {
		return out, spdBreakdown(ctx, 0, err)
	}
	out.w0 = cur.f
	record(Step{Iter: 0, Objective: cur.f, NSV: cur.nsv})

	const mem = 10
	var S, Y [][]float64
	var rhos []float64
	dir := make([]float64, n)
	small := 0
	for it := 1; it <= cfg.maxIter; it++ {
		iter = it
		if err := ctx.Err(); err != nil {
			return out, fmt.Errorf("methods: spd: iteration %d: %w", it, err)
		}
		// Two-loop recursion: dir = -H ∇w.
		copy(dir, cur.grad)
		a := make([]float64, len(S))
		for k := len(S) - 1; k >= 0; k-- {
			a[k] = rhos[k] * floats.Dot(S[k], dir)
			floats.AddScaled(dir, -a[k], Y[k])
		}
		if k := len(S) - 1; k >= 0 {
			floats.Scale(floats.Dot(S[k], Y[k])/floats.Dot(Y[k], Y[k]), dir)
		}
		for k := range S {
			b := rhos[k] * floats.Dot(Y[k], dir)
			floats.AddScaled(dir, a[k]-b, S[k])
		}
		floats.Scale(-1, dir)
		slope := floats.Dot(dir, cur.grad)
		if !(slope < 0) { // not a descent direction: restart from -∇w
			S, Y, rhos = S[:0], Y[:0], rhos[:0]
			copy(dir, cur.grad)
			floats.Scale(-1, dir)
			slope = floats.Dot(dir, cur.grad)
			if !(slope < 0) {
				out.status = Converged
				break
			}
		}
		// Armijo backtracking; the first step is at most 1 in ‖·‖_∞ of θ (a
		// factor e on q_k).
		t := 1.0
		if len(S) == 0 {
			t = math.Min(1, 1/floats.Norm(dir, math.Inf(1)))
		}
		var next point
		accepted := false
		trial := make([]float64, n)
		for range 40 {
			floats.AddScaledTo(trial, cur.theta, t, dir)
			nx, err := eval(trial, cur.alpha)
			if err == nil && nx.f <= cur.f+1e-4*t*slope {
				next, accepted = nx, true
				break
			}
			if err != nil && ctx.Err() != nil {
				return out, fmt.Errorf("methods: spd: iteration %d: %w", it, ctx.Err())
			}
			t /= 2
		}
		if !accepted {
			out.status = Converged // no decrease along the direction
			break
		}
		s := make([]float64, n)
		y := make([]float64, n)
		floats.SubTo(s, next.theta, cur.theta)
		floats.SubTo(y, next.grad, cur.grad)
		if sy := floats.Dot(s, y); sy > 1e-12*floats.Norm(s, 2)*floats.Norm(y, 2) {
			if len(S) == mem {
				S, Y, rhos = S[1:], Y[1:], rhos[1:]
			}
			S, Y, rhos = append(S, s), append(Y, y), append(rhos, 1/sy)
		}
		var diff mat.Dense
		diff.Sub(next.Q, cur.Q)
		out.lastRel = mat.Norm(&diff, 2) / mat.Norm(cur.Q, 2)
		dec := cur.f - next.f
		cur = next
		out.iters = it
		record(Step{Iter: it, Objective: cur.f, StepSize: t, NSV: cur.nsv})
		if dec <= cfg.tol*math.Max(1, math.Abs(cur.f)) {
			small++
		} else {
			small = 0
		}
		if small >= 3 || floats.Norm(s, math.Inf(1)) < 1e-10 {
			out.status = Converged
			break
		}
	}
	_ = iter
	out.Q, out.w, out.nsv = cur.Q, cur.f, cur.nsv
	return out, nil
}
