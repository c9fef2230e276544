package stats

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"testing"
)

// signedRankReference is testdata/stats/signedrank_reference.json, what
// make_signedrank_reference.py computes with Python's standard library alone:
// baycomp's SignedRankTest (heaviside with ½ at 0, all ordered pairs),
// exact sums (fractions), Dirichlet draws from random.gammavariate.
type signedRankReference struct {
	Samples int `json:"samples"`
	Cases   []struct {
		Name     string     `json:"name"`
		Diff     []float64  `json:"diff"`
		Rope     float64    `json:"rope"`
		P        [3]float64 `json:"p"`
		PSwapped [3]float64 `json:"p_swapped"`
		Exact    []float64  `json:"exact"`
	} `json:"cases"`
}

// referenceTol is the Monte Carlo tolerance: kerneltune's 50000 draws and the
// reference's 100000 have standard errors of at most 0.0022 and 0.0016
// (p = ½), their difference at most 0.0027; 0.011 is four of those.
const referenceTol = 0.011

func probsOf(b BayesProbs) [3]float64 {
	return [3]float64{float64(b.Worse), float64(b.Equivalent), float64(b.Better)}
}

// noisy returns each difference as a floating-point subtraction of two
// accuracies, (base + d) − base, which is not exactly d: the test must
// classify it as d.
func noisy(diff []float64, base float64) []float64 {
	out := make([]float64, len(diff))
	for i, d := range diff {
		out[i] = (base + d) - base
	}
	return out
}

// TestBayesSignedRankMatchesBaycompReference checks P(worse), P(equivalent)
// and P(better) against the independent computation on cases whose pairwise
// sums lie on ±2·rope and, at rope 0, on 0, for the differences as given, as
// the floating-point subtractions of accuracies that produce them, and with
// the two methods swapped.
func TestBayesSignedRankMatchesBaycompReference(t *testing.T) {
	b, err := os.ReadFile("../../testdata/stats/signedrank_reference.json")
	if err != nil {
		t.Fatal(err)
	}
	var ref signedRankReference
	if err := json.Unmarshal(b, &ref); err != nil {
		t.Fatal(err)
	}
	if len(ref.Cases) != 5 || ref.Samples != 100000 {
		t.Fatalf("reference has %d cases of %d draws, want 5 of 100000", len(ref.Cases), ref.Samples)
	}
	neg := func(d []float64) []float64 {
		out := make([]float64, len(d))
		for i, x := range d {
			out[i] = -x
		}
		return out
	}
	for _, c := range ref.Cases {
		t.Run(c.Name, func(t *testing.T) {
			for _, run := range []struct {
				what string
				diff []float64
				want [3]float64
			}{
				{"as given", c.Diff, c.P},
				{"as subtractions", noisy(c.Diff, 0.8933333333333333), c.P},
				{"swapped", neg(c.Diff), c.PSwapped},
				{"swapped, as subtractions", noisy(neg(c.Diff), 0.7066666666666667), c.PSwapped},
			} {
				got := probsOf(BayesSignedRank(run.diff, c.Rope, SignedRankSamples, SignedRankSeed))
				for k := range got {
					if math.Abs(got[k]-run.want[k]) > referenceTol {
						t.Errorf("%s: P = %.4f, reference %.4f", run.what, got, run.want)
						break
					}
				}
				if s := got[0] + got[1] + got[2]; math.Abs(s-1) > 1e-12 {
					t.Errorf("%s: probabilities sum to %v", run.what, s)
				}
			}
			if c.Exact != nil {
				got := probsOf(BayesSignedRank(c.Diff, c.Rope, SignedRankSamples, SignedRankSeed))
				for k := range got {
					if math.Abs(got[k]-c.Exact[k]) > 0.009 {
						t.Errorf("P = %.4f, exact %.4f", got, c.Exact)
						break
					}
				}
			}
		})
	}
}

// TestBayesSignedRankSwapIsSymmetric is the property that swapping the two
// methods (negating every difference) swaps P(worse) and P(better) and keeps
// P(equivalent), exactly for the same draws, at rope 0 and at rope 1 point,
// on random differences on a grid of 1/300 (accuracies over 300 test rows)
// with many ties and sums on 0 and ±2·rope.
func TestBayesSignedRankSwapIsSymmetric(t *testing.T) {
	rng := rand.New(rand.NewPCG(4, 2))
	for trial := range 40 {
		n := 1 + rng.IntN(12)
		d, nd := make([]float64, n), make([]float64, n)
		for i := range d {
			k := float64(rng.IntN(13) - 6) // −6/300 … 6/300: −2 … 2 points
			d[i] = (0.8 + k/300) - 0.8
			nd[i] = (0.6 - k/300) - 0.6
		}
		for _, rope := range []float64{0, 0.01, 1.0 / 300} {
			a := BayesSignedRank(d, rope, 4000, uint64(trial))
			b := BayesSignedRank(nd, rope, 4000, uint64(trial))
			if a.Worse != b.Better || a.Better != b.Worse || a.Equivalent != b.Equivalent {
				t.Errorf("trial %d, rope %v, d = %v: %+v, swapped %+v", trial, rope, d, a, b)
			}
			if rope == 0 && a.Equivalent != 0 {
				t.Errorf("rope 0: P(equivalent) = %v, want 0", a.Equivalent)
			}
		}
	}
	// Every difference 0 at rope 0: θ_worse = θ_better = ½ in every draw.
	if p := BayesSignedRank([]float64{0, 0, 0}, 0, 1000, 1); p != (BayesProbs{0.5, 0, 0.5}) {
		t.Errorf("all zero at rope 0: %+v, want ½, 0, ½", p)
	}
}

// TestBayesSignedRankRefusesNonFinite: a NaN or infinite difference gives
// NaN probabilities, not a number computed from garbage.
func TestBayesSignedRankRefusesNonFinite(t *testing.T) {
	for _, d := range [][]float64{{0.01, math.NaN()}, {math.Inf(1)}} {
		if p := BayesSignedRank(d, 0.01, 100, 1); p.Valid() {
			t.Errorf("%v: %+v, want NaN", d, p)
		}
	}
}
