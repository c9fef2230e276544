package stats

import (
	"math"
	"sort"
)

// Wilcoxon is the result of a paired Wilcoxon signed-rank test.
type Wilcoxon struct {
	N         int     // pairs with a non-zero difference
	Statistic float64 // min(W+, W−), as scipy reports it
	Z         float64 // normal-approximation z score (tie and continuity corrected)
	P         float64 // two-sided p-value; NaN when N == 0
	// Exact is true when P is from the exact null distribution of the
	// statistic, false when it is the normal approximation.
	Exact bool
}

// ExactMaxN is the largest number of pairs for which WilcoxonSignedRank
// uses the exact distribution (without ties or zero differences), as
// scipy.stats.wilcoxon's default method="auto".
const ExactMaxN = 50

// tieTol is the relative tolerance under which two absolute differences are
// one tied value: accuracies are ratios k/m, and x−y computed in floating point
// can differ in the last bit for equal true differences.
const tieTol = 1e-9

// ExactTiesMaxN is the largest number of pairs for which
// WilcoxonSignedRank computes the p-value of data with ties or zero
// differences exactly, over the 2ⁿ sign assignments of the actual
// mid-ranks, as scipy.stats.wilcoxon's method="auto" does since scipy 1.15
// (a permutation test, exhaustive for at most 13 pairs).
const ExactTiesMaxN = 13

// WilcoxonSignedRank runs the paired, two-sided Wilcoxon signed-rank test of x
// against y, choosing the p-value as scipy.stats.wilcoxon's default
// method="auto" does (scipy 1.15 and later): the exact null distribution of
// the statistic (every one of the 2ⁿ sign assignments equally likely) when
// there are at most ExactMaxN pairs, no zero difference and no tied
// absolute differences; with ties or zeros and at most ExactTiesMaxN pairs,
// the same enumeration over the signs of the actual mid-ranks (zeros
// dropped); otherwise WilcoxonApprox's normal approximation. The exact p is
// min(1, 2·P(T ≤ t)), e.g. 2/32 = 0.0625 for five pairs all of one sign, the
// smallest p five pairs can give, tied or not (the normal approximation
// gave five equal differences p = 0.037, below that minimum). It panics if
// len(x) != len(y).
func WilcoxonSignedRank(x, y []float64) Wilcoxon {
	w, ties, zeros, ranks2 := wilcoxonRanks(x, y)
	switch {
	case w.N == 0 || w.N > ExactMaxN:
		return w
	case ties || zeros:
		if len(x) > ExactTiesMaxN {
			return w
		}
		w.P = signFlipP(ranks2, int(math.Round(2*w.Statistic)))
	default:
		w.P = math.Min(1, 2*signedRankCDF(w.N, int(w.Statistic)))
	}
	w.Exact = true
	return w
}

// signFlipP is the two-sided p of the signed-rank statistic over the 2ⁿ
// equally likely sign assignments of ranks r2 (twice the mid-ranks, so
// integers) given t2, twice the observed min(W+, W−): 2·P(W+ ≤ t2/2),
// capped at 1 (the distribution of W+ is symmetric about the half of the
// ranks' sum, so that is 2·min(P(W+ ≤ w), P(W+ ≥ w)) of either W+).
// The counts of each sum are built one rank at a time, as signedRankCDF's,
// and stay exact in float64 for n ≤ ExactTiesMaxN.
func signFlipP(r2 []int, t2 int) float64 {
	total := 0
	for _, r := range r2 {
		total += r
	}
	c := make([]float64, total+1)
	c[0] = 1
	top := 0
	for _, r := range r2 {
		top += r
		for s := top; s >= r; s-- {
			c[s] += c[s-r]
		}
	}
	var below float64
	for s := 0; s <= min(t2, total); s++ {
		below += c[s]
	}
	return math.Min(1, 2*below/math.Exp2(float64(len(r2))))
}

