package stats

import (
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"
	"slices"
	"sort"
	"testing"
)

// bruteExactP is the exact two-sided p of the signed-rank test of
// differences d without ties or zeros, by enumerating all 2ⁿ sign
// assignments of the ranks 1..n: 2·#{W+ ≤ t}/2ⁿ, t = min(W+, W−), capped at
// 1. It shares no code with signedRankCDF.
func bruteExactP(t *testing.T, d []float64) (stat float64, p float64) {
	t.Helper()
	n := len(d)
	wPlus, wMinus := rankSums(d)
	stat = math.Min(wPlus, wMinus)
	// sum[m] is the sum of the ranks whose bits are set in m (the ranks
	// of the positive differences): sum[m] = sum[m without its lowest bit]
	// + that bit's rank.
	sum := make([]int32, 1<<n)
	var le float64
	for m := 0; m < 1<<n; m++ {
		if m > 0 {
			sum[m] = sum[m&(m-1)] + int32(bits.TrailingZeros(uint(m))) + 1
		}
		if float64(sum[m]) <= stat {
			le++
		}
	}
	return stat, math.Min(1, 2*le/math.Exp2(float64(n)))
}

// splitExactP is bruteExactP for larger n (30: 2³⁰ sign assignments are too
// many to walk in a test): the subset sums of the ranks 1..h and h+1..n are
// enumerated separately (2 × 2¹⁵) and the pairs with total ≤ t counted with
// two pointers over the sorted halves.
func splitExactP(t *testing.T, d []float64) (stat float64, p float64) {
	t.Helper()
	n := len(d)
	wPlus, wMinus := rankSums(d)
	stat = math.Min(wPlus, wMinus)
	h := n / 2
	sums := func(lo, hi int) []int {
		out := []int{0}
		for r := lo; r <= hi; r++ {
			for _, s := range slices.Clone(out) {
				out = append(out, s+r)
			}
		}
		sort.Ints(out)
		return out
	}
	a, b := sums(1, h), sums(h+1, n)
	var le float64
	j := len(b) - 1
	for _, x := range a {
		for j >= 0 && float64(x+b[j]) > stat {
			j--
		}
		le += float64(j + 1)
	}
	return stat, math.Min(1, 2*le/math.Exp2(float64(n)))
}

// rankSums ranks |d| (no ties) and sums the ranks of the positive and
// negative differences.
func rankSums(d []float64) (wPlus, wMinus float64) {
	idx := make([]int, len(d))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return math.Abs(d[idx[a]]) < math.Abs(d[idx[b]]) })
	for r, i := range idx {
		if d[i] > 0 {
			wPlus += float64(r + 1)
		} else {
			wMinus += float64(r + 1)
		}
	}
	return wPlus, wMinus
}

// distinctDiffs draws n differences with distinct absolute values, a share
// pos of them positive on average.
func distinctDiffs(rng *rand.Rand, n int, pos float64) []float64 {
	d := make([]float64, n)
	perm := rng.Perm(n)
	for i := range d {
		d[i] = float64(perm[i]+1) * 0.01
		if rng.Float64() >= pos {
			d[i] = -d[i]
		}
	}
	return d
}

// TestWilcoxonExactMatchesEnumeration: without ties and zeros the p is the
// exact one, for n = 5, 10, 20 (every sign assignment enumerated) and
// n = 30 (enumerated by halves), for samples from balanced to one-sided.
func TestWilcoxonExactMatchesEnumeration(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 5))
	for _, n := range []int{5, 10, 20, 30} {
		for _, pos := range []float64{0.5, 0.75, 0.9, 1} {
			for rep := 0; rep < 2; rep++ {
				d := distinctDiffs(rng, n, pos)
				y := make([]float64, n)
				x := make([]float64, n)
				for i := range d {
					y[i] = 0.5
					x[i] = 0.5 + d[i]
				}
				var stat, want float64
				if n <= 20 {
					stat, want = bruteExactP(t, d)
				} else {
					stat, want = splitExactP(t, d)
				}
				w := WilcoxonSignedRank(x, y)
				name := fmt.Sprintf("n=%d pos=%g #%d", n, pos, rep)
				if !w.Exact || w.N != n {
					t.Errorf("%s: %+v, want the exact test over %d pairs", name, w, n)
				}
				if w.Statistic != stat || math.Abs(w.P-want) > 1e-13*want {
					t.Errorf("%s: T = %v p = %.17g, enumeration T = %v p = %.17g", name, w.Statistic, w.P, stat, want)
				}
			}
		}
	}
}

