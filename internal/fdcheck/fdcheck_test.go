package fdcheck

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// recorder is a testing.TB that keeps what a check reports.
type recorder struct {
	testing.TB
	errs  []string
	fatal bool
}

func (r *recorder) Helper() {}
func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) Fatalf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
	r.fatal = true
}

// f(x) = x₀² x₁ + sin x₂.
func f(x []float64) float64 { return x[0]*x[0]*x[1] + math.Sin(x[2]) }

func grad(x []float64) []float64 {
	return []float64{2 * x[0] * x[1], x[0] * x[0], math.Cos(x[2])}
}

func TestGradPassesAndFails(t *testing.T) {
	x := []float64{0.7, -1.3, 2}
	for _, s := range []Settings{
		{},
		{Scale: ScaleEntry},
		{Scale: ScaleEntryOrOne, Tol: 1e-7},
		{Scale: ScaleOne, Step: 1e-5},
		{Steps: []float64{1e-6 * 0.7, 1e-6 * 1.3, 1e-6 * 2}, Scale: ScaleEntry},
	} {
		var r recorder
		if w := Grad(&r, "f", f, x, grad(x), s); len(r.errs) != 0 || w > 1e-7 {
			t.Errorf("%+v: the right gradient failed (worst %g): %v", s, w, r.errs)
		}
		// A wrong entry, off by 1e-3 relative, must fail.
		g := grad(x)
		g[1] *= 1 + 1e-3
		r = recorder{}
		Grad(&r, "f", f, x, g, s)
		if len(r.errs) != 1 || !strings.Contains(r.errs[0], "f[1]") {
			t.Errorf("%+v: a wrong ∂f/∂x₁ gave %v, want one error naming f[1]", s, r.errs)
		}
	}
}

func TestZeroDerivativeCannotPass(t *testing.T) {
	var r recorder
	Deriv(&r, "const", func(float64) float64 { return 3 }, 1, 0, Settings{})
	if !r.fatal {
		t.Errorf("a zero numerical derivative did not stop the test: %v", r.errs)
	}
}

func TestJacobianSteps(t *testing.T) {
	// y = (x₀x₁, e^{x₁}); the per-coordinate steps evaluate at x ± h_k e_k.
	x := []float64{2, 0.5}
	var seen [][]float64
	fn := func(y, x []float64) {
		seen = append(seen, append([]float64(nil), x...))
		y[0], y[1] = x[0]*x[1], math.Exp(x[1])
	}
	jac := mat.NewDense(2, 2, []float64{0.5, 2, 0, math.Exp(0.5)})
	var r recorder
	Jacobian(&r, "y", fn, x, jac, Settings{Steps: []float64{1e-3, 1e-7}, Scale: ScaleOne, Tol: 1e-8})
	if len(r.errs) != 0 {
		t.Errorf("right Jacobian failed: %v", r.errs)
	}
	want := [][]float64{{2 - 1e-3, 0.5}, {2 + 1e-3, 0.5}, {2, 0.5 - 1e-7}, {2, 0.5 + 1e-7}}
	if fmt.Sprint(seen) != fmt.Sprint(want) {
		t.Errorf("evaluated at %v, want %v", seen, want)
	}
}
