package sqp

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// hsProblem is a Hock–Schittkowski test problem (Hock & Schittkowski 1981,
// "Test Examples for Nonlinear Programming Codes", Lecture Notes in Economics
// and Mathematical Systems 187) with its published start point and optimum.
type hsProblem struct {
	name   string
	n      int
	x0     []float64
	lo, hi []float64
	f      func(x []float64) float64
	g      func(x, g []float64)
	ce     []func(x []float64) float64
	gce    []func(x, g []float64)
	ci     []func(x []float64) float64
	gci    []func(x, g []float64)
	xstar  []float64
	fstar  float64
	xtol   float64       // tolerance on x (default 1e-5)
	ftol   float64       // relative tolerance on f (default 1e-7)
	status status.Status // expected status (default Converged)
}

func (h *hsProblem) problem() Problem {
	return Problem{
		Dim: h.n, NumEq: len(h.ce), NumIneq: len(h.ci), Lower: h.lo, Upper: h.hi,
		Func: func(x, eq, ineq []float64) (float64, error) {
			for k, c := range h.ce {
				eq[k] = c(x)
			}
			for k, c := range h.ci {
				ineq[k] = c(x)
			}
			return h.f(x), nil
		},
		Grad: func(x, grad []float64, jeq, jin *mat.Dense) error {
			h.g(x, grad)
			for k, g := range h.gce {
				g(x, jeq.RawRowView(k))
			}
			for k, g := range h.gci {
				g(x, jin.RawRowView(k))
			}
			return nil
		},
	}
}

func inf(n int, s float64) []float64 {
	v := make([]float64, n)
	for i := range v {
		v[i] = math.Inf(int(s))
	}
	return v
}

