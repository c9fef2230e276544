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
}

// tieTol is the relative tolerance under which two absolute differences are
// one tied value: accuracies are ratios k/m, and x−y computed in floating point
// can differ in the last bit for equal true differences.
const tieTol = 1e-9

// WilcoxonSignedRank runs the paired, two-sided Wilcoxon signed-rank test of x
// against y: zero differences dropped ("wilcox"), mid-ranks for ties, normal
// approximation with the tie correction of the variance and the continuity
// correction. It reproduces scipy.stats.wilcoxon(x, y, zero_method="wilcox",
// correction=True, method="approx") (reference values in
// testdata/wilcoxon/reference.json). It panics if len(x) != len(y).
func WilcoxonSignedRank(x, y []float64) Wilcoxon {
	if len(x) != len(y) {
		panic("stats: WilcoxonSignedRank: length mismatch")
	}
	d := make([]float64, 0, len(x))
	for i := range x {
		if diff := x[i] - y[i]; !isZeroDiff(diff, x[i], y[i]) {
			d = append(d, diff)
		}
	}
	n := len(d)
	if n == 0 {
		return Wilcoxon{P: math.NaN(), Z: math.NaN()}
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
			if d[k] > 0 {
				wPlus += rank
			} else {
				wMinus += rank
			}
		}
		t := float64(j - i)
		tieSum += t*t*t - t
		i = j
	}
	nf := float64(n)
	mean := nf * (nf + 1) / 4
	variance := nf*(nf+1)*(2*nf+1)/24 - tieSum/48
	T := math.Min(wPlus, wMinus)
	if variance <= 0 {
		return Wilcoxon{N: n, Statistic: T, P: 1, Z: 0}
	}
	corr := 0.5 * sign(T-mean)
	z := (T - mean - corr) / math.Sqrt(variance)
	p := math.Min(1, math.Erfc(math.Abs(z)/math.Sqrt2))
	return Wilcoxon{N: n, Statistic: T, Z: z, P: p}
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
