package stats

import (
	"errors"
	"fmt"
	"math"
)

// Alphas are the significance levels of the critical differences an
// Analysis reports: Demšar's Table 5 gives q for these two.
var Alphas = [...]float64{0.05, 0.10}

// HolmAlpha is the level of the Holm test in an Analysis.
const HolmAlpha = 0.05

// Analysis is the comparison of k methods over N datasets: what a
// cross-dataset table prints and a critical-difference diagram draws.
type Analysis struct {
	Methods  []string `json:"methods"`
	Datasets int      `json:"datasets"` // N
	// AvgRanks[j] is the average rank of Methods[j] (1 = best).
	AvgRanks []float64 `json:"average_ranks"`
	Friedman Friedman  `json:"friedman"`
	// Nemenyi holds the critical difference for comparing all methods with
	// each other at each of Alphas, with the groups it does not separate.
	Nemenyi []CD `json:"nemenyi"`
	// BonferroniDunn holds the critical difference for comparing every
	// method with the control at each of Alphas, and the methods it
	// separates from the control.
	BonferroniDunn []CD   `json:"bonferroni_dunn"`
	Control        string `json:"control"`
	// Holm is Holm's step-down test of every method against the control at
	// HolmAlpha, ordered by p-value.
	Holm []HolmStep `json:"holm"`
}

// CD is a critical difference at one significance level.
type CD struct {
	Alpha float64 `json:"alpha"`
	Q     float64 `json:"q"`  // q_α (Nemenyi or Bonferroni–Dunn)
	CD    float64 `json:"cd"` // q_α sqrt(k(k+1)/(6N))
	// Groups (Nemenyi) are the maximal groups of methods, best average rank
	// first, whose average ranks all differ by less than CD: the bars of a
	// CD diagram (see Groups).
	Groups [][]string `json:"groups,omitempty"`
	// Different (Bonferroni–Dunn) lists the methods whose average rank
	// differs from the control's by at least CD.
	Different []string `json:"different_from_control,omitempty"`
}

// Analyze ranks the methods (the columns of scores, higher is better) on
// every dataset (the rows), and runs the Friedman test, the Nemenyi and
// Bonferroni–Dunn critical differences and Holm's test against
// methods[control]. It returns an error when there are fewer than 2 methods
// or 2 datasets, when a row's length is not len(methods), or when a score is
// not a finite number.
func Analyze(methods []string, scores [][]float64, control int) (Analysis, error) {
	k, n := len(methods), len(scores)
	if k < 2 || n < 2 {
		return Analysis{}, fmt.Errorf("comparing %d methods on %d datasets: needs at least 2 of each", k, n)
	}
	if control < 0 || control >= k {
		return Analysis{}, fmt.Errorf("comparing methods: control index %d out of range for %d methods", control, k)
	}
	for i, row := range scores {
		if len(row) != k {
			return Analysis{}, fmt.Errorf("comparing methods: dataset %d has %d scores for %d methods", i+1, len(row), k)
		}
		for j, v := range row {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				return Analysis{}, fmt.Errorf("comparing methods: dataset %d, method %s: %w", i+1, methods[j], errNotFinite)
			}
		}
	}
	ranks := Ranks(scores)
	avg := AverageRanks(ranks)
	a := Analysis{
		Methods:  methods,
		Datasets: n,
		AvgRanks: avg,
		Friedman: FriedmanTest(ranks),
		Control:  methods[control],
		Holm:     Holm(methods, avg, control, n, HolmAlpha),
	}
	for _, alpha := range Alphas {
		q := NemenyiQ(k, alpha)
		cd := CD{Alpha: alpha, Q: q, CD: CriticalDifference(q, k, n)}
		for _, g := range Groups(avg, cd.CD) {
			names := make([]string, len(g))
			for i, j := range g {
				names[i] = methods[j]
			}
			cd.Groups = append(cd.Groups, names)
		}
		a.Nemenyi = append(a.Nemenyi, cd)

		q = BonferroniDunnQ(k, alpha)
		bd := CD{Alpha: alpha, Q: q, CD: CriticalDifference(q, k, n)}
		for j, r := range avg {
			if j != control && math.Abs(r-avg[control]) >= bd.CD {
				bd.Different = append(bd.Different, methods[j])
			}
		}
		a.BonferroniDunn = append(a.BonferroniDunn, bd)
	}
	return a, nil
}

var errNotFinite = errors.New("score is not a finite number")

// NemenyiAt returns the Nemenyi critical difference at α, and false if the
// analysis has none at that level.
func (a Analysis) NemenyiAt(alpha float64) (CD, bool) {
	for _, c := range a.Nemenyi {
		if c.Alpha == alpha {
			return c, true
		}
	}
	return CD{}, false
}