var hsProblems = []hsProblem{
	{
		name: "HS1", n: 2, x0: []float64{-2, 1},
		lo: []float64{math.Inf(-1), -1.5}, hi: inf(2, 1),
		f: func(x []float64) float64 { return 100*sq(x[1]-x[0]*x[0]) + sq(1-x[0]) },
		g: func(x, g []float64) {
			g[0] = -400*x[0]*(x[1]-x[0]*x[0]) - 2*(1-x[0])
			g[1] = 200 * (x[1] - x[0]*x[0])
		},
		xstar: []float64{1, 1}, fstar: 0,
	},
	{
		name: "HS6", n: 2, x0: []float64{-1.2, 1},
		f:     func(x []float64) float64 { return sq(1 - x[0]) },
		g:     func(x, g []float64) { g[0], g[1] = -2*(1-x[0]), 0 },
		ce:    []func([]float64) float64{func(x []float64) float64 { return 10 * (x[1] - x[0]*x[0]) }},
		gce:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = -20*x[0], 10 }},
		xstar: []float64{1, 1}, fstar: 0,
	},
	{
		name: "HS7", n: 2, x0: []float64{2, 2},
		f:  func(x []float64) float64 { return math.Log(1+x[0]*x[0]) - x[1] },
		g:  func(x, g []float64) { g[0], g[1] = 2*x[0]/(1+x[0]*x[0]), -1 },
		ce: []func([]float64) float64{func(x []float64) float64 { return sq(1+x[0]*x[0]) + x[1]*x[1] - 4 }},
		gce: []func(x, g []float64){func(x, g []float64) {
			g[0], g[1] = 4*x[0]*(1+x[0]*x[0]), 2*x[1]
		}},
		xstar: []float64{0, math.Sqrt(3)}, fstar: -math.Sqrt(3),
	},
	{
		name: "HS10", n: 2, x0: []float64{-10, 10},
		f: func(x []float64) float64 { return x[0] - x[1] },
		g: func(x, g []float64) { g[0], g[1] = 1, -1 },
		ci: []func([]float64) float64{func(x []float64) float64 {
			return -3*x[0]*x[0] + 2*x[0]*x[1] - x[1]*x[1] + 1
		}},
		gci: []func(x, g []float64){func(x, g []float64) {
			g[0], g[1] = -6*x[0]+2*x[1], 2*x[0]-2*x[1]
		}},
		xstar: []float64{0, 1}, fstar: -1,
	},
	{
		name: "HS11", n: 2, x0: []float64{4.9, 0.1},
		f:   func(x []float64) float64 { return sq(x[0]-5) + x[1]*x[1] - 25 },
		g:   func(x, g []float64) { g[0], g[1] = 2*(x[0]-5), 2*x[1] },
		ci:  []func([]float64) float64{func(x []float64) float64 { return -x[0]*x[0] + x[1] }},
		gci: []func(x, g []float64){func(x, g []float64) { g[0], g[1] = -2*x[0], 1 }},
		// Published f* = -8.498464223. The book prints x* = (1.234679,
		// 1.524404), which is off in the 4th digit: on the active constraint
		// x₂ = x₁², stationarity gives 2x₁³ + x₁ - 5 = 0, whose root we assert.
		xstar: []float64{hs11x1, hs11x1 * hs11x1}, fstar: -8.498464223, ftol: 1e-9,
	},
	{
		name: "HS12", n: 2, x0: []float64{0, 0},
		f:     func(x []float64) float64 { return 0.5*x[0]*x[0] + x[1]*x[1] - x[0]*x[1] - 7*x[0] - 7*x[1] },
		g:     func(x, g []float64) { g[0], g[1] = x[0]-x[1]-7, 2*x[1]-x[0]-7 },
		ci:    []func([]float64) float64{func(x []float64) float64 { return 25 - 4*x[0]*x[0] - x[1]*x[1] }},
		gci:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = -8*x[0], -2*x[1] }},
		xstar: []float64{2, 3}, fstar: -30,
	},
	{
		// Degenerate: the constraint qualification fails at x* (the cusp of
		// (1-x₁)³ ≥ x₂), so no multipliers exist and superlinear convergence
		// is lost; we accept a looser tolerance and any non-error status.
		name: "HS13", n: 2, x0: []float64{-2, -2},
		lo: []float64{0, 0}, hi: inf(2, 1),
		f:     func(x []float64) float64 { return sq(x[0]-2) + x[1]*x[1] },
		g:     func(x, g []float64) { g[0], g[1] = 2*(x[0]-2), 2*x[1] },
		ci:    []func([]float64) float64{func(x []float64) float64 { return math.Pow(1-x[0], 3) - x[1] }},
		gci:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = -3*sq(1-x[0]), -1 }},
		xstar: []float64{1, 0}, fstar: 1, xtol: 2e-2, ftol: 5e-2, status: -1,
	},
	{
		name: "HS14", n: 2, x0: []float64{2, 2},
		f:     func(x []float64) float64 { return sq(x[0]-2) + sq(x[1]-1) },
		g:     func(x, g []float64) { g[0], g[1] = 2*(x[0]-2), 2*(x[1]-1) },
		ce:    []func([]float64) float64{func(x []float64) float64 { return x[0] - 2*x[1] + 1 }},
		gce:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = 1, -2 }},
		ci:    []func([]float64) float64{func(x []float64) float64 { return -x[0]*x[0]/4 - x[1]*x[1] + 1 }},
		gci:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = -x[0]/2, -2*x[1] }},
		xstar: []float64{0.5 * (math.Sqrt(7) - 1), 0.25 * (math.Sqrt(7) + 1)},
		fstar: 9 - 2.875*math.Sqrt(7),
	},
	{
		name: "HS15", n: 2, x0: []float64{-2, 1},
		lo: inf(2, -1), hi: []float64{0.5, math.Inf(1)},
		f: func(x []float64) float64 { return 100*sq(x[1]-x[0]*x[0]) + sq(1-x[0]) },
		g: func(x, g []float64) {
			g[0] = -400*x[0]*(x[1]-x[0]*x[0]) - 2*(1-x[0])
			g[1] = 200 * (x[1] - x[0]*x[0])
		},
		ci: []func([]float64) float64{
			func(x []float64) float64 { return x[0]*x[1] - 1 },
			func(x []float64) float64 { return x[0] + x[1]*x[1] },
		},
		gci: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1] = x[1], x[0] },
			func(x, g []float64) { g[0], g[1] = 1, 2*x[1] },
		},
		xstar: []float64{0.5, 2}, fstar: 306.5,
	},
	{
		name: "HS18", n: 2, x0: []float64{2, 2},
		lo: []float64{2, 0}, hi: []float64{50, 50},
		f: func(x []float64) float64 { return 0.01*x[0]*x[0] + x[1]*x[1] },
		g: func(x, g []float64) { g[0], g[1] = 0.02*x[0], 2*x[1] },
		ci: []func([]float64) float64{
			func(x []float64) float64 { return x[0]*x[1] - 25 },
			func(x []float64) float64 { return x[0]*x[0] + x[1]*x[1] - 25 },
		},
		gci: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1] = x[1], x[0] },
			func(x, g []float64) { g[0], g[1] = 2*x[0], 2*x[1] },
		},
		xstar: []float64{math.Sqrt(250), math.Sqrt(2.5)}, fstar: 5,
	},
	{
		name: "HS21", n: 2, x0: []float64{-1, -1},
		lo: []float64{2, -50}, hi: []float64{50, 50},
		f:     func(x []float64) float64 { return 0.01*x[0]*x[0] + x[1]*x[1] - 100 },
		g:     func(x, g []float64) { g[0], g[1] = 0.02*x[0], 2*x[1] },
		ci:    []func([]float64) float64{func(x []float64) float64 { return 10*x[0] - x[1] - 10 }},
		gci:   []func(x, g []float64){func(x, g []float64) { g[0], g[1] = 10, -1 }},
		xstar: []float64{2, 0}, fstar: -99.96,
	},
	{
		name: "HS28", n: 3, x0: []float64{-4, 1, 1},
		f: func(x []float64) float64 { return sq(x[0]+x[1]) + sq(x[1]+x[2]) },
		g: func(x, g []float64) {
			g[0], g[1], g[2] = 2*(x[0]+x[1]), 2*(x[0]+x[1])+2*(x[1]+x[2]), 2*(x[1]+x[2])
		},
		ce:    []func([]float64) float64{func(x []float64) float64 { return x[0] + 2*x[1] + 3*x[2] - 1 }},
		gce:   []func(x, g []float64){func(x, g []float64) { g[0], g[1], g[2] = 1, 2, 3 }},
		xstar: []float64{0.5, -0.5, 0.5}, fstar: 0,
	},
	{
		name: "HS35", n: 3, x0: []float64{0.5, 0.5, 0.5},
		lo: []float64{0, 0, 0}, hi: inf(3, 1),
		f: func(x []float64) float64 {
			return 9 - 8*x[0] - 6*x[1] - 4*x[2] + 2*x[0]*x[0] + 2*x[1]*x[1] + x[2]*x[2] +
				2*x[0]*x[1] + 2*x[0]*x[2]
		},
		g: func(x, g []float64) {
			g[0] = -8 + 4*x[0] + 2*x[1] + 2*x[2]
			g[1] = -6 + 4*x[1] + 2*x[0]
			g[2] = -4 + 2*x[2] + 2*x[0]
		},
		ci:    []func([]float64) float64{func(x []float64) float64 { return 3 - x[0] - x[1] - 2*x[2] }},
		gci:   []func(x, g []float64){func(x, g []float64) { g[0], g[1], g[2] = -1, -1, -2 }},
		xstar: []float64{4.0 / 3, 7.0 / 9, 4.0 / 9}, fstar: 1.0 / 9,
	},
	{
		name: "HS39", n: 4, x0: []float64{2, 2, 2, 2},
		f: func(x []float64) float64 { return -x[0] },
		g: func(x, g []float64) { g[0], g[1], g[2], g[3] = -1, 0, 0, 0 },
		ce: []func([]float64) float64{
			func(x []float64) float64 { return x[1] - x[0]*x[0]*x[0] - x[2]*x[2] },
			func(x []float64) float64 { return x[0]*x[0] - x[1] - x[3]*x[3] },
		},
		gce: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -3*x[0]*x[0], 1, -2*x[2], 0 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = 2*x[0], -1, 0, -2*x[3] },
		},
		xstar: []float64{1, 1, 0, 0}, fstar: -1,
	},
	{
		name: "HS40", n: 4, x0: []float64{0.8, 0.8, 0.8, 0.8},
		f: func(x []float64) float64 { return -x[0] * x[1] * x[2] * x[3] },
		g: func(x, g []float64) {
			g[0], g[1], g[2], g[3] = -x[1]*x[2]*x[3], -x[0]*x[2]*x[3], -x[0]*x[1]*x[3], -x[0]*x[1]*x[2]
		},
		ce: []func([]float64) float64{
			func(x []float64) float64 { return x[0]*x[0]*x[0] + x[1]*x[1] - 1 },
			func(x []float64) float64 { return x[0]*x[0]*x[3] - x[2] },
			func(x []float64) float64 { return x[3]*x[3] - x[1] },
		},
		gce: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1], g[2], g[3] = 3*x[0]*x[0], 2*x[1], 0, 0 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = 2*x[0]*x[3], 0, -1, x[0]*x[0] },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = 0, -1, 0, 2*x[3] },
		},
		xstar: []float64{math.Pow(2, -1.0/3), math.Pow(2, -0.5), math.Pow(2, -11.0/12), math.Pow(2, -0.25)},
		fstar: -0.25,
	},
	{
		name: "HS43", n: 4, x0: []float64{0, 0, 0, 0},
		f: func(x []float64) float64 {
			return x[0]*x[0] + x[1]*x[1] + 2*x[2]*x[2] + x[3]*x[3] - 5*x[0] - 5*x[1] - 21*x[2] + 7*x[3]
		},
		g: func(x, g []float64) {
			g[0], g[1], g[2], g[3] = 2*x[0]-5, 2*x[1]-5, 4*x[2]-21, 2*x[3]+7
		},
		ci: []func([]float64) float64{
			func(x []float64) float64 {
				return 8 - x[0]*x[0] - x[1]*x[1] - x[2]*x[2] - x[3]*x[3] - x[0] + x[1] - x[2] + x[3]
			},
			func(x []float64) float64 {
				return 10 - x[0]*x[0] - 2*x[1]*x[1] - x[2]*x[2] - 2*x[3]*x[3] + x[0] + x[3]
			},
			func(x []float64) float64 {
				return 5 - 2*x[0]*x[0] - x[1]*x[1] - x[2]*x[2] - 2*x[0] + x[1] + x[3]
			},
		},
		gci: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -2*x[0]-1, -2*x[1]+1, -2*x[2]-1, -2*x[3]+1 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -2*x[0]+1, -4*x[1], -2*x[2], -4*x[3]+1 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -4*x[0]-2, -2*x[1]+1, -2*x[2], 1 },
		},
		xstar: []float64{0, 1, 2, -1}, fstar: -44,
	},
	{
		name: "HS48", n: 5, x0: []float64{3, 5, -3, 2, -2},
		f: func(x []float64) float64 { return sq(x[0]-1) + sq(x[1]-x[2]) + sq(x[3]-x[4]) },
		g: func(x, g []float64) {
			g[0], g[1], g[2], g[3], g[4] = 2*(x[0]-1), 2*(x[1]-x[2]), -2*(x[1]-x[2]), 2*(x[3]-x[4]), -2*(x[3]-x[4])
		},
		ce: []func([]float64) float64{
			func(x []float64) float64 { return x[0] + x[1] + x[2] + x[3] + x[4] - 5 },
			func(x []float64) float64 { return x[2] - 2*(x[3]+x[4]) + 3 },
		},
		gce: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1], g[2], g[3], g[4] = 1, 1, 1, 1, 1 },
			func(x, g []float64) { g[0], g[1], g[2], g[3], g[4] = 0, 0, 1, -2, -2 },
		},
		xstar: []float64{1, 1, 1, 1, 1}, fstar: 0,
	},
	{
		name: "HS65", n: 3, x0: []float64{-5, 5, 0},
		lo: []float64{-4.5, -4.5, -5}, hi: []float64{4.5, 4.5, 5},
		f: func(x []float64) float64 { return sq(x[0]-x[1]) + sq(x[0]+x[1]-10)/9 + sq(x[2]-5) },
		g: func(x, g []float64) {
			g[0] = 2*(x[0]-x[1]) + 2*(x[0]+x[1]-10)/9
			g[1] = -2*(x[0]-x[1]) + 2*(x[0]+x[1]-10)/9
			g[2] = 2 * (x[2] - 5)
		},
		ci:  []func([]float64) float64{func(x []float64) float64 { return 48 - x[0]*x[0] - x[1]*x[1] - x[2]*x[2] }},
		gci: []func(x, g []float64){func(x, g []float64) { g[0], g[1], g[2] = -2*x[0], -2*x[1], -2*x[2] }},
		// Published: x* = (3.650461821, 3.65046168, 4.6204170507), f* = 0.9535288567.
		xstar: []float64{3.650461821, 3.65046168, 4.6204170507}, fstar: 0.9535288567, ftol: 1e-9,
	},
	{
		name: "HS71", n: 4, x0: []float64{1, 5, 5, 1},
		lo: []float64{1, 1, 1, 1}, hi: []float64{5, 5, 5, 5},
		f: func(x []float64) float64 { return x[0]*x[3]*(x[0]+x[1]+x[2]) + x[2] },
		g: func(x, g []float64) {
			s := x[0] + x[1] + x[2]
			g[0] = x[3]*s + x[0]*x[3]
			g[1] = x[0] * x[3]
			g[2] = x[0]*x[3] + 1
			g[3] = x[0] * s
		},
		ce: []func([]float64) float64{func(x []float64) float64 {
			return x[0]*x[0] + x[1]*x[1] + x[2]*x[2] + x[3]*x[3] - 40
		}},
		gce: []func(x, g []float64){func(x, g []float64) {
			g[0], g[1], g[2], g[3] = 2*x[0], 2*x[1], 2*x[2], 2*x[3]
		}},
		ci: []func([]float64) float64{func(x []float64) float64 { return x[0]*x[1]*x[2]*x[3] - 25 }},
		gci: []func(x, g []float64){func(x, g []float64) {
			g[0], g[1], g[2], g[3] = x[1]*x[2]*x[3], x[0]*x[2]*x[3], x[0]*x[1]*x[3], x[0]*x[1]*x[2]
		}},
		// Published: x* = (1, 4.7429994, 3.8211503, 1.3794082), f* = 17.0140173.
		xstar: []float64{1, 4.7429994, 3.8211503, 1.3794082}, fstar: 17.0140173, ftol: 1e-8,
	},
	{
		name: "HS76", n: 4, x0: []float64{0.5, 0.5, 0.5, 0.5},
		lo: []float64{0, 0, 0, 0}, hi: inf(4, 1),
		f: func(x []float64) float64 {
			return x[0]*x[0] + 0.5*x[1]*x[1] + x[2]*x[2] + 0.5*x[3]*x[3] - x[0]*x[2] + x[2]*x[3] -
				x[0] - 3*x[1] + x[2] - x[3]
		},
		g: func(x, g []float64) {
			g[0] = 2*x[0] - x[2] - 1
			g[1] = x[1] - 3
			g[2] = 2*x[2] - x[0] + x[3] + 1
			g[3] = x[3] + x[2] - 1
		},
		ci: []func([]float64) float64{
			func(x []float64) float64 { return 5 - x[0] - 2*x[1] - x[2] - x[3] },
			func(x []float64) float64 { return 4 - 3*x[0] - x[1] - 2*x[2] + x[3] },
			func(x []float64) float64 { return x[1] + 4*x[2] - 1.5 },
		},
		gci: []func(x, g []float64){
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -1, -2, -1, -1 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = -3, -1, -2, 1 },
			func(x, g []float64) { g[0], g[1], g[2], g[3] = 0, 1, 4, 0 },
		},
		// x* = (3/11, 23/11, 0, 6/11), f* = -103/22 = -4.681818181.
		xstar: []float64{3.0 / 11, 23.0 / 11, 0, 6.0 / 11}, fstar: -103.0 / 22,
	},
	{
		name: "HS100", n: 7, x0: []float64{1, 2, 0, 4, 0, 1, 1},
		f: func(x []float64) float64 {
			return sq(x[0]-10) + 5*sq(x[1]-12) + math.Pow(x[2], 4) + 3*sq(x[3]-11) +
				10*math.Pow(x[4], 6) + 7*x[5]*x[5] + math.Pow(x[6], 4) - 4*x[5]*x[6] - 10*x[5] - 8*x[6]
		},
		g: func(x, g []float64) {
			g[0] = 2 * (x[0] - 10)
			g[1] = 10 * (x[1] - 12)
			g[2] = 4 * math.Pow(x[2], 3)
			g[3] = 6 * (x[3] - 11)
			g[4] = 60 * math.Pow(x[4], 5)
			g[5] = 14*x[5] - 4*x[6] - 10
			g[6] = 4*math.Pow(x[6], 3) - 4*x[5] - 8
		},
		ci: []func([]float64) float64{
			func(x []float64) float64 {
				return 127 - 2*x[0]*x[0] - 3*math.Pow(x[1], 4) - x[2] - 4*x[3]*x[3] - 5*x[4]
			},
			func(x []float64) float64 { return 282 - 7*x[0] - 3*x[1] - 10*x[2]*x[2] - x[3] + x[4] },
			func(x []float64) float64 { return 196 - 23*x[0] - x[1]*x[1] - 6*x[5]*x[5] + 8*x[6] },
			func(x []float64) float64 {
				return -4*x[0]*x[0] - x[1]*x[1] + 3*x[0]*x[1] - 2*x[2]*x[2] - 5*x[5] + 11*x[6]
			},
		},
		gci: []func(x, g []float64){
			func(x, g []float64) {
				copy(g, []float64{-4 * x[0], -12 * math.Pow(x[1], 3), -1, -8 * x[3], -5, 0, 0})
			},
			func(x, g []float64) { copy(g, []float64{-7, -3, -20 * x[2], -1, 1, 0, 0}) },
			func(x, g []float64) { copy(g, []float64{-23, -2 * x[1], 0, 0, 0, -12 * x[5], 8}) },
			func(x, g []float64) {
				copy(g, []float64{-8*x[0] + 3*x[1], -2*x[1] + 3*x[0], -4 * x[2], 0, 0, -5, 11})
			},
		},
		// Published: x* = (2.330499, 1.951372, -0.4775414, 4.365726,
		// -0.6244870, 1.038131, 1.594227), f* = 680.6300573.
		xstar: []float64{2.330499, 1.951372, -0.4775414, 4.365726, -0.6244870, 1.038131, 1.594227},
		fstar: 680.6300573, ftol: 1e-9,
	},
}

