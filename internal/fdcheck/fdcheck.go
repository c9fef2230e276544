// Package fdcheck checks analytic derivatives against central differences,
// for the tests of every package that has a gradient (kernel, manifold,
// solver/sqp, methods).
//
// It exists so that there is one such check: the step, the error measure
// and the "the test cannot fail" guard were written five times over in
// different test files, each a little differently. A test states here how
// far it trusts its function (the step, the tolerance, what an entry's error
// is measured against) and the helper does the rest, as gonum's
// optimize/functions validate.go does with diff/fd.
//
// Only test code imports it.
package fdcheck

import (
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/diff/fd"
	"gonum.org/v1/gonum/mat"
)

// Scale says what the error of an entry is measured against. Entry k of
// the analytic derivative a passes when |a_k − n_k| ≤ Tol·s_k, with n the
// central difference and s_k as below.
type Scale int

const (
	// ScaleMax is s_k = max_j |n_j|, the largest entry of the numerical
	// derivative: an error relative to the derivative as a whole (the
	// default, gonum's validate.go).
	ScaleMax Scale = iota
	// ScaleEntry is s_k = |n_k|: each entry relative to itself.
	ScaleEntry
	// ScaleEntryOrOne is s_k = max(1, |n_k|): relative for entries above
	// one, absolute below.
	ScaleEntryOrOne
	// ScaleOne is s_k = 1: an absolute error.
	ScaleOne
)

// Settings say how a check is made; the zero value is the house default:
// central differences with step 1e-6 and relative tolerance 1e-5 against
// the largest entry.
type Settings struct {
	// Step is the central-difference step h; 0 means 1e-6.
	Step float64
	// Steps, when not nil, is a step for each coordinate of x (a relative
	// step h·x_k, say), in place of Step.
	Steps []float64
	// Tol is the tolerance; 0 means 1e-5.
	Tol float64
	// Scale is what an entry's error is measured against.
	Scale Scale
	// Label names entry i of the output and coordinate j of x in messages
	// (i is 0 for a gradient); nil writes "[i,j]", "[j]" for a gradient
	// and nothing for a derivative.
	Label func(i, j int) string
}

// Grad checks grad, the analytic gradient of f at x, against central
// differences of f and reports each entry out of tolerance with t.Errorf.
// It stops the test if the numerical gradient is zero, since such a check
// cannot fail. It returns the worst error measured, |a_k − n_k|/s_k.
func Grad(t testing.TB, name string, f func(x []float64) float64, x, grad []float64, s Settings) float64 {
	t.Helper()
	if len(grad) != len(x) {
		panic("fdcheck: gradient length mismatch")
	}
	if s.Label == nil {
		s.Label = func(_, j int) string { return fmt.Sprintf("[%d]", j) }
	}
	want := mat.NewDense(1, len(x), grad)
	return Jacobian(t, name, func(y, x []float64) { y[0] = f(x) }, x, want, s)
}

// Deriv checks d, the analytic derivative of the scalar function f at x
// (a directional derivative, say), against a central difference.
func Deriv(t testing.TB, name string, f func(h float64) float64, x, d float64, s Settings) float64 {
	t.Helper()
	if s.Label == nil {
		s.Label = func(int, int) string { return "" }
	}
	return Grad(t, name, func(v []float64) float64 { return f(v[0]) }, []float64{x}, []float64{d}, s)
}

// Jacobian checks jac, the analytic Jacobian of f at x (jac_ij = ∂y_i/∂x_j,
// f writing y = f(x) into its first argument), against central differences
// of f, and reports as Grad does.
func Jacobian(t testing.TB, name string, f func(y, x []float64), x []float64, jac mat.Matrix, s Settings) float64 {
	t.Helper()
	m, n := jac.Dims()
	if n != len(x) {
		panic("fdcheck: Jacobian has the wrong number of columns")
	}
	step := s.Step
	if step == 0 {
		step = 1e-6
	}
	tol := s.Tol
	if tol == 0 {
		tol = 1e-5
	}
	num := mat.NewDense(m, n, nil)
	central := fd.Central
	if s.Steps == nil {
		fd.Jacobian(num, f, x, &fd.JacobianSettings{Formula: central, Step: step})
	} else {
		if len(s.Steps) != n {
			panic("fdcheck: Steps length mismatch")
		}
		// In u with x = x₀ + Steps∘u, a unit step in u_k is the step
		// Steps[k] in x_k, at exactly the points x₀ ± Steps[k]·e_k.
		xs := make([]float64, n)
		g := func(y, u []float64) {
			for k := range xs {
				xs[k] = x[k] + u[k]*s.Steps[k]
			}
			f(y, xs)
		}
		fd.Jacobian(num, g, make([]float64, n), &fd.JacobianSettings{Formula: central, Step: 1})
		for k, h := range s.Steps {
			for i := 0; i < m; i++ {
				num.Set(i, k, num.At(i, k)/h)
			}
		}
	}

	var top float64
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			top = math.Max(top, math.Abs(num.At(i, j)))
		}
	}
	if top == 0 {
		t.Fatalf("%s: the numerical derivative is zero: the check cannot fail", name)
	}
	label := s.Label
	if label == nil {
		label = func(i, j int) string { return fmt.Sprintf("[%d,%d]", i, j) }
	}
	var worst float64
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			a, nv := jac.At(i, j), num.At(i, j)
			var sc float64
			switch s.Scale {
			case ScaleMax:
				sc = top
			case ScaleEntry:
				sc = math.Abs(nv)
			case ScaleEntryOrOne:
				sc = math.Max(1, math.Abs(nv))
			case ScaleOne:
				sc = 1
			default:
				panic("fdcheck: unknown Scale")
			}
			diff := math.Abs(a - nv)
			e := diff / sc
			if diff == 0 {
				e = 0
			}
			if !(diff <= tol*sc) { // NaN fails
				t.Errorf("%s%s: analytic %.10g, central difference %.10g (error %.2g, tolerance %.2g)", name, label(i, j), a, nv, e, tol)
			}
			if !(e <= worst) {
				worst = e
			}
		}
	}
	return worst
}
