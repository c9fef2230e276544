package sqp

import (
	"context"
	"errors"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// TestHockSchittkowskiNonMonotone runs the HS set with the non-monotone line
// search (memory 4, as NLPQLP's default range): it must reach the same optima.
func TestHockSchittkowskiNonMonotone(t *testing.T) {
	for _, h := range hsProblems {
		if h.status < 0 {
			continue
		}
		res, err := Minimize(context.Background(), h.problem(), h.x0, Settings{NonMonotone: 4})
		if err != nil {
			t.Fatalf("%s: %v", h.name, err)
		}
		ftol := h.ftol
		if ftol == 0 {
			ftol = 1e-7
		}
		if res.Status != status.Converged || math.Abs(res.F-h.fstar) > ftol*(1+math.Abs(h.fstar)) {
			t.Errorf("%s: status %v f = %.10g, published %.10g", h.name, res.Status, res.F, h.fstar)
		}
	}
}

// TestMultipliers checks the multipliers on HS35, whose KKT point is known:
// ∇f(x*) = λ ∇c(x*) with λ = 2/9 (the bounds are inactive).
func TestMultipliers(t *testing.T) {
	var h hsProblem
	for _, p := range hsProblems {
		if p.name == "HS35" {
			h = p
		}
	}
	res, err := Minimize(context.Background(), h.problem(), h.x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(res.LambdaIneq[0]-2.0/9) > 1e-7 {
		t.Errorf("λ = %.10g, want 2/9", res.LambdaIneq[0])
	}
	for j, v := range res.LambdaBound {
		if math.Abs(v) > 1e-9 {
			t.Errorf("bound multiplier %d = %g, want 0", j, v)
		}
	}
}

// TestInconsistentLinearisation: min x s.t. 1 - (x-2)² ≥ 0, -1 ≤ x ≤ 0.5
// is infeasible; at x0 = 0.1 the linearisation asks d ≥ 0.687 while the bound
// allows d ≤ 0.4, so the relaxed QP (NLPQL's δ) must take over and end at the
// least infeasible point x = 0.5 with the status Infeasible.
func TestInconsistentLinearisation(t *testing.T) {
	p := Problem{
		Dim: 1, NumIneq: 1, Lower: []float64{-1}, Upper: []float64{0.5},
		Func: func(x, _, in []float64) (float64, error) {
			in[0] = 1 - sq(x[0]-2)
			return x[0], nil
		},
		Grad: func(x, g []float64, _, jin *mat.Dense) error {
			g[0] = 1
			jin.Set(0, 0, -2*(x[0]-2))
			return nil
		},
	}
	res, err := Minimize(context.Background(), p, []float64{0.1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Infeasible {
		t.Fatalf("status %v, want infeasible (x = %v)", res.Status, res.X)
	}
	// The closest point to feasibility is the upper bound.
	if math.Abs(res.X[0]-0.5) > 1e-8 {
		t.Errorf("x = %g, want 0.5", res.X[0])
	}
	// With x ≤ 3 the problem is feasible and min x is at x = 1.
	p.Upper = []float64{3}
	res, err = Minimize(context.Background(), p, []float64{-1}, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != status.Converged || math.Abs(res.X[0]-1) > 1e-8 {
		t.Errorf("status %v x = %g, want converged at 1", res.Status, res.X[0])
	}
}

func TestCancelAndCallbackError(t *testing.T) {
	h := hsProblems[0]
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	res, err := Minimize(ctx, h.problem(), h.x0, Settings{})
	if !errors.Is(err, context.Canceled) || res.Status != status.Canceled {
		t.Errorf("cancelled: status %v err %v", res.Status, err)
	}
	boom := errors.New("boom")
	p := h.problem()
	calls := 0
	f := p.Func
	p.Func = func(x, eq, in []float64) (float64, error) {
		calls++
		if calls > 3 {
			return 0, boom
		}
		return f(x, eq, in)
	}
	res, err = Minimize(context.Background(), p, h.x0, Settings{})
	if !errors.Is(err, boom) || res.Status != status.Failure || len(res.X) != 2 {
		t.Errorf("callback error: status %v err %v x %v", res.Status, err, res.X)
	}
	if _, err := Minimize(context.Background(), Problem{Dim: 2}, []float64{0}, Settings{}); !errors.Is(err, ErrBadProblem) {
		t.Errorf("bad problem: err %v", err)
	}
}

func TestIterationLimitIsStatus(t *testing.T) {
	h := hsProblems[0] // HS1 needs ~24 iterations
	res, err := Minimize(context.Background(), h.problem(), h.x0, Settings{MaxIter: 3})
	if err != nil || res.Status != status.IterationLimit || res.Iter != 3 {
		t.Errorf("status %v iter %d err %v, want iteration-limit after 3", res.Status, res.Iter, err)
	}
}

// A NaN in a constraint Jacobian is an error naming the entry and the
// iteration (it ended the run as a line-search failure with no error), and
// messages say where the run was, once.
func TestNonFiniteDerivatives(t *testing.T) {
	var h hsProblem
	for _, p := range hsProblems {
		if p.name == "HS12" {
			h = p
		}
	}
	for _, c := range []struct {
		name string
		at   int // Grad call that writes the NaN (1: at x0)
		want string
	}{
		{"start", 1, "SQP start point: derivative 1 of inequality constraint 0 is NaN"},
		{"iteration", 2, "SQP iteration 1: derivative 1 of inequality constraint 0 is NaN"},
	} {
		t.Run(c.name, func(t *testing.T) {
			p := h.problem()
			g, calls := p.Grad, 0
			p.Grad = func(x, grad []float64, jeq, jin *mat.Dense) error {
				err := g(x, grad, jeq, jin)
				if calls++; calls == c.at {
					jin.Set(0, 1, math.NaN())
				}
				return err
			}
			res, err := Minimize(context.Background(), p, h.x0, Settings{})
			if err == nil || err.Error() != c.want || res.Status != status.Failure {
				t.Errorf("status %v, err %v; want failure and %q", res.Status, err, c.want)
			}
		})
	}
}

func TestBadProblemSaysWhat(t *testing.T) {
	h := hsProblems[0]
	for _, c := range []struct {
		edit func(*Problem, []float64) []float64
		want string
	}{
		{func(p *Problem, x []float64) []float64 { return x[:1] }, "bad SQP problem: len(x0) = 1, want Dim = 2"},
		{func(p *Problem, x []float64) []float64 { p.Grad = nil; return x }, "bad SQP problem: Func and Grad are required"},
		{func(p *Problem, x []float64) []float64 { p.NumLinear = 3; return x }, "bad SQP problem: NumLinear = 3, want 0 to Dim = 2"},
		{func(p *Problem, x []float64) []float64 { return []float64{math.NaN(), 0} }, "bad SQP problem: x0[0] = NaN"},
		{func(p *Problem, x []float64) []float64 { p.Lower = []float64{0, math.NaN()}; return x }, "bad SQP problem: bounds of x[1]: [NaN, +Inf] is empty"},
		{func(p *Problem, x []float64) []float64 { p.Upper = []float64{-3, -2}; return x }, "bad SQP problem: bounds of x[1]: [-1.5, -2] is empty"},
	} {
		p := h.problem()
		x0 := c.edit(&p, append([]float64(nil), h.x0...))
		if _, err := Minimize(context.Background(), p, x0, Settings{}); !errors.Is(err, ErrBadProblem) || err.Error() != c.want {
			t.Errorf("err %v, want %q", err, c.want)
		}
	}
	// A NaN tolerance ended as a line-search failure with no error (no
	// convergence test could pass); an infinite curvature froze the linear
	// variables.
	for _, s := range []Settings{{Tol: math.NaN()}, {LinearCurvature: math.Inf(1)}} {
		if res, err := Minimize(context.Background(), h.problem(), h.x0, s); !errors.Is(err, ErrBadProblem) {
			t.Errorf("%+v: status %v, err %v; want ErrBadProblem", s, res.Status, err)
		}
	}
}

func TestStatusString(t *testing.T) {
	for s, want := range map[status.Status]string{status.Converged: "converged", status.Infeasible: "infeasible", 9: "Status(9)", -1: "Status(-1)"} {
		if got := s.String(); got != want {
			t.Errorf("Status(%d).String() = %q, want %q", int(s), got, want)
		}
	}
}
