package stats

import (
	"math"
	"slices"

	"gonum.org/v1/gonum/integrate/quad"
	"gonum.org/v1/gonum/stat/distuv"
)

// RangeCDF returns P(R < q) for the range R = max − min of k independent
// standard normal variables, the studentised range at infinite degrees of
// freedom:
//
//	P(R < q) = k ∫ φ(z) [Φ(z+q) − Φ(z)]^(k−1) dz
//
// (e.g. Hochberg & Tamhane 1987, Multiple Comparison Procedures, App. 3),
// integrated by 400-point Gauss–Legendre quadrature over z ∈ [−10, 10],
// outside which φ is below 1e-21. It panics if k < 2.
func RangeCDF(q float64, k int) float64 {
	if k < 2 {
		panic("stats: RangeCDF: k < 2")
	}
	if q <= 0 {
		return 0
	}
	f := func(z float64) float64 {
		// Φ(z+q) − Φ(z) from the upper tails for z > 0, where both Φ are
		// near 1 and their difference would cancel.
		var d float64
		if z > 0 {
			d = 0.5 * (math.Erfc(z/math.Sqrt2) - math.Erfc((z+q)/math.Sqrt2))
		} else {
			d = 0.5 * (math.Erfc(-(z+q)/math.Sqrt2) - math.Erfc(-z/math.Sqrt2))
		}
		phi := math.Exp(-z*z/2) / math.Sqrt(2*math.Pi)
		return phi * math.Pow(d, float64(k-1))
	}
	return math.Min(1, float64(k)*quad.Fixed(f, -10, 10, 400, quad.Legendre{}, 0))
}

// RangeQuantile returns the q with RangeCDF(q, k) = p, by bisection to
// 1e-12. It panics if k < 2 or p is not in (0, 1).
func RangeQuantile(p float64, k int) float64 {
	if !(p > 0 && p < 1) {
		panic("stats: RangeQuantile: p not in (0, 1)")
	}
	lo, hi := 0.0, 1.0
	for RangeCDF(hi, k) < p {
		lo, hi = hi, 2*hi
	}
	for hi-lo > 1e-12 {
		mid := (lo + hi) / 2
		if RangeCDF(mid, k) < p {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// NemenyiQ returns the critical value q_α of the Nemenyi test for k
// methods: the 1−α quantile of the studentised range of k means at
// infinite degrees of freedom, divided by √2 (Demšar 2006, §3.2.2; his
// Table 5a lists these values to three decimals for k = 2..10, e.g.
// q_0.05 = 2.569 for k = 4, and he took them from the 3-decimal df = ∞
// tables of the studentised range, e.g. Harter (1960), Ann. Math. Statist.
// 31:1122–1147). Computing q rather than tabulating it serves any k; the
// tests check it against both tables for k ≤ 20 and against scipy's
// studentized_range. It panics if k < 2 or α is not in (0, 1).
func NemenyiQ(k int, alpha float64) float64 {
	return RangeQuantile(1-alpha, k) / math.Sqrt2
}

// BonferroniDunnQ returns the critical value of the Bonferroni–Dunn test of
// k−1 methods against a control: the two-sided normal quantile at α/(k−1),
// z_{1−α/(2(k−1))} (Demšar 2006, §3.2.2, Table 5b: 2.394 for k = 4 at
// α = 0.05).
func BonferroniDunnQ(k int, alpha float64) float64 {
	if k < 2 || !(alpha > 0 && alpha < 1) {
		panic("stats: BonferroniDunnQ: k < 2 or α not in (0, 1)")
	}
	return distuv.UnitNormal.Quantile(1 - alpha/(2*float64(k-1)))
}

// RankSE returns the standard error of the difference of two average ranks
// under the null hypothesis, sqrt(k(k+1)/(6N)) (Demšar 2006, §3.2.2).
func RankSE(k, n int) float64 {
	return math.Sqrt(float64(k*(k+1)) / (6 * float64(n)))
}

// CriticalDifference returns CD = q sqrt(k(k+1)/(6N)): two average ranks
// differ significantly when they differ by at least CD (Demšar 2006,
// §3.2.2).
func CriticalDifference(q float64, k, n int) float64 { return q * RankSE(k, n) }

// Groups returns the groups of methods a critical-difference diagram joins
// with a bar (Demšar 2006, §3.2.4, Figure 1): the maximal sets of methods,
// consecutive in average rank, whose average ranks all differ by less than
// cd, so that no two of them are significantly different. Each group lists
// method indices from the best average rank to the worst; groups are
// ordered by their best member, and methods that no other method joins are
// in no group.
func Groups(avgRanks []float64, cd float64) [][]int {
	order := make([]int, len(avgRanks))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case avgRanks[a] < avgRanks[b]:
			return -1
		case avgRanks[a] > avgRanks[b]:
			return 1
		}
		return 0
	})
	var out [][]int
	lastEnd := 0 // end of the previous group: a group ending there is inside it
	for s := range order {
		e := s + 1
		for e < len(order) && avgRanks[order[e]]-avgRanks[order[s]] < cd {
			e++
		}
		if e-s >= 2 && e > lastEnd {
			out = append(out, slices.Clone(order[s:e]))
			lastEnd = e
		}
	}
	return out
}