// WilcoxonApprox runs the paired, two-sided Wilcoxon signed-rank test of x
// against y with the normal approximation: zero differences dropped
// ("wilcox"), mid-ranks for ties, the tie correction of the variance and the
// continuity correction. It reproduces scipy.stats.wilcoxon(x, y,
// zero_method="wilcox", correction=True, method="approx") (reference values
// in testdata/wilcoxon/reference.json). It panics if len(x) != len(y).
func WilcoxonApprox(x, y []float64) Wilcoxon {
	w, _, _, _ := wilcoxonRanks(x, y)
	return w
}

// signedRankCDF is P(W ≤ t) for the signed-rank statistic W of n pairs
// without ties under the null hypothesis: the number of subsets of
// {1, …, n} with sum ≤ t over 2ⁿ, counted by the recursion over the largest
// rank (c_n(s) = c_{n−1}(s) + c_{n−1}(s−n)). Counts stay below 2⁵³ for
// n ≤ ExactMaxN, so float64 holds them exactly.
func signedRankCDF(n, t int) float64 {
	if t < 0 {
		return 0
	}
	maxSum := n * (n + 1) / 2
	c := make([]float64, maxSum+1)
	c[0] = 1
	for k := 1; k <= n; k++ {
		for s := k * (k + 1) / 2; s >= k; s-- {
			c[s] += c[s-k]
		}
	}
	var below float64
	for s := 0; s <= min(t, maxSum); s++ {
		below += c[s]
	}
	return below / math.Exp2(float64(n))
}

// wilcoxonRanks computes the statistic and the normal approximation,
// reports whether the absolute differences have ties and whether any
// difference was zero, and returns the ranks of the non-zero differences,
// doubled (mid-ranks are halves).
func wilcoxonRanks(x, y []float64) (w Wilcoxon, ties, zeros bool, ranks2 []int) {
	if len(x) != len(y) {
		panic("stats: WilcoxonSignedRank: length mismatch")
	}
	d := make([]float64, 0, len(x))
	for i := range x {
		if diff := x[i] - y[i]; !isZeroDiff(diff, x[i], y[i]) {
			d = append(d, diff)
		} else {
			zeros = true
		}
	}
	n := len(d)
	if n == 0 {
		return Wilcoxon{P: math.NaN(), Z: math.NaN()}, false, zeros, nil
	}
	sort.Slice(d, func(i, j int) bool { return math.Abs(d[i]) < math.Abs(d[j]) })
	var wPlus, wMinus, tieSum float64
	for i := 0; i < n; {
		j := i + 1
		for j < n && math.Abs(math.Abs(d[j])-math.Abs(d[i])) <= tieTol*math.Abs(d[i]) {
			j++
		}
		rank := float64(i+j+1) / 2 // mid-rank of positions i..j-1 (1-based)
		for k := i; k < j; k++ {
			ranks2 = append(ranks2, i+j+1)
			if d[k] > 0 {
				wPlus += rank
			} else {
				wMinus += rank
			}
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		ties = ties || j-i > 1
		i = j
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	variance := nf*(nf+1)*(2*nf+1)/24 - tieSum/48
	T := math.Min(wPlus, wMinus)
	if variance <= 0 {
		return Wilcoxon{N: n, Statistic: T, P: 1, Z: 0}, ties, zeros, ranks2
	}
	corr := 0.5 * sign(T-mean)
	z := (T - mean - corr) / math.Sqrt(variance)
	p := math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
	return Wilcoxon{N: n, Statistic: T, Z: z, P: p}, ties, zeros, ranks2
}

// isZeroDiff reports whether d = x−y is zero up to rounding.
func isZeroDiff(d, x, y float64) bool {
	return math.Abs(d) <= tieTol*math.Max(math.Abs(x), math.Abs(y))
}

func sign(v float64) float64 {
	switch {
	case v > 0:
		return 1
	case v < 0:
		return -1
	}
	return 0
}