func sq(v float64) float64 { return v * v }

// hs11x1 is the real root of 2x³ + x - 5 = 0 (HS11's x₁*), by Newton's method.
var hs11x1 = func() float64 {
	x := 1.0
	for i := 0; i < 50; i++ {
		x -= (2*x*x*x + x - 5) / (6*x*x + 1)
	}
	return x
}()

// TestHSDerivatives checks the hand-written derivatives of the test problems
// against central differences, so a wrong test problem cannot pass silently.
func TestHSDerivatives(t *testing.T) {
	for _, h := range hsProblems {
		x := make([]float64, h.n)
		for i := range x {
			x[i] = h.x0[i] + 0.3*float64(i+1)
		}
		// Each ∂/∂x_i within 1e-5·max(1, |central difference|): a little
		// tighter than the 1e-5·(1 + |…|) this test first had.
		check := func(what string, f func([]float64) float64, g func(x, g []float64)) {
			got := make([]float64, h.n)
			g(x, got)
			fdcheck.Grad(t, h.name+" "+what, f, x, got, fdcheck.Settings{
				Scale: fdcheck.ScaleEntryOrOne,
				Label: func(_, i int) string { return fmt.Sprintf(" ∂/∂x%d", i+1) },
			})
		}
		check("f", h.f, h.g)
		for k := range h.ce {
			check("c_eq", h.ce[k], h.gce[k])
		}
		for k := range h.ci {
			check("c_in", h.ci[k], h.gci[k])
		}
	}
}