// HolmStep is one hypothesis of Holm's step-down test of a method against
// the control (Demšar 2006, §3.2.2; Holm 1979).
type HolmStep struct {
	Method string `json:"method"`
	// Z = (R_i − R_0) / sqrt(k(k+1)/(6N)), R_0 the control's average rank:
	// negative when the method ranks better than the control.
	Z Float `json:"z"`
	P Float `json:"p_value"` // two-sided, 2(1 − Φ(|z|))
	// Alpha is α/(k−i) for the i-th smallest p-value (i = 1..k−1).
	Alpha Float `json:"alpha"`
	// Adjusted is Holm's adjusted p-value, max_{j ≤ i} min(1, (k−j) p_j):
	// the hypothesis is rejected at any α above it.
	Adjusted Float `json:"adjusted_p_value"`
	// Reject is whether the step-down procedure rejects "the method is
	// equivalent to the control" at α: it compares p_1 with α/(k−1), p_2
	// with α/(k−2), … and stops at the first p it cannot reject, retaining
	// that hypothesis and all later ones.
	Reject bool `json:"reject"`
}

// Holm runs Holm's step-down procedure at level α on the k−1 comparisons of
// each method with the control (index control of avgRanks; n datasets) and
// returns them ordered by p-value, smallest first (ties in p by method
// order). It panics if control is out of range or there are fewer than two
// methods.
func Holm(names []string, avgRanks []float64, control, n int, alpha float64) []HolmStep {
	k := len(avgRanks)
	if k < 2 || control < 0 || control >= k || len(names) != k {
		panic("stats: Holm: bad control index or names")
	}
	se := RankSE(k, n)
	var steps []HolmStep
	for j, r := range avgRanks {
		if j == control {
			continue
		}
		z := (r - avgRanks[control]) / se
		steps = append(steps, HolmStep{
			Method: names[j],
			Z:      Float(z),
			P:      Float(math.Erfc(math.Abs(z) / math.Sqrt2)),
		})
	}
	slices.SortStableFunc(steps, func(a, b HolmStep) int {
		switch {
		case a.P < b.P:
			return -1
		case a.P > b.P:
			return 1
		}
		return 0
	})
	rejecting, adj := true, 0.0
	for i := range steps {
		m := float64(k - 1 - i) // k−i for the 1-based step i+1
		steps[i].Alpha = Float(alpha / m)
		adj = math.Max(adj, math.Min(1, m*float64(steps[i].P)))
		steps[i].Adjusted = Float(adj)
		rejecting = rejecting && float64(steps[i].P) <= alpha/m
		steps[i].Reject = rejecting
	}
	return steps
}

// WinTieLoss counts the datasets on which a method is significantly better
// than the control (a win), significantly worse (a loss), or neither (a tie).
type WinTieLoss struct {
	Wins   int `json:"wins"`
	Ties   int `json:"ties"`
	Losses int `json:"losses"`
}

// CountWinTieLoss counts wins, ties and losses from per-dataset tests: diff[i]
// is the method's score minus the control's on dataset i, p[i] the p-value
// of the per-dataset test (e.g. a paired Wilcoxon signed-rank test over the
// partitions; NaN when the test had nothing to test). A dataset is a win when
// p < α and diff > 0, a loss when p < α and diff < 0, a tie otherwise. It
// panics if the slices differ in length.
func CountWinTieLoss(diff, p []float64, alpha float64) WinTieLoss {
	if len(diff) != len(p) {
		panic("stats: CountWinTieLoss: length mismatch")
	}
	var w WinTieLoss
	for i, d := range diff {
		switch {
		case p[i] < alpha && d > 0:
			w.Wins++
		case p[i] < alpha && d < 0:
			w.Losses++
		default:
			w.Ties++
		}
	}
	return w
}
