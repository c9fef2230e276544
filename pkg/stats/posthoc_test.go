package stats

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestRanksTiesGetMeanRank(t *testing.T) {
	got := Ranks([][]float64{{0.9, 0.8, 0.9, 0.7, 0.9}, {1, 1, 1, 1, 1}, {3, 2, 1, 0, -1}})
	want := [][]float64{{2, 4, 2, 5, 2}, {3, 3, 3, 3, 3}, {1, 2, 3, 4, 5}}
	for i := range want {
		if !slices.Equal(got[i], want[i]) {
			t.Errorf("row %d: %v, want %v", i, got[i], want[i])
		}
	}
}

func TestGroups(t *testing.T) {
	for _, tc := range []struct {
		ranks []float64
		cd    float64
		want  [][]int
	}{
		// Sorted by rank: 3 (1.0), 0 (1.5), 2 (2.4), 1 (3.1).
		{[]float64{1.5, 3.1, 2.4, 1.0}, 1.0, [][]int{{3, 0}, {0, 2}, {2, 1}}},
		{[]float64{1.5, 3.1, 2.4, 1.0}, 1.5, [][]int{{3, 0, 2}, {2, 1}}},
		{[]float64{1.5, 3.1, 2.4, 1.0}, 2.5, [][]int{{3, 0, 2, 1}}},
		// All different: no bars. A difference equal to CD is significant.
		{[]float64{1, 2, 3}, 1, nil},
		{[]float64{1, 2, 3}, 0.5, nil},
	} {
		if got := Groups(tc.ranks, tc.cd); !slices.EqualFunc(got, tc.want, slices.Equal[[]int]) {
			t.Errorf("Groups(%v, %g) = %v, want %v", tc.ranks, tc.cd, got, tc.want)
		}
	}
}

// Holm stops at the first hypothesis it cannot reject: a later p below its
// own α/(k−i) is retained all the same.
func TestHolmStepsDown(t *testing.T) {
	// k = 4, N chosen so that SE = 1: z = R_i − R_0.
	k, n := 4, 1
	se := RankSE(k, n)
	avg := []float64{0, -2.5 * se, 2.2 * se, 2.1 * se}
	steps := Holm([]string{"base", "a", "b", "c"}, avg, 0, n, 0.05)
	// p: a 0.0124 (< 0.0167 reject), b 0.0278 (> 0.025 retain), c 0.0357 (< 0.05 but retained).
	wantOrder := []string{"a", "b", "c"}
	wantReject := []bool{true, false, false}
	for i, s := range steps {
		if s.Method != wantOrder[i] || s.Reject != wantReject[i] {
			t.Errorf("step %d: %s reject %v, want %s %v (p %.4f, α %.4f)", i+1, s.Method, s.Reject, wantOrder[i], wantReject[i], s.P, s.Alpha)
		}
	}
	if p := float64(steps[2].P); !(p < 0.05) {
		t.Fatalf("test data: p of c = %g should be below 0.05", p)
	}
	// Adjusted p: 3·0.0124, max(that, 2·0.0278), max(…, 1·0.0357).
	p := []float64{float64(steps[0].P), float64(steps[1].P), float64(steps[2].P)}
	wantAdj := []float64{3 * p[0], 2 * p[1], 2 * p[1]}
	for i, s := range steps {
		if !near(float64(s.Adjusted), wantAdj[i], 1e-15) {
			t.Errorf("step %d: adjusted p %g, want %g", i+1, s.Adjusted, wantAdj[i])
		}
	}
	if z := float64(steps[0].Z); !near(z, -2.5, 1e-12) {
		t.Errorf("z of a = %g, want -2.5 (negative: better than the control)", z)
	}
}

func TestCountWinTieLoss(t *testing.T) {
	nan := math.NaN()
	got := CountWinTieLoss(
		[]float64{0.02, -0.03, 0.05, -0.01, 0, 0.04},
		[]float64{0.01, 0.004, 0.2, 0.049, nan, 0.05},
		0.05)
	if want := (WinTieLoss{Wins: 1, Ties: 3, Losses: 2}); got != want {
		t.Errorf("got %+v, want %+v", got, want)
	}
}

func TestAnalyzeRefusesWhatItCannotRank(t *testing.T) {
	for _, tc := range []struct {
		methods []string
		scores  [][]float64
		want    string
	}{
		{[]string{"a"}, [][]float64{{1}, {2}}, "comparing 1 methods on 2 datasets: needs at least 2"},
		{[]string{"a", "b"}, [][]float64{{1, 2}}, "comparing 2 methods on 1 datasets"},
		{[]string{"a", "b"}, [][]float64{{1, 2}, {1}}, "dataset 2 has 1 scores for 2 methods"},
		{[]string{"a", "b"}, [][]float64{{1, 2}, {1, math.NaN()}}, "dataset 2, method b: score is not a finite number"},
	} {
		_, err := Analyze(tc.methods, tc.scores, 0)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Analyze(%v, %v): error %v, want %q", tc.methods, tc.scores, err, tc.want)
		}
	}
}

// When every dataset ranks the methods alike, F_F is infinite (JSON null)
// and p = 0; when every method ties everywhere, χ²_F = F_F = 0 and p = 1.
func TestFriedmanExtremes(t *testing.T) {
	a, err := Analyze([]string{"a", "b", "c"}, [][]float64{{3, 2, 1}, {0.9, 0.8, 0.7}, {5, 4, 3}}, 0)
	if err != nil {
		t.Fatal(err)
	}
	f := a.Friedman
	if !math.IsInf(float64(f.FF), 1) || f.P != 0 || !near(float64(f.ChiSq), 6, 1e-12) {
		t.Errorf("perfect agreement: χ²_F %g F_F %g p %g; want 6, +Inf, 0", f.ChiSq, f.FF, f.P)
	}
	b, err := json.Marshal(f)
	if err != nil || !strings.Contains(string(b), `"f_f":null`) {
		t.Errorf("JSON %s (%v), want f_f null", b, err)
	}
	f = FriedmanTest(Ranks([][]float64{{1, 1, 1}, {2, 2, 2}}))
	if f.ChiSq != 0 || f.FF != 0 || f.P != 1 || !math.IsNaN(float64(f.ChiSqTies)) {
		t.Errorf("all tied: χ²_F %g F_F %g p %g tie-corrected %g; want 0 0 1 NaN", f.ChiSq, f.FF, f.P, f.ChiSqTies)
	}
}

func TestRangeCDFIsADistribution(t *testing.T) {
	for _, k := range []int{2, 5, 20} {
		prev := 0.0
		for q := 0.25; q < 12; q += 0.25 {
			c := RangeCDF(q, k)
			if c < prev-1e-15 || c > 1 {
				t.Fatalf("k=%d: CDF(%g) = %g after %g", k, q, c, prev)
			}
			prev = c
		}
		if prev < 1-1e-12 {
			t.Errorf("k=%d: CDF(12) = %g, want 1", k, prev)
		}
	}
	// k = 2: P(|Z1−Z2| < q) = 2Φ(q/√2) − 1.
	if got, want := RangeCDF(2, 2), math.Erf(1); !near(got, want, 1e-13) {
		t.Errorf("k=2: CDF(2) = %.15f, want erf(1) = %.15f", got, want)
	}
}
