package stats

// Bayesian comparisons of two methods with a region of practical
// equivalence (ROPE), as Benavoli, Corani, Demšar & Zaffalon (2017)
// recommend in place of null-hypothesis tests, and as baycomp and autorank
// compute them:
//
//   - on one dataset, over repeated random partitions, the Bayesian
//     correlated t-test (Corani & Benavoli 2015; Benavoli et al. 2017 §4):
//     the posterior of the mean difference is a Student t with n−1 degrees
//     of freedom, location the mean difference and scale
//     √((1/n + ρ/(1−ρ))·s²), where ρ is the correlation between the
//     partitions' differences, which overlap in their training parts:
//     Nadeau & Bengio's (2003) ρ = n_test/(n_test+n_train);
//   - across datasets, the Bayesian signed-rank test (Benavoli et al. 2014;
//     2017 §5): a Dirichlet process posterior on the distribution of the
//     per-dataset differences, with prior strength 0.5 at a pseudo-
//     observation 0, sampled by Monte Carlo.
//
// A. Benavoli, G. Corani, J. Demšar, M. Zaffalon, Time for a change: a
// tutorial for comparing multiple classifiers through Bayesian analysis,
// Journal of Machine Learning Research 18 (2017) 1–36.

import (
	"math"
	"math/rand/v2"

	"gonum.org/v1/gonum/stat/distuv"
)

// BayesProbs are the posterior probabilities that a method is worse than,
// practically equivalent to (within the ROPE), or better than another.
// They sum to 1; all NaN when the test cannot be run (fewer than two
// differences for the t-test, none for the signed-rank test).
type BayesProbs struct {
	Worse      Float `json:"p_worse"`
	Equivalent Float `json:"p_equivalent"`
	Better     Float `json:"p_better"`
}

// Valid reports whether the probabilities are numbers.
func (b BayesProbs) Valid() bool { return !math.IsNaN(float64(b.Worse)) }

// NaNProbs are the probabilities of a test that cannot be run.
func NaNProbs() BayesProbs {
	nan := Float(math.NaN())
	return BayesProbs{nan, nan, nan}
}

// CorrelatedTTest is the Bayesian correlated t-test of the differences
// diff (method − baseline, one per partition) with correlation rho between
// them (NadeauBengioRho for repeated random partitions) and the ROPE
// [−rope, rope]: P(worse) is the posterior mass below −rope, P(better)
// above rope, P(equivalent) between (Benavoli et al. 2017 §4, as baycomp's
// CorrelatedTTest). When every difference is the same (s² = 0) the
// posterior is a point mass at it. It needs 0 ≤ rho < 1 and at least two
// differences; else every probability is NaN.
func CorrelatedTTest(diff []float64, rho, rope float64) BayesProbs {
	n := len(diff)
	if n < 2 || !(rho >= 0 && rho < 1) || !(rope >= 0) {
		return NaNProbs()
	}
	mean := 0.0
	for _, d := range diff {
		mean += d
	}
	mean /= float64(n)
	v := 0.0
	for _, d := range diff {
		v += (d - mean) * (d - mean)
	}
	v /= float64(n - 1)
	scale := math.Sqrt((1/float64(n) + rho/(1-rho)) * v)
	if scale == 0 || v < 1e-24 {
		switch {
		case mean < -rope:
			return BayesProbs{1, 0, 0}
		case mean > rope:
			return BayesProbs{0, 0, 1}
		}
		return BayesProbs{0, 1, 0}
	}
	t := distuv.StudentsT{Mu: mean, Sigma: scale, Nu: float64(n - 1)}
	worse := t.CDF(-rope)
	better := t.Survival(rope)
	// 1 − worse − better, exactly 0 (not −6e-17) for a zero-width ROPE.
	return BayesProbs{Float(worse), Float(max(0, 1-worse-better)), Float(better)}
}

// NadeauBengioRho is the correlation Nadeau & Bengio (2003) assume between
// the differences of repeated random train/test partitions:
// n_test/(n_test+n_train).
func NadeauBengioRho(nTrain, nTest int) float64 {
	if nTrain+nTest <= 0 {
		return math.NaN()
	}
	return float64(nTest) / float64(nTest+nTrain)
}

// SignedRankPrior is the strength of the Dirichlet process prior of
// BayesSignedRank, on a pseudo-observation at 0 (Benavoli et al. 2017 §5).
const SignedRankPrior = 0.5

// SignedRankSamples and SignedRankSeed are the Monte Carlo samples and the
// seed of the posterior sampling the report uses: the probabilities are
// reproducible, within about ±0.005 (two standard errors at p = ½) of
// the exact posterior.
const (
	SignedRankSamples = 50000
	SignedRankSeed    = 1
)

