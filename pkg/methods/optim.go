package methods

import (
	"cmp"
	"context"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// lbfgsRun is one minimisation by gonum's L-BFGS of a criterion whose value
// and gradient come from one expensive evaluation (an SVM or QP solve), for
// spd's lbfgs mode and lccp's inner problem. P is what a caller keeps of a
// point (a QP solution to warm-start from, …).
type lbfgsRun[P any] struct {
	// Eval returns the value and gradient at x: gonum's separate calls for
	// them at one point share one Eval. An error ends the run, unless
	// InfOnError and the point is not the start: then it counts as f = +∞
	// and the line search steps back.
	Eval       func(x []float64) (f float64, grad []float64, pt P, err error)
	InfOnError bool
	// Accept gets every accepted point (gonum's major iteration; the start
	// is iteration 0) as Eval returned it, without a new evaluation.
	Accept func(it int, x []float64, f float64, pt P)
	// GradTol > 0 ends the run (Converged) at an accepted point, the start
	// included, where ‖∇f‖_∞ < GradTol. (gonum's Settings.GradientThreshold
	// would hide that point from Accept, and does not check the start.)
	GradTol float64
	// RelGradTol > 0 also ends the run at an accepted point after the start
	// where ‖∇f‖_∞ < RelGradTol·‖∇f(x0)‖_∞ (an inexact solve: the forcing
	// term of an outer loop that only needs a decrease).
	RelGradTol float64
	// Method and Settings go to optimize.Minimize; Settings.Converger must
	// be set.
	Method   optimize.LBFGS
	Settings optimize.Settings
}

// minimize runs r from x0, checking ctx after every evaluation, and returns
// Converged or IterationLimit (gonum's iteration, evaluation or runtime
// limits), and stall, the line search's error when it found no further decrease (the
// value flat to the evaluation's accuracy: Converged). err is ctx's, Eval's
// or gonum's.
func (r lbfgsRun[P]) minimize(ctx context.Context, x0 []float64) (st status.Status, stall, err error) {
	type point struct {
		x, grad []float64
		f       float64
		pt      P
	}
	var last *point // the last point evaluated
	var evalErr error
	it := -1
	var g0 float64 // ‖∇f(x0)‖_∞
	at := func(x []float64) *point {
		if last == nil || !floats.Equal(x, last.x) {
			f, g, pt, err := r.Eval(x)
			if err != nil && (!r.InfOnError || it < 0) {
				evalErr = err
			}
			if err != nil {
				f, g = math.Inf(1), make([]float64, len(x))
			}
			last = &point{x: slices.Clone(x), grad: g, f: f, pt: pt}
		}
		return last
	}
	r.Settings.Converger = &acceptConverger{Converger: r.Settings.Converger, accept: func(loc *optimize.Location) bool {
		p := at(loc.X)
		it++
		r.Accept(it, p.x, p.f, p.pt)
		gn := floats.Norm(p.grad, math.Inf(1))
		if it == 0 {
			g0 = gn
		}
		return gn < r.GradTol || (it > 0 && gn < r.RelGradTol*g0)
	}}
	prob := optimize.Problem{
		Func: func(x []float64) float64 { return at(x).f },
		Grad: func(g, x []float64) { copy(g, at(x).grad) },
		Status: func() (optimize.Status, error) { // Minimize stops on an error
			return optimize.NotTerminated, cmp.Or(ctx.Err(), evalErr)
		},
	}
	res, err := optimize.Minimize(prob, x0, &r.Settings, &r.Method)
	switch {
	case ctx.Err() != nil || evalErr != nil:
		return status.Converged, nil, cmp.Or(ctx.Err(), evalErr)
	case errors.Is(err, optimize.ErrLinesearcherFailure), errors.Is(err, optimize.ErrNoProgress),
		errors.Is(err, optimize.ErrNonDescentDirection), errors.Is(err, optimize.ErrLinesearcherBound):
		return status.Converged, err, nil
	case err != nil:
		return status.Converged, nil, err
	case res.Status.Early():
		return status.IterationLimit, nil, nil
	}
	return status.Converged, nil, nil // FunctionConvergence, GradientThreshold
}

// acceptConverger hands every accepted point to accept, which says whether
// the gradient is small enough, then asks Converger.
type acceptConverger struct {
	optimize.Converger
	accept func(loc *optimize.Location) (small bool)
}

func (c *acceptConverger) Converged(loc *optimize.Location) optimize.Status {
	if c.accept(loc) {
		return optimize.GradientThreshold
	}
	return c.Converger.Converged(loc)
}