// TestWilcoxonExactScipyDocumented: values scipy documents for its default
// method="auto". Five pairs all of one sign give the smallest p five pairs
// can: 2/2⁵ = 0.0625 (the normal approximation, which kerneltune used before,
// says 0.0591 — below it). Fisher's 15 differences from scipy.stats.wilcoxon's
// docstring give statistic 24 and p = 0.041259765625.
func TestWilcoxonExactScipyDocumented(t *testing.T) {
	base := []float64{0.8, 0.8, 0.8, 0.8, 0.8}
	better := []float64{0.82, 0.83, 0.84, 0.85, 0.86}
	w := WilcoxonSignedRank(better, base)
	if !w.Exact || w.Statistic != 0 || w.P != 0.0625 {
		t.Errorf("n = 5 all positive: %+v, want exact T = 0, p = 0.0625", w)
	}
	// z = (0 − 7.5 + 0.5)/√13.75: p = erfc(|z|/√2) = 0.05906
	if a := WilcoxonApprox(better, base); a.Exact || math.Abs(a.P-0.0590582290905367) > 1e-15 {
		t.Errorf("n = 5 all positive, approximation: %+v, want p = 0.0590582290905367", a)
	}
	d := []float64{6, 8, 14, 16, 23, 24, 28, 29, 41, -48, 49, 56, 60, -67, 75}
	zero := make([]float64, len(d))
	w = WilcoxonSignedRank(d, zero)
	if !w.Exact || w.Statistic != 24 || w.P != 0.041259765625 {
		t.Errorf("scipy docstring example: %+v, want exact T = 24, p = 0.041259765625", w)
	}
}

// TestWilcoxonAutoFallsBack: ties or a zero difference in more than
// ExactTiesMaxN pairs, or more than ExactMaxN pairs, make the default test
// the normal approximation, as scipy's "auto"; with fewer pairs ties and
// zeros are tested exactly (TestWilcoxonExactWithTies).
func TestWilcoxonAutoFallsBack(t *testing.T) {
	rng := rand.New(rand.NewPCG(23, 6))
	mk := func(d []float64) (x, y []float64) {
		for _, v := range d {
			x, y = append(x, 1+v), append(y, 1)
		}
		return x, y
	}
	cases := map[string][]float64{
		"n=14 ties":  append(distinctDiffs(rng, 12, 0.7), 0.5, -0.5),
		"n=14 zero":  append(distinctDiffs(rng, 13, 0.7), 0),
		"n=51":       distinctDiffs(rng, ExactMaxN+1, 0.7),
		"n=30 ties":  append(distinctDiffs(rng, 28, 0.6), 0.05, -0.05),
		"n=30 zeros": append(distinctDiffs(rng, 28, 0.6), 0, 0),
	}
	for name, d := range cases {
		x, y := mk(d)
		w, a := WilcoxonSignedRank(x, y), WilcoxonApprox(x, y)
		if w.Exact || w != a {
			t.Errorf("%s: auto %+v, want the approximation %+v", name, w, a)
		}
	}
	// Without the tie, the same n = 10 sample is tested exactly.
	x, y := mk(distinctDiffs(rng, 10, 0.7))
	if w := WilcoxonSignedRank(x, y); !w.Exact {
		t.Errorf("n = 10, no ties or zeros: %+v, want exact", w)
	}
}