// SignedRankResolution is the precision, in units of the metric, to which
// BayesSignedRank takes the differences and the ROPE: each is rounded to a
// multiple of it before the pairwise sums are formed, so that the sums are
// exact and a sum that lies on the ROPE's boundary (a difference of exactly
// 2·rope, or two that cancel) is classified as a tie, never by a rounding
// accident of the floating-point subtraction that produced it. It is the
// resolution at which the report holds mean scores (they are ratios of
// counts, whose distinct values are much further apart than this for any
// test set under 10⁸ rows), and far above the floating-point error of such
// a mean (about 1e-16).
const SignedRankResolution = 1e-9

// BayesSignedRank is the Bayesian signed-rank test of the differences diff
// (method − baseline, one per dataset) with the ROPE [−rope, rope]
// (Benavoli et al. 2014; 2017 §5), as baycomp's SignedRankTest computes it:
// the differences with a pseudo-observation z₀ = 0 get Dirichlet weights
// w ~ Dir(SignedRankPrior, 1, …, 1); for each of samples draws,
// θ_better = Σ_ij w_i w_j H(z_i + z_j − 2·rope),
// θ_worse = Σ_ij w_i w_j H(−z_i − z_j − 2·rope) and θ_equiv the rest, over
// all ordered pairs (i, j), where H is the Heaviside step with H(0) = ½:
// a sum exactly on a boundary of the ROPE counts half on each side, and at
// rope 0 a sum of exactly 0 (the pseudo-observation's own pair among them)
// counts half as worse and half as better, so that swapping the two
// methods (negating diff) swaps P(worse) and P(better) exactly. The
// differences and the ROPE are first rounded to SignedRankResolution, so
// that the sums are exact. Each probability is the fraction of draws where
// its θ is the largest; a tie between θs is shared equally (baycomp's
// argmax gives it to the first, "worse", which would break the symmetry).
// The draws come from a PCG generator seeded with seed, so the result is
// reproducible. It needs at least one difference, every one finite; else
// every probability is NaN.
func BayesSignedRank(diff []float64, rope float64, samples int, seed uint64) BayesProbs {
	if len(diff) == 0 || samples <= 0 || !(rope >= 0) || math.IsInf(rope, 0) {
		return NaNProbs()
	}
	grid := func(x float64) int64 { return int64(math.Round(x / SignedRankResolution)) }
	z := make([]int64, 1, len(diff)+1) // z[0] = 0, the pseudo-observation
	for _, d := range diff {
		if math.IsNaN(d) || math.IsInf(d, 0) || math.Abs(d) > 1e9 {
			return NaNProbs()
		}
		z = append(z, grid(d))
	}
	m := len(z)
	bound := 2 * grid(rope)
	// above[i*m+j], below[i*m+j]: H(s − 2r) and H(−s − 2r) of the Walsh sum
	// s = z_i + z_j, in halves (0, 1 or 2).
	above, below := make([]uint8, m*m), make([]uint8, m*m)
	heaviside2 := func(a, t int64) uint8 {
		switch {
		case a > t:
			return 2
		case a == t:
			return 1
		}
		return 0
	}
	for i := range z {
		for j := range z {
			s := z[i] + z[j]
			above[i*m+j] = heaviside2(s, bound)
			below[i*m+j] = heaviside2(-s, bound)
		}
	}
	half := [3]float64{0, 0.5, 1}
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	w := make([]float64, m)
	var wins [3]float64
	for range samples {
		sum := 0.0
		for i := range w {
			if i == 0 {
				g := rng.NormFloat64() // Gamma(½, 1) = Z²/2
				w[i] = g * g / 2
			} else {
				w[i] = rng.ExpFloat64() // Gamma(1, 1)
			}
			sum += w[i]
		}
		var theta [3]float64 // worse, equivalent, better
		for i := range m {
			wi := w[i] / sum
			up, down := above[i*m:(i+1)*m], below[i*m:(i+1)*m]
			for j := range m {
				wij := wi * w[j] / sum
				theta[0] += wij * half[down[j]]
				theta[1] += wij * half[2-down[j]-up[j]]
				theta[2] += wij * half[up[j]]
			}
		}
		best := max(theta[0], theta[1], theta[2])
		n := 0.0
		for _, t := range theta {
			if t == best {
				n++
			}
		}
		for k, t := range theta {
			if t == best {
				wins[k] += 1 / n
			}
		}
	}
	s := float64(samples)
	return BayesProbs{Float(wins[0] / s), Float(wins[1] / s), Float(wins[2] / s)}
}
