package methods

import (
	"context"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// tlToy returns a noisy two-class problem in [0,1]^d whose first two features
// carry the class (an XOR-like pattern) and the rest are noise.
func tlToy(n, d int, seed uint64) *dataio.Dataset {
	rng := rand.New(rand.NewPCG(seed, 99))
	X := mat.NewDense(n, d, nil)
	y := make([]float64, n)
	for i := 0; i < n; i++ {
		row := X.RawRowView(i)
		for k := range row {
			row[k] = rng.Float64()
		}
		v := (row[0] - 0.5) * (row[1] - 0.5)
		if v+0.05*rng.NormFloat64() > 0 {
			y[i] = 1
		} else {
			y[i] = -1
		}
	}
	return &dataio.Dataset{Name: "toy", X: X, Y: y}
}

func tlToyProblem(t *testing.T, n, nt, d int) *tlProblem {
	t.Helper()
	ds := tlToy(n+nt, d, 5)
	_, _, Xs := tlMinMax(ds.X)
	idx := make([]int, n+nt)
	for i := range idx {
		idx[i] = i
	}
	return &tlProblem{
		X: kernel.SelectRows(Xs, idx[:n]), Xv: kernel.SelectRows(Xs, idx[n:]),
		y: ds.Y[:n], yv: ds.Y[n:], n: n, nt: nt, m: d,
		set: solver.Settings{Eps: 1e-5},
	}
}

// TestTwoLevelDerivatives checks Theorem 2.1 (∂α, ∂γ) and eq. 24 (∂f, with the
// corrected parenthesis in ∂f/∂ν) against central differences of the polished
// SVM solution, for every p_k and for ν.
func TestTwoLevelDerivatives(t *testing.T) {
	ctx := context.Background()
	for _, nu := range []float64{0.05, 1} {
		tp := tlToyProblem(t, 60, 80, 4)
		p := []float64{3, 2, 0.5, 1}
		if err := tp.eval(ctx, p, nu); err != nil {
			t.Fatal(err)
		}
		dp := mat.NewDense(tp.nt, tp.m, nil)
		dnu := make([]float64, tp.nt)
		if err := tp.grad(dp, dnu); err != nil {
			t.Fatal(err)
		}
		free := slices.Clone(tp.free)
		dGamma := slices.Clone(tp.dGamma)
		dAlpha := mat.DenseCopyOf(tp.dAlpha)
		if len(free) == tp.n || len(free) < 5 {
			t.Fatalf("ν = %g: %d of %d free: the test needs both free and bound α", nu, len(free), tp.n)
		}
		type point struct {
			alpha, f []float64
			gamma    float64
			free     []int
		}
		at := func(p []float64, nu float64) point {
			if err := tp.eval(ctx, p, nu); err != nil {
				t.Fatal(err)
			}
			return point{slices.Clone(tp.alpha), slices.Clone(tp.f), tp.gamma, slices.Clone(tp.free)}
		}
		for k := 0; k <= tp.m; k++ {
			h := 1e-6
			pp, pm := slices.Clone(p), slices.Clone(p)
			nup, num := nu, nu
			if k < tp.m {
				h *= p[k]
				pp[k] += h
				pm[k] -= h
			} else {
				h *= nu
				nup += h
				num -= h
			}
			a, b := at(pp, nup), at(pm, num)
			if !slices.Equal(a.free, free) || !slices.Equal(b.free, free) {
				t.Fatalf("parameter %d: the free set changed under a 1e-6 perturbation", k)
			}
			name := "ν"
			if k < tp.m {
				name = "p_" + itoaTL(k+1)
			}
			fdG := (a.gamma - b.gamma) / (2 * h)
			if math.Abs(fdG-dGamma[k]) > 1e-5*(1+math.Abs(fdG)) {
				t.Errorf("ν=%g ∂γ/∂%s = %.8g, finite difference %.8g", nu, name, dGamma[k], fdG)
			}
			for c, i := range free {
				fd := (a.alpha[i] - b.alpha[i]) / (2 * h)
				if got := dAlpha.At(c, k); math.Abs(fd-got) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("ν=%g ∂α_%d/∂%s = %.8g, finite difference %.8g", nu, i, name, got, fd)
				}
			}
			for l := 0; l < tp.nt; l++ {
				fd := (a.f[l] - b.f[l]) / (2 * h)
				got := dnu[l]
				if k < tp.m {
					got = dp.At(l, k)
				}
				if math.Abs(fd-got) > 1e-5*(1+math.Abs(fd)) {
					t.Errorf("ν=%g ∂f_%d/∂%s = %.8g, finite difference %.8g", nu, l, name, got, fd)
				}
			}
		}
	}
}

func itoaTL(v int) string { return string(rune('0' + v)) }

// TestTwoLevelPolish checks that the polished inner solution satisfies the KKT
// conditions (14) far more tightly than SMO's tolerance: Aα - e - γy = u with
// u_I = 0, u_J ≥ 0, yᵀα = 0, α ≥ 0.
func TestTwoLevelPolish(t *testing.T) {
	tp := tlToyProblem(t, 80, 10, 3)
	if err := tp.eval(context.Background(), []float64{2, 2, 2}, 0.01); err != nil {
		t.Fatal(err)
	}
	n := tp.n
	inI := make([]bool, n)
	for _, i := range tp.free {
		inI[i] = true
	}
	var ya float64
	for j := 0; j < n; j++ {
		ya += tp.y[j] * tp.alpha[j]
		var s float64
		for i := 0; i < n; i++ {
			s += tp.K.At(j, i) * tp.y[i] * tp.alpha[i]
		}
		u := tp.y[j]*s + 0.01*tp.alpha[j] - 1 - tp.gamma*tp.y[j]
		switch {
		case inI[j] && (math.Abs(u) > 1e-10 || tp.alpha[j] <= 0):
			t.Errorf("free α_%d = %g with u = %g", j, tp.alpha[j], u)
		case !inI[j] && (u < -1e-9 || tp.alpha[j] != 0):
			t.Errorf("bound α_%d = %g with u = %g", j, tp.alpha[j], u)
		}
	}
	if math.Abs(ya) > 1e-12 {
		t.Errorf("yᵀα = %g", ya)
	}
}
