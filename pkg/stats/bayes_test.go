package stats

import (
	"math"
	"testing"
)

// TestCorrelatedTTestCases checks the cases with known answers: a
// difference symmetric about 0 with no ROPE splits ½/½; a constant
// difference is a point mass; fewer than two differences give NaN; and
// with ρ = 0 and n = 2 the posterior is a Cauchy (t with 1 df), whose CDF
// is ½ + atan(x)/π.
func TestCorrelatedTTestCases(t *testing.T) {
	p := CorrelatedTTest([]float64{-0.02, 0.02, -0.01, 0.01}, 0.3, 0)
	if math.Abs(float64(p.Worse)-0.5) > 1e-12 || math.Abs(float64(p.Better)-0.5) > 1e-12 || p.Equivalent != 0 {
		t.Errorf("symmetric, no ROPE: %+v", p)
	}
	if p := CorrelatedTTest([]float64{0.03, 0.03, 0.03}, 0.3, 0.01); p != (BayesProbs{0, 0, 1}) {
		t.Errorf("constant 0.03 > ROPE 0.01: %+v", p)
	}
	if p := CorrelatedTTest([]float64{0.005, 0.005}, 0.3, 0.01); p != (BayesProbs{0, 1, 0}) {
		t.Errorf("constant 0.005 in ROPE 0.01: %+v", p)
	}
	for _, bad := range [][]float64{nil, {0.1}} {
		if p := CorrelatedTTest(bad, 0.3, 0.01); p.Valid() {
			t.Errorf("%v: %+v, want NaN", bad, p)
		}
	}
	if p := CorrelatedTTest([]float64{0, 0.1}, 1, 0.01); p.Valid() {
		t.Errorf("ρ = 1: %+v, want NaN", p)
	}
	// d = {0, 0.1}: mean 0.05, s² = 0.005, scale √(½·0.005) = 0.05.
	p = CorrelatedTTest([]float64{0, 0.1}, 0, 0.01)
	cauchy := func(x float64) float64 { return 0.5 + math.Atan(x)/math.Pi }
	worse, better := cauchy((-0.01-0.05)/0.05), 1-cauchy((0.01-0.05)/0.05)
	if math.Abs(float64(p.Worse)-worse) > 1e-12 || math.Abs(float64(p.Better)-better) > 1e-12 {
		t.Errorf("Cauchy case: %+v, want worse %v better %v", p, worse, better)
	}
	if got := NadeauBengioRho(60, 100); got != 0.625 {
		t.Errorf("ρ(60, 100) = %v", got)
	}
}

// TestBayesSignedRankCases: reproducible for a seed; all differences far
// above the ROPE give P(better) = 1; all inside give P(equivalent) near 1
// (the prior's pseudo-observation at 0 is inside too); no difference is NaN.
func TestBayesSignedRankCases(t *testing.T) {
	d := []float64{0.02, -0.01, 0.005, 0.03, -0.002}
	a, b := BayesSignedRank(d, 0.01, 20000, 3), BayesSignedRank(d, 0.01, 20000, 3)
	if a != b {
		t.Errorf("same seed, different results: %+v %+v", a, b)
	}
	if c := BayesSignedRank(d, 0.01, 20000, 4); c == a {
		t.Errorf("another seed gives the very same fractions %+v", c)
	}
	if p := BayesSignedRank([]float64{0.1, 0.2, 0.15, 0.3, 0.12, 0.2}, 0.01, 5000, 1); p.Better != 1 {
		t.Errorf("all far above: %+v", p)
	}
	if p := BayesSignedRank([]float64{0.001, -0.002, 0.003, 0, 0.001, -0.001}, 0.01, 5000, 1); p.Equivalent != 1 {
		t.Errorf("all inside the ROPE: %+v", p)
	}
	if p := BayesSignedRank(nil, 0.01, 5000, 1); p.Valid() {
		t.Errorf("no differences: %+v", p)
	}
}
