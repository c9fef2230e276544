package sqp

import (
	"context"
	"math"
	"math/rand/v2"
	"os"
	"strconv"
	"testing"
	"time"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/status"
)

// slackProblem is an instance of the structure of Schittkowski's eq. (12):
//
//	min Σ z_i  s.t.  f_i(w) + z_i ≥ 0,  z ≥ 0,  -10 ≤ w ≤ 10,
//
// with f_i(w) = c_i - ½‖w - t_i‖², so the problem is convex and equivalent
// to min_w Σ max(0, ½‖w - t_i‖² - c_i). The variables are ordered (w, z) and
// z is declared linear.
type slackProblem struct {
	k, nt int
	t     [][]float64
	c     []float64
}

func newSlackProblem(seed uint64, k, nt int) *slackProblem {
	rng := rand.New(rand.NewPCG(seed, 7))
	sp := &slackProblem{k: k, nt: nt, t: make([][]float64, nt), c: make([]float64, nt)}
	for i := range sp.t {
		sp.t[i] = make([]float64, k)
		for j := range sp.t[i] {
			sp.t[i][j] = 2*rng.NormFloat64() + float64(j)
		}
		sp.c[i] = rng.Float64()
	}
	return sp
}

func (sp *slackProblem) f(i int, w []float64) float64 {
	var s float64
	for j, v := range w {
		s += sq(v - sp.t[i][j])
	}
	return sp.c[i] - 0.5*s
}

// reduced is the nonsmooth equivalent Σ max(0, -f_i(w)).
func (sp *slackProblem) reduced(w []float64) float64 {
	var s float64
	for i := 0; i < sp.nt; i++ {
		s += math.Max(0, -sp.f(i, w))
	}
	return s
}

func (sp *slackProblem) problem() Problem {
	k, nt := sp.k, sp.nt
	n := k + nt
	lo := make([]float64, n)
	hi := make([]float64, n)
	for i := range lo {
		if i < k {
			lo[i], hi[i] = -10, 10
		} else {
			lo[i], hi[i] = 0, math.Inf(1)
		}
	}
	return Problem{
		Dim: n, NumIneq: nt, NumLinear: nt, Lower: lo, Upper: hi,
		Func: func(x, _, ineq []float64) (float64, error) {
			var obj float64
			for i := 0; i < nt; i++ {
				ineq[i] = sp.f(i, x[:k]) + x[k+i]
				obj += x[k+i]
			}
			return obj, nil
		},
		Grad: func(x, grad []float64, _, jin *mat.Dense) error {
			for i := 0; i < nt; i++ {
				grad[k+i] = 1
				row := jin.RawRowView(i)
				for j := 0; j < k; j++ {
					row[j] = -(x[j] - sp.t[i][j])
				}
				row[k+i] = 1
			}
			return nil
		},
	}
}

// TestSlackStructureScale solves an 803-variable problem (the size of the
// outer problem of Schittkowski's eq. 12 on a1a; SQP_NT=N sets another size)
// with the same slack structure and checks optimality: converged status, tight
// slacks, and no better reduced objective on a grid around the solution.
func TestSlackStructureScale(t *testing.T) {
	t.Parallel()
	nt := 800
	if testing.Short() || raceEnabled {
		nt = 300
	}
	if v := os.Getenv("SQP_NT"); v != "" {
		var err error
		if nt, err = strconv.Atoi(v); err != nil || nt < 1 {
			t.Fatalf("SQP_NT=%q: want a positive integer", v)
		}
	}
	sp := newSlackProblem(3, 3, nt)
	n := sp.k + nt
	x0 := make([]float64, n)
	for i := 0; i < nt; i++ {
		x0[sp.k+i] = math.Max(0, -sp.f(i, x0[:sp.k])) + 1
	}
	start := time.Now()
	res, err := Minimize(context.Background(), sp.problem(), x0, Settings{})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("n = %d: status %v, f = %.10g, iter %d, evals %d/%d, KKT %.2g, %v",
		n, res.Status, res.F, res.Iter, res.FuncEvals, res.GradEvals, res.KKT, time.Since(start))
	if res.Status != status.Converged {
		t.Fatalf("status %v, want converged", res.Status)
	}
	w := res.X[:sp.k]
	fred := sp.reduced(w)
	if math.Abs(fred-res.F) > 1e-6*(1+fred) {
		t.Errorf("Σz = %.10g but Σ max(0, -f_i(w*)) = %.10g: slacks not tight", res.F, fred)
	}
	// Convex problem: nothing on a grid around w* may be better.
	for _, h := range []float64{1e-3, 1e-2, 1e-1} {
		for a := -2; a <= 2; a++ {
			for b := -2; b <= 2; b++ {
				for c := -2; c <= 2; c++ {
					v := []float64{w[0] + float64(a)*h, w[1] + float64(b)*h, w[2] + float64(c)*h}
					if fv := sp.reduced(v); fv < fred-1e-7*(1+fred) {
						t.Fatalf("reduced objective %.10g at %v is below the SQP's %.10g", fv, v, fred)
					}
				}
			}
		}
	}
}

func BenchmarkSlackStructure(b *testing.B) {
	for _, nt := range []int{200, 800} {
		sp := newSlackProblem(3, 3, nt)
		x0 := make([]float64, sp.k+nt)
		for i := 0; i < nt; i++ {
			x0[sp.k+i] = math.Max(0, -sp.f(i, x0[:sp.k])) + 1
		}
		b.Run("nt="+strconv.Itoa(nt), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Minimize(context.Background(), sp.problem(), x0, Settings{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
