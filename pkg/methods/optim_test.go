package methods

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/optimize"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// rosenbrock returns f and ∇f of Rosenbrock's function at x.
func rosenbrock(x []float64) (float64, []float64) {
	a, b := 1-x[0], x[1]-x[0]*x[0]
	return a*a + 100*b*b, []float64{-2*a - 400*x[0]*b, 200 * b}
}

// TestLBFGSRun checks lbfgsRun on Rosenbrock's function: one Eval per point
// although gonum asks for f and ∇f apart, Accept at every accepted point in
// order with a falling f, the gradient tolerance, the iteration limit, Eval
// errors (ending the run, or +∞ with InfOnError) and cancellation.
func TestLBFGSRun(t *testing.T) {
	ctx := context.Background()
	var evals [][]float64
	var fs []float64
	fail := func(x []float64) bool { return false }
	errEval := errors.New("eval failed")
	run := func(maxIter int, infOnError bool, accept func(it int)) lbfgsRun[int] {
		evals, fs = nil, nil
		return lbfgsRun[int]{
			Eval: func(x []float64) (float64, []float64, int, error) {
				evals = append(evals, slices.Clone(x))
				if fail(x) {
					return 0, nil, 0, errEval
				}
				f, g := rosenbrock(x)
				return f, g, len(evals), nil
			},
			InfOnError: infOnError,
			Accept: func(it int, x []float64, f float64, pt int) {
				if it != len(fs) || !floats.Equal(x, evals[pt-1]) {
					t.Errorf("accepted point %d: it = %d, x = %v is evaluation %d (%v)", len(fs), it, x, pt, evals[pt-1])
				}
				fs = append(fs, f)
				if accept != nil {
					accept(it)
				}
			},
			GradTol:  1e-8,
			Method:   optimize.LBFGS{Store: 5},
			Settings: optimize.Settings{Converger: &optimize.FunctionConverge{Absolute: 1e-30, Iterations: 5}, MajorIterations: maxIter},
		}
	}
	x0 := []float64{-1.2, 1}
	st, stall, err := run(0, false, nil).minimize(ctx, x0)
	if err != nil || stall != nil || st != status.Converged {
		t.Fatalf("status %v, stall %v, err %v", st, stall, err)
	}
	for i := 1; i < len(evals); i++ {
		if floats.Equal(evals[i], evals[i-1]) {
			t.Errorf("evaluations %d and %d at the same point %v", i-1, i, evals[i])
		}
	}
	last := evals[len(evals)-1]
	if _, g := rosenbrock(last); floats.Distance(last, []float64{1, 1}, math.Inf(1)) > 1e-6 || floats.Norm(g, math.Inf(1)) >= 1e-8 {
		t.Errorf("ended at %v, ∇f = %v after %d evaluations", last, g, len(evals))
	}
	for i := 1; i < len(fs); i++ {
		if fs[i] > fs[i-1] {
			t.Errorf("f rose at accepted point %d: %g → %g", i, fs[i-1], fs[i])
		}
	}

	// GradTol ends the run at the start too (gonum would try a step).
	if st, stall, err := run(0, false, nil).minimize(ctx, []float64{1, 1}); err != nil || stall != nil || st != status.Converged || len(evals) != 1 {
		t.Errorf("start at the minimum: status %v, stall %v, err %v after %d evaluations (want converged after 1)", st, stall, err, len(evals))
	}
	// gonum's MajorIterations counts the start.
	if st, _, err := run(4, false, nil).minimize(ctx, x0); err != nil || st != status.IterationLimit || len(fs) != 4 {
		t.Errorf("MajorIterations 4: status %v, err %v, %d accepted points (want iteration-limit, 4)", st, err, len(fs))
	}

	// Every point after the start fails.
	fail = func(x []float64) bool { return !floats.Equal(x, x0) }
	if _, _, err := run(0, false, nil).minimize(ctx, x0); !errors.Is(err, errEval) || len(fs) != 1 {
		t.Errorf("failing step: err %v after %d accepted points, want the Eval error after 1", err, len(fs))
	}
	if st, stall, err := run(0, true, nil).minimize(ctx, x0); err != nil || stall == nil || st != status.Converged || len(fs) != 1 {
		t.Errorf("failing step, InfOnError: status %v, stall %v, err %v, %d accepted points; want converged on a stalled line search at the start", st, stall, err, len(fs))
	}
	fail = func(x []float64) bool { return true }
	if _, _, err := run(0, true, nil).minimize(ctx, x0); !errors.Is(err, errEval) || len(fs) != 0 {
		t.Errorf("failing start, InfOnError: err %v, %d accepted points; want the Eval error", err, len(fs))
	}
	fail = func(x []float64) bool { return false }

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	_, _, err = run(0, false, func(it int) {
		if it == 2 {
			cancel()
		}
	}).minimize(cctx, x0)
	if !errors.Is(err, context.Canceled) || len(fs) != 3 {
		t.Errorf("cancelled at iteration 2: err %v, %d accepted points (want context.Canceled, 3)", err, len(fs))
	}
}
