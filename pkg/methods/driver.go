package methods

import (
	"context"
	"fmt"
	"time"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// The one outer loop of the methods, split as gonum optimize splits its
// Minimize from a localMethod: a method supplies its start (initLocal) and
// its step (iterateLocal) and nothing else; driver.run owns the iteration
// count and its limit, the stopping rule, cancellation, the trace and the
// Recorder, the elapsed time and the breakdown path, with one Status.
//
// spd (Algorithm 1), gi, lccp, rcsc (both schedules) and the
// cross-validated searches (searchCV: svm's grid, random, halving, bo) run
// on it. Two loops
// belong to a library optimiser instead and keep it: spd's lbfgs mode
// (gonum's Minimize) and twolevel (sqp.Minimize, whose status is this
// package's Status); they still record through tracer and fail through
// runError, so every method's trace and errors are made in one place.

// stopRule is a method's stopping rule as its paper states it, as data the
// driver reads: the run ends Converged when a step's Change is below Tol
// for Runs steps in a row, and IterationLimit after MaxIter steps.
//
//	spd    ‖ΔQ‖_F/‖Q‖_F < Tol (Laanaya, Algorithm 1); Done at a stationary point
//	gi     |ΔT|/T < Tol five steps in a row (Glasmachers & Igel): Runs 5
//	lccp   |Δ log J| < Tol (Boughorbel et al.)
//	rcsc   paper: Tol 0, its fixed N steps (Yang et al., eq. 14–15);
//	       robust: ΔJ/|J| of an accepted Armijo step < Tol; Done when no
//	       step increases J
type stopRule struct {
	MaxIter int
	// Tol ≤ 0 means no test: the run takes its MaxIter steps.
	Tol float64
	// Runs is the number of consecutive steps below Tol; 0 means 1.
	Runs int
}

// A move is what one iteration did.
type move struct {
	// Step is what the trace records (Objective, StepSize, NSV); the
	// driver sets Iter and Elapsed.
	Step Step
	// Change is the quantity stopRule compares with Tol.
	Change float64
	// Done: the method found no step to take (a stationary point, a line
	// search that found no increase): the run ends Converged and records
	// nothing. Counted says whether the iteration still counts in Iter.
	Done, Counted bool
}

// driver runs one method's outer loop.
type driver struct {
	method string
	stop   stopRule
	// init evaluates the start point: the step recorded as iteration 0.
	init func(ctx context.Context) (Step, error)
	// iterate takes iteration it (1, 2, …) from the current point.
	iterate func(ctx context.Context, it int) (move, error)
	// record receives every step, the start's included (see tracer).
	record func(Step)
	// final, if set, picks the errors that are the method's own answer (lccp:
	// data a hard margin cannot separate), returned as they are rather than
	// as a breakdown.
	final func(error) bool
	// cancelNamesDone: a cancellation seen before iteration it names the
	// last iteration done, it-1, rather than it (rcsc's wording, kept).
	cancelNamesDone bool
	// bare: every error, a cancellation's included, is returned as it is,
	// for the caller to name (svm's grid, whose callers are svm, gi and
	// spd).
	bare bool
	// keep, if set, keeps each iteration's step and the method's state in
	// the run's checkpoint, and a run that finds them resumes after the
	// last one kept instead of starting at init (loopState).
	keep *loopState
}

// outcome is how a run ended: Iter counts the iterations done or, with an
// error, is the iteration the error names; Status is Canceled or Failure
// with an error.
type outcome struct {
	Iter   int
	Status status.Status
}

// run runs the loop: init, then iterate until the stopping rule, the limit,
// a cancellation (checked once per iteration, before it) or an error.
func (d *driver) run(ctx context.Context) (outcome, error) {
	out := outcome{Status: status.IterationLimit}
	runs := max(d.stop.Runs, 1)
	calm, first := 0, 1
	if kept := d.resume(); len(kept) > 0 {
		// The steps done before: their trace, and the loop where the last
		// one left it (the method's state is set to its).
		for _, ls := range kept {
			d.record(ls.Step)
		}
		last := kept[len(kept)-1]
		calm, out.Iter, first = last.Calm, last.Step.Iter, last.Step.Iter+1
		if last.Converged {
			out.Status, first = status.Converged, d.stop.MaxIter+1
		}
	} else {
		st, err := d.init(ctx)
		if err != nil {
			return d.fail(ctx, 0, err)
		}
		st.Iter = 0
		d.record(st)
		if err := d.kept(0, st, 0, false); err != nil {
			return outcome{Status: status.Failure}, err
		}
	}
	for it := first; it <= d.stop.MaxIter; it++ {
		if ctx.Err() != nil {
			at := it
			if d.cancelNamesDone {
				at = out.Iter
			}
			return d.fail(ctx, at, ctx.Err())
		}
		mv, err := d.iterate(ctx, it)
		if err != nil {
			return d.fail(ctx, it, err)
		}
		if mv.Done {
			if mv.Counted {
				out.Iter = it
			}
			out.Status = status.Converged
			break
		}
		out.Iter = it
		mv.Step.Iter = it
		d.record(mv.Step)
		converged := false
		if d.stop.Tol > 0 && mv.Change < d.stop.Tol {
			calm++
			converged = calm >= runs
		} else {
			calm = 0
		}
		if err := d.kept(it, mv.Step, calm, converged); err != nil {
			return outcome{Iter: it, Status: status.Failure}, err
		}
		if converged {
			out.Status = status.Converged
			break
		}
	}
	return out, nil
}

// resume returns the iterations the checkpoint kept, none without one.
func (d *driver) resume() []loopStep {
	if d.keep == nil {
		return nil
	}
	return d.keep.resume()
}

// kept keeps iteration it in the checkpoint, if any.
func (d *driver) kept(it int, st Step, calm int, converged bool) error {
	if d.keep == nil {
		return nil
	}
	return d.keep.record(it, st, calm, converged)
}

// fail is runError for this method, with its final errors passed through.
func (d *driver) fail(ctx context.Context, it int, err error) (outcome, error) {
	if d.bare {
		st := status.Failure
		if ctx.Err() != nil {
			st = status.Canceled
		}
		return outcome{Iter: it, Status: st}, err
	}
	if ctx.Err() != nil {
		return outcome{Iter: it, Status: status.Canceled}, runError(ctx, d.method, it, err)
	}
	if d.final != nil && d.final(err) {
		return outcome{Iter: it, Status: status.Failure}, err
	}
	return outcome{Iter: it, Status: status.Failure}, runError(ctx, d.method, it, err)
}

// runError turns an error at iteration it of a method's run into the
// method's error: when ctx is done, a cancellation naming the method and the
// iteration and wrapping ctx's error (so that errors.Is finds
// context.Canceled whatever the step made of it); otherwise a numerical
// breakdown, *BreakdownError.
func runError(ctx context.Context, method string, it int, err error) error {
	if ctxErr := ctx.Err(); ctxErr != nil {
		return fmt.Errorf("%s: iteration %d: %w", method, it, ctxErr)
	}
	return &BreakdownError{Method: method, Iter: it, Err: err}
}

// tracer returns the record function of a run: it stamps a step with the
// time since start, appends it to *trace and passes it to rec, if any.
func tracer(start time.Time, trace *[]Step, rec func(Step)) func(Step) {
	return func(st Step) {
		st.Elapsed = time.Since(start)
		*trace = append(*trace, st)
		if rec != nil {
			rec(st)
		}
	}
}

// backtrack is Armijo backtracking for a descent (slope < 0): t halves from
// t0 until φ(t) ≤ f0 + c·t·slope, for at most maxTries evaluations and
// while t ≥ tMin. It returns the accepted t, or false and the last t tried,
// halved. spd's backtrack mode and rcsc's robust schedule use it (rcsc on
// -J, which is exact: the test is the same in floating point).
func backtrack(phi func(t float64) float64, f0, slope, c, t0, tMin float64, maxTries int) (float64, bool) {
	t := t0
	for k := 0; k < maxTries && !(t < tMin); k++ {
		if phi(t) <= f0+c*t*slope {
			return t, true
		}
		t /= 2
	}
	return t, false
}
