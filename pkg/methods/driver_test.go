package methods

import (
	"context"
	"errors"
	"io"
	"math"
	"testing"
	"time"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// countdown is a loop whose step i has Change changes[i-1] (its value is
// the change too); a step past the list fails with io.ErrUnexpectedEOF.
func countdown(changes []float64) driver {
	return driver{
		method: "test",
		init:   func(context.Context) (Step, error) { return Step{Objective: 100}, nil },
		iterate: func(_ context.Context, it int) (move, error) {
			if it > len(changes) {
				return move{}, io.ErrUnexpectedEOF
			}
			c := changes[it-1]
			if math.IsInf(c, -1) {
				return move{Done: true, Counted: it%2 == 0}, nil
			}
			return move{Step: Step{Objective: c}, Change: c}, nil
		},
	}
}

// TestDriverStop: the stopping rule is data (Tol, Runs consecutive steps,
// MaxIter), a step that finds nothing to do ends the run Converged, and the
// trace holds the start and every step taken.
func TestDriverStop(t *testing.T) {
	inf := math.Inf(-1)
	for _, c := range []struct {
		name    string
		changes []float64
		stop    stopRule
		iter    int
		st      status.Status
		trace   int
	}{
		{"tol", []float64{1, 0.5, 0.01, 1}, stopRule{MaxIter: 10, Tol: 0.1}, 3, status.Converged, 4},
		{"limit", []float64{1, 1, 1}, stopRule{MaxIter: 3, Tol: 0.1}, 3, status.IterationLimit, 4},
		{"runs", []float64{0.01, 1, 0.01, 0.01, 0.01, 1}, stopRule{MaxIter: 10, Tol: 0.1, Runs: 3}, 5, status.Converged, 6},
		{"no test", []float64{0, 0, 0}, stopRule{MaxIter: 3}, 3, status.IterationLimit, 4},
		{"NaN change", []float64{math.NaN(), math.NaN()}, stopRule{MaxIter: 2, Tol: 1}, 2, status.IterationLimit, 3},
		{"done, not counted", []float64{1, 1, inf}, stopRule{MaxIter: 10, Tol: 0.1}, 2, status.Converged, 3},
		{"done, counted", []float64{1, inf}, stopRule{MaxIter: 10, Tol: 0.1}, 2, status.Converged, 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := countdown(c.changes)
			d.stop = c.stop
			var trace []Step
			var seen int
			d.record = tracer(time.Now().Add(-time.Second), &trace, func(Step) { seen++ })
			o, err := d.run(context.Background())
			if err != nil || o.Iter != c.iter || o.Status != c.st || len(trace) != c.trace || seen != c.trace {
				t.Fatalf("run: %+v, %v, %d steps (%d seen); want iter %d, %v, %d steps", o, err, len(trace), seen, c.iter, c.st, c.trace)
			}
			for i, st := range trace {
				if st.Iter != i || st.Elapsed < time.Second {
					t.Errorf("step %d: Iter %d, Elapsed %v", i, st.Iter, st.Elapsed)
				}
			}
		})
	}
}

// TestDriverErrors: a step's error is a breakdown naming the method and the
// iteration; a final error comes back as it is; a cancellation names the
// iteration about to start (or, cancelNamesDone, the last one done) and
// wraps ctx's error whatever the step returned.
func TestDriverErrors(t *testing.T) {
	d := countdown([]float64{1})
	d.stop = stopRule{MaxIter: 5, Tol: 0.1}
	d.record = func(Step) {}
	o, err := d.run(context.Background())
	var be *BreakdownError
	if !errors.As(err, &be) || be.Iter != 2 || o.Iter != 2 || o.Status != status.Failure || err.Error() != "test: iteration 2: unexpected EOF" {
		t.Errorf("breakdown: %+v, %v", o, err)
	}
	d.final = func(err error) bool { return errors.Is(err, io.ErrUnexpectedEOF) }
	if _, err := d.run(context.Background()); err != io.ErrUnexpectedEOF {
		t.Errorf("final error: %v", err)
	}

	for _, namesDone := range []bool{false, true} {
		ctx, cancel := context.WithCancel(context.Background())
		d := countdown([]float64{1, 1, 1})
		d.stop = stopRule{MaxIter: 5, Tol: 0.1}
		d.cancelNamesDone = namesDone
		d.record = func(st Step) {
			if st.Iter == 1 {
				cancel()
			}
		}
		o, err := d.run(ctx)
		want := "test: iteration 2: context canceled"
		if namesDone {
			want = "test: iteration 1: context canceled"
		}
		if !errors.Is(err, context.Canceled) || o.Status != status.Canceled || err.Error() != want {
			t.Errorf("cancelNamesDone %v: %+v, %v; want %q", namesDone, o, err, want)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := runError(ctx, "test", 3, io.ErrUnexpectedEOF); !errors.Is(err, context.Canceled) || err.Error() != "test: iteration 3: context canceled" {
		t.Errorf("a step error after a cancellation: %v", err)
	}
}

// TestBacktrack: the step halves until the Armijo test holds; maximising
// through -J takes exactly the steps the test J(t) ≥ J0 + c·t·slope takes.
func TestBacktrack(t *testing.T) {
	phi := func(t float64) float64 { return (t - 0.1) * (t - 0.1) } // φ(0) = 0.01, φ'(0) = -0.2
	var tried []float64
	rec := func(t float64) float64 { tried = append(tried, t); return phi(t) }
	if got, ok := backtrack(rec, 0.01, -0.2, 1e-4, 1, math.Inf(-1), 50); !ok || got != 0.125 || len(tried) != 4 {
		t.Errorf("backtrack: %v, %v after %v; want 0.125 after 4 tries", got, ok, tried)
	}
	if _, ok := backtrack(phi, 0.01, -0.2, 1e-4, 1, 0.3, 50); ok {
		t.Error("backtrack accepted a step below tMin")
	}
	if _, ok := backtrack(phi, 0.01, -0.2, 1e-4, 1, math.Inf(-1), 2); ok {
		t.Error("backtrack tried more than maxTries steps")
	}
	J := func(t float64) float64 { return 1 + t - 3*t*t }
	for _, t0 := range []float64{1, 0.7, 1e-3} {
		want := t0
		for !(J(want) >= J(0)+1e-4*want*1) {
			want /= 2
		}
		got, ok := backtrack(func(t float64) float64 { return -J(t) }, -J(0), -1, 1e-4, t0, 1e-10, math.MaxInt)
		if !ok || got != want {
			t.Errorf("t0 = %g: -J gives %v, %v; J ≥ … gives %v", t0, got, ok, want)
		}
	}
}
