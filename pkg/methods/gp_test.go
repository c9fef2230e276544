package methods

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/kerneltune/kerneltune/internal/fdcheck"
)

// One observation y0 at x0 with noise σn²: the posterior is closed-form,
// μ(x) = k(x, x0) y0 / (σf² + σn²), v(x) = σf² - k(x, x0)² / (σf² + σn²),
// k the Matérn 5/2 covariance, here at r = |x - x0|/ℓ = 0.5:
// k = σf² (1 + √5/2 + 5/12) e^{-√5/2}.
func TestGPPosteriorClosedForm(t *testing.T) {
	sf2, sn2, ell := 2.0, 0.1, 0.4
	h := gpHyper{LogEll: []float64{math.Log(ell)}, LogSf2: math.Log(sf2), LogSn2: math.Log(sn2)}
	g, err := newGP([][]float64{{0.3}}, []float64{1.5}, h)
	if err != nil {
		t.Fatal(err)
	}
	k := sf2 * (1 + math.Sqrt(5)/2 + 5.0/12) * math.Exp(-math.Sqrt(5)/2)
	wantMu := k * 1.5 / (sf2 + sn2)
	wantV := sf2 - k*k/(sf2+sn2)
	mu, v := g.predict([]float64{0.3 + 0.5*ell}, nil, nil)
	if math.Abs(mu-wantMu) > 1e-12 || math.Abs(v-wantV) > 1e-12 {
		t.Errorf("posterior at r = 0.5: mean %.15g variance %.15g, want %.15g and %.15g", mu, v, wantMu, wantV)
	}
	// At the observation itself: μ = σf² y0/(σf² + σn²), v = σf² σn²/(σf² + σn²).
	mu, v = g.predict([]float64{0.3}, nil, nil)
	if math.Abs(mu-sf2*1.5/(sf2+sn2)) > 1e-12 || math.Abs(v-sf2*sn2/(sf2+sn2)) > 1e-12 {
		t.Errorf("posterior at x0: mean %.15g variance %.15g, want %.15g and %.15g", mu, v, sf2*1.5/(sf2+sn2), sf2*sn2/(sf2+sn2))
	}
	// The log marginal likelihood of one point: log N(y0; 0, σf² + σn²).
	s := sf2 + sn2
	if want := -0.5*1.5*1.5/s - 0.5*math.Log(2*math.Pi*s); math.Abs(g.logML()-want) > 1e-12 {
		t.Errorf("log marginal likelihood %.15g, want %.15g", g.logML(), want)
	}
}

// testGP returns a GP in two dimensions on eight random points of a smooth
// function, with unequal length scales.
func testGP(t *testing.T) (*gp, []float64) {
	rng := rand.New(rand.NewPCG(7, 1))
	var X [][]float64
	var y []float64
	for range 8 {
		x := []float64{rng.Float64(), rng.Float64()}
		X = append(X, x)
		y = append(y, math.Sin(3*x[0])+x[1]*x[1])
	}
	h := gpHyper{LogEll: []float64{math.Log(0.3), math.Log(0.7)}, LogSf2: math.Log(1.3), LogSn2: math.Log(0.01)}
	g, err := newGP(X, y, h)
	if err != nil {
		t.Fatal(err)
	}
	return g, y
}

func TestExpectedImprovementGradient(t *testing.T) {
	g, y := testGP(t)
	best := y[0]
	for _, v := range y {
		best = min(best, v)
	}
	for _, x := range [][]float64{{0.5, 0.5}, {0.1, 0.9}, {0.8, 0.2}} {
		grad := make([]float64, 2)
		ei := g.expectedImprovement(x, best, grad)
		if !(ei > 1e-6) {
			t.Fatalf("EI at %v = %g: a point with no improvement checks no gradient", x, ei)
		}
		fdcheck.Grad(t, "EI", func(x []float64) float64 { return g.expectedImprovement(x, best, nil) }, x, grad, fdcheck.Settings{})
	}
}

func TestGPLogMLGradient(t *testing.T) {
	g, y := testGP(t)
	th := append(append([]float64{}, g.h.LogEll...), g.h.LogSf2, g.h.LogSn2)
	f := func(th []float64) float64 {
		h := gpHyper{LogEll: th[:2], LogSf2: th[2], LogSn2: th[3]}
		g, err := newGP(g.X, y, h)
		if err != nil {
			t.Fatal(err)
		}
		return g.logML()
	}
	fdcheck.Grad(t, "log marginal likelihood", f, th, g.logMLGrad(), fdcheck.Settings{})
}

// branin is the Branin–Hoo function on x1 ∈ [-5, 10], x2 ∈ [0, 15],
// given in the unit box; its minimum is 0.397887 (at three points).
func branin(u []float64) float64 {
	x1, x2 := -5+15*u[0], 15*u[1]
	a, b, c := 1.0, 5.1/(4*math.Pi*math.Pi), 5/math.Pi
	r, s, tt := 6.0, 10.0, 1/(8*math.Pi)
	return a*math.Pow(x2-b*x1*x1+c*x1-r, 2) + s*(1-tt)*math.Cos(x1) + s
}

// Bayesian optimisation finds Branin's minimum 0.397887 within 0.01 in at
// most 40 evaluations (5 initial points), from a fixed seed.
func TestBayesBranin(t *testing.T) {
	b := &bayes{dim: 2, rng: rand.New(rand.NewPCG(1, boStream))}
	for _, x := range b.latinHypercube(5) {
		b.add(x, branin(x))
	}
	for len(b.X) < 40 {
		x, err := b.propose()
		if err != nil {
			t.Fatal(err)
		}
		b.add(x, branin(x))
		if best := minOf(b.Y); best-0.397887 < 0.01 {
			t.Logf("Branin: %.6f after %d evaluations", best, len(b.X))
			return
		}
	}
	t.Errorf("Branin: best %.6f after 40 evaluations, want within 0.01 of 0.397887", minOf(b.Y))
}

func minOf(v []float64) float64 {
	m := math.Inf(1)
	for _, x := range v {
		m = min(m, x)
	}
	return m
}
