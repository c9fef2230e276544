package sqp

import (
	"errors"
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// randomQP builds a strictly convex QP with neq equalities, mi inequalities and
// random bounds; its constraints are satisfied at a random point, so it is
// feasible.
func randomQP(rng *rand.Rand, n, neq, mi int) (*qpProblem, *mat.SymDense) {
	a := mat.NewDense(n, n, nil)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			a.Set(i, j, rng.NormFloat64())
		}
	}
	g := mat.NewSymDense(n, nil)
	g.SymOuterK(1, a)
	for i := 0; i < n; i++ {
		g.SetSym(i, i, g.At(i, i)+0.1)
	}
	b := make([]float64, n*n)
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			b[i*n+j] = g.At(i, j)
		}
	}
	linv, ok := invCholFactor(b, n, 0)
	if !ok {
		panic("not SPD")
	}
	xf := make([]float64, n)
	for i := range xf {
		xf[i] = rng.NormFloat64()
	}
	m := neq + mi
	A := make([]float64, m*n)
	rhs := make([]float64, m)
	for k := 0; k < m; k++ {
		var v float64
		for j := 0; j < n; j++ {
			if rng.Float64() < 0.6 {
				A[k*n+j] = rng.NormFloat64()
				v += A[k*n+j] * xf[j]
			}
		}
		if k < neq {
			rhs[k] = v
		} else {
			rhs[k] = v - rng.Float64()
		}
	}
	lin := make([]float64, n)
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i := 0; i < n; i++ {
		lin[i] = 5 * rng.NormFloat64()
		lo[i], hi[i] = math.Inf(-1), math.Inf(1)
		if rng.Float64() < 0.5 {
			lo[i] = xf[i] - rng.Float64()
		}
		if rng.Float64() < 0.5 {
			hi[i] = xf[i] + rng.Float64()
		}
	}
	return &qpProblem{n: n, linv: linv, a: lin, A: A, b: rhs, m: m, neq: neq, lo: lo, hi: hi}, g
}

// TestGoldfarbIdnaniKKT checks the KKT conditions of random QPs at the
// returned solution: stationarity Gx + a = Aᵀλ + μ, feasibility, λ ≥ 0 on
// inequalities, bound multipliers of the right sign, complementarity.
func TestGoldfarbIdnaniKKT(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for trial := 0; trial < 200; trial++ {
		n := 2 + rng.IntN(15)
		neq := rng.IntN(n / 2)
		mi := rng.IntN(2 * n)
		p, g := randomQP(rng, n, neq, mi)
		res, err := solveQP(p, 1e-12)
		if err != nil {
			t.Fatalf("trial %d (n=%d neq=%d mi=%d): %v", trial, n, neq, mi, err)
		}
		x := res.x
		scale := 1.0
		for _, v := range p.a {
			scale = math.Max(scale, math.Abs(v))
		}
		// Stationarity.
		r := make([]float64, n)
		for i := 0; i < n; i++ {
			r[i] = p.a[i] - res.mu[i]
			for j := 0; j < n; j++ {
				r[i] += g.At(i, j) * x[j]
			}
		}
		for k := 0; k < p.m; k++ {
			for j := 0; j < n; j++ {
				r[j] -= res.lambda[k] * p.A[k*n+j]
			}
		}
		for i, v := range r {
			if math.Abs(v) > 1e-8*scale {
				t.Fatalf("trial %d: stationarity residual %d = %g", trial, i, v)
			}
		}
		for k := 0; k < p.m; k++ {
			var ax float64
			for j := 0; j < n; j++ {
				ax += p.A[k*n+j] * x[j]
			}
			s := ax - p.b[k]
			if k < p.neq {
				if math.Abs(s) > 1e-9*(1+math.Abs(p.b[k])) {
					t.Fatalf("trial %d: equality %d residual %g", trial, k, s)
				}
				continue
			}
			if s < -1e-9*(1+math.Abs(p.b[k])) || res.lambda[k] < -1e-12 ||
				math.Abs(res.lambda[k]*s) > 1e-8*scale {
				t.Fatalf("trial %d: inequality %d slack %g multiplier %g", trial, k, s, res.lambda[k])
			}
		}
		for i := 0; i < n; i++ {
			if x[i] < p.lo[i]-1e-9 || x[i] > p.hi[i]+1e-9 {
				t.Fatalf("trial %d: x%d = %g outside [%g, %g]", trial, i, x[i], p.lo[i], p.hi[i])
			}
			switch {
			case res.mu[i] > 1e-10 && math.Abs(x[i]-p.lo[i]) > 1e-9:
				t.Fatalf("trial %d: bound multiplier %g on x%d = %g off its lower bound %g", trial, res.mu[i], i, x[i], p.lo[i])
			case res.mu[i] < -1e-10 && math.Abs(x[i]-p.hi[i]) > 1e-9:
				t.Fatalf("trial %d: bound multiplier %g on x%d = %g off its upper bound %g", trial, res.mu[i], i, x[i], p.hi[i])
			}
		}
	}
}

func TestGoldfarbIdnaniInfeasible(t *testing.T) {
	// x ≥ 1 and -x ≥ 0 cannot both hold.
	p := &qpProblem{n: 1, linv: []float64{1}, a: []float64{0}, A: []float64{1, -1},
		b: []float64{1, 0}, m: 2, lo: []float64{math.Inf(-1)}, hi: []float64{math.Inf(1)}}
	if _, err := solveQP(p, 1e-12); !errors.Is(err, errQPInfeasible) {
		t.Fatalf("err = %v, want errQPInfeasible", err)
	}
	// Bounds 0 ≤ x ≤ 1 against x ≥ 2.
	p = &qpProblem{n: 1, linv: []float64{1}, a: []float64{0}, A: []float64{1},
		b: []float64{2}, m: 1, lo: []float64{0}, hi: []float64{1}}
	if _, err := solveQP(p, 1e-12); !errors.Is(err, errQPInfeasible) {
		t.Fatalf("err = %v, want errQPInfeasible", err)
	}
}