// TestSignedRankCDFSymmetric: the null distribution of W is symmetric about
// n(n+1)/4 and sums to one, for every n up to ExactMaxN.
func TestSignedRankCDFSymmetric(t *testing.T) {
	for _, n := range []int{1, 2, 7, 23, ExactMaxN} {
		m := n * (n + 1) / 2
		if c := signedRankCDF(n, m); c != 1 {
			t.Fatalf("n = %d: P(W ≤ %d) = %v, want 1", n, m, c)
		}
		for k := 0; k < m; k += max(1, m/40) {
			// P(W ≤ k) = P(W ≥ m−k) = 1 − P(W ≤ m−k−1)
			if a, b := signedRankCDF(n, k), 1-signedRankCDF(n, m-k-1); math.Abs(a-b) > 1e-15 {
				t.Fatalf("n = %d, k = %d: %v vs %v", n, k, a, b)
			}
		}
	}
}

// bruteTiedP is the exact two-sided p of the signed-rank test of
// differences d with ties and zeros, written apart from the package's:
// zeros dropped, mid-ranks of |d|, and every one of the 2ⁿ sign assignments
// of those ranks walked: 2·min(#{W+ ≤ w}, #{W+ ≥ w})/2ⁿ of the observed W+
// w, capped at 1 (scipy's permutation test over the signs).
func bruteTiedP(d []float64) float64 {
	var nz []float64
	for _, v := range d {
		if v != 0 {
			nz = append(nz, v)
		}
	}
	n := len(nz)
	rank := make([]float64, n)
	for i, v := range nz {
		below, same := 0, 0
		for _, u := range nz {
			switch {
			case math.Abs(u) < math.Abs(v):
				below++
			case math.Abs(u) == math.Abs(v):
				same++
			}
		}
		rank[i] = float64(below) + float64(same+1)/2
	}
	obs := 0.0
	for i, v := range nz {
		if v > 0 {
			obs += rank[i]
		}
	}
	var le, ge float64
	for m := 0; m < 1<<n; m++ {
		w := 0.0
		for i := range n {
			if m>>i&1 == 1 {
				w += rank[i]
			}
		}
		if w <= obs {
			le++
		}
		if w >= obs {
			ge++
		}
	}
	return math.Min(1, 2*math.Min(le, ge)/math.Exp2(float64(n)))
}

// TestWilcoxonExactWithTies (issue 42): with ties or zero differences in at
// most ExactTiesMaxN pairs the p is the exact one over the signs of the
// actual mid-ranks, as enumerated apart. Five equal differences (five
// identical partitions) give 2/32 = 0.0625, the smallest p five pairs can
// give; the normal approximation gave 0.037, below it.
func TestWilcoxonExactWithTies(t *testing.T) {
	same := []float64{-0.02, -0.02, -0.02, -0.02, -0.02}
	zero := make([]float64, 5)
	if w := WilcoxonSignedRank(same, zero); !w.Exact || w.P != 0.0625 || w.Statistic != 0 {
		t.Errorf("five equal differences: %+v, want exact p = 0.0625", w)
	}
	if a := WilcoxonApprox(same, zero); math.Abs(a.P-0.0369) > 1e-4 {
		t.Errorf("five equal differences, approximation: p = %v, want 0.0369 (the value the exact test replaces)", a.P)
	}
	four := []float64{0.01, 0.01, 0.01, 0.01}
	if w := WilcoxonSignedRank(four, make([]float64, 4)); !w.Exact || w.P != 0.125 {
		t.Errorf("four equal differences: %+v, want exact p = 2/16", w)
	}
	rng := rand.New(rand.NewPCG(42, 8))
	for rep := range 200 {
		n := 2 + rep%12
		d := make([]float64, n)
		for i := range d {
			d[i] = float64(rng.IntN(5)-2) * 0.01 // ties and zeros, both signs
		}
		w := WilcoxonSignedRank(d, make([]float64, n))
		if w.N == 0 {
			continue
		}
		if want := bruteTiedP(d); !w.Exact || math.Abs(w.P-want) > 1e-15 {
			t.Fatalf("d = %v: %+v, want exact p = %v", d, w, want)
		}
	}
}