func TestHockSchittkowski(t *testing.T) {
	for _, h := range hsProblems {
		t.Run(h.name, func(t *testing.T) {
			res, err := Minimize(context.Background(), h.problem(), h.x0, Settings{})
			if err != nil {
				t.Fatalf("error: %v", err)
			}
			xtol, ftol := h.xtol, h.ftol
			if xtol == 0 {
				xtol = 1e-5
			}
			if ftol == 0 {
				ftol = 1e-7
			}
			want := h.status
			if want == 0 {
				want = status.Converged
			}
			if want < 0 && (res.Status == status.Failure || res.Status == status.Infeasible) {
				t.Errorf("status %v on a degenerate problem", res.Status)
			}
			if want > 0 && res.Status != want {
				t.Errorf("status %v, want %v (iter %d, KKT %.3g, viol %.3g)", res.Status, want, res.Iter, res.KKT, res.Violation)
			}
			for i, v := range res.X {
				if math.Abs(v-h.xstar[i]) > xtol*(1+math.Abs(h.xstar[i])) {
					t.Errorf("x%d = %.9g, published %.9g", i+1, v, h.xstar[i])
				}
			}
			if math.Abs(res.F-h.fstar) > ftol*(1+math.Abs(h.fstar)) {
				t.Errorf("f = %.10g, published %.10g", res.F, h.fstar)
			}
			if res.Violation > 1e-7 {
				t.Errorf("constraint violation %g", res.Violation)
			}
			t.Logf("%s: f = %.10g (published %.10g) iter %d evals %d/%d KKT %.2g status %v",
				h.name, res.F, h.fstar, res.Iter, res.FuncEvals, res.GradEvals, res.KKT, res.Status)
		})
	}
}
