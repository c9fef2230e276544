package report

// The statistics across datasets (Demšar 2006) that compare and report print
// after the per-dataset tables: average ranks with win/tie/loss counts, the
// Friedman and Iman–Davenport tests, the Nemenyi critical differences, and
// Holm's test against the baseline.

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/stats"
)

// CrossTables are the statistics across datasets of cd as four tables:
// average ranks with wins, ties and losses against the control method, the
// Friedman and Iman–Davenport tests, the Nemenyi critical differences, and
// Holm's test against the control. They are nil when cd is nil.
func CrossTables(cd *CrossData) []*Table {
	if cd == nil {
		return nil
	}
	k, n := len(cd.Methods), cd.Datasets
	base := cd.Control
	order := make([]int, k) // methods by average rank, best first
	for j := range order {
		order[j] = j
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case cd.AvgRanks[a] < cd.AvgRanks[b]:
			return -1
		case cd.AvgRanks[a] > cd.AvgRanks[b]:
			return 1
		}
		return 0
	})

	ranks := &Table{
		Title:  fmt.Sprintf("across %d datasets: average rank of the mean test %s (1 = best; Demšar 2006)", n, cd.Metric.Title()),
		Header: []string{"method", "average rank", "wins vs " + base, "ties", "losses"},
	}
	for _, j := range order {
		w := cd.WinTieLoss[j]
		if w == nil {
			ranks.Add(cd.Methods[j], Fixed(cd.AvgRanks[j], 3), "—", "—", "—")
			continue
		}
		ranks.Add(cd.Methods[j], Fixed(cd.AvgRanks[j], 3), strconv.Itoa(w.Wins), strconv.Itoa(w.Ties), strconv.Itoa(w.Losses))
	}
	ranks.Notes = append(ranks.Notes,
		"datasets: "+strings.Join(cd.DatasetNames, ", "),
		fmt.Sprintf("wins/ties/losses: datasets where the mean test %s is significantly higher/not significantly different/lower than %s's (two-sided paired Wilcoxon p < %g)", cd.Metric.Title(), base, WinTieLossAlpha))
	for _, e := range cd.Excluded {
		ranks.Notes = append(ranks.Notes, fmt.Sprintf("left out: %s (no successful run of %s; the Friedman test needs every method on every dataset)", e.Dataset, strings.Join(e.Missing, ", ")))
	}
	for _, e := range cd.NotRun {
		ranks.Notes = append(ranks.Notes, fmt.Sprintf("not ranked: %s, not run on %s (the Friedman test needs every method on every dataset)", e.Entry, strings.Join(e.Datasets, ", ")))
	}

	f := cd.Friedman
	friedman := &Table{
		Title:  fmt.Sprintf("Friedman test: are the %d methods equivalent over the %d datasets?", k, n),
		Header: []string{"statistic", "value", "df", "p"},
	}
	friedman.Add("Friedman χ²_F", Fixed(float64(f.ChiSq), 3), strconv.Itoa(f.DF1), Sig(float64(f.ChiSqP), 3))
	friedman.Add("Iman–Davenport F_F", Fixed(float64(f.FF), 3), fmt.Sprintf("%d, %d", f.DF1, f.DF2), Sig(float64(f.P), 3))
	friedman.Notes = append(friedman.Notes, "χ²_F = 12N/(k(k+1)) [Σ R_j² − k(k+1)²/4]; F_F = (N−1)χ²_F / (N(k−1) − χ²_F), with (k−1, (k−1)(N−1)) df (Demšar 2006, §3.2.2)")
	if math.IsInf(float64(f.FF), 1) {
		friedman.Notes = append(friedman.Notes, "every dataset ranks the methods alike: F_F is infinite and its p is 0 (χ²_F's p is the cautious one here)")
	}
	if t := float64(f.ChiSqTies); t != float64(f.ChiSq) && !math.IsNaN(t) {
		friedman.Notes = append(friedman.Notes, fmt.Sprintf("tied ranks: χ²_F corrected for ties (as scipy.stats.friedmanchisquare) = %s", Fixed(t, 3)))
	}

	nemenyi := &Table{
		Title:  "Nemenyi test: critical difference of average ranks (all pairs)",
		Header: []string{"α", "q_α", "CD", "not significantly different"},
	}
	for _, c := range cd.Nemenyi {
		var groups []string
		for _, g := range c.Groups {
			groups = append(groups, "{"+strings.Join(g, ", ")+"}")
		}
		if len(groups) == 0 {
			groups = []string{"none: every pair differs"}
		}
		nemenyi.Add(Fixed(c.Alpha, 2), Fixed(c.Q, 3), Fixed(c.CD, 3), strings.Join(groups, " "))
	}
	nemenyi.Notes = append(nemenyi.Notes, "CD = q_α sqrt(k(k+1)/(6N)); q_α: studentised range at df = ∞ divided by √2 (Demšar 2006, Table 5a); methods in a group differ in average rank by less than CD")

	holm := &Table{
		Title:  fmt.Sprintf("Holm's step-down test against %s (α = %g)", base, stats.HolmAlpha),
		Header: []string{"step", "method", "average rank", "z", "p", "α/(k−i)", "adjusted p", "decision"},
	}
	for i, h := range cd.Holm {
		j := slices.Index(cd.Methods, h.Method)
		decision := "retain"
		switch {
		case h.Reject && h.Z < 0:
			decision = "better than " + base
		case h.Reject:
			decision = "worse than " + base
		}
		holm.Add(strconv.Itoa(i+1), h.Method, Fixed(cd.AvgRanks[j], 3), Fixed(float64(h.Z), 3),
			Sig(float64(h.P), 3), Sig(float64(h.Alpha), 3), Sig(float64(h.Adjusted), 3), decision)
	}
	holm.Notes = append(holm.Notes, fmt.Sprintf("z = (R_i − R_%s) / sqrt(k(k+1)/(6N)), negative when the method ranks better; two-sided p; step i rejects while p ≤ α/(k−i), then retains the rest (Holm 1979; Demšar 2006, §3.2.2)", base))
	out := []*Table{ranks, friedman, nemenyi, holm}
	if len(cd.BayesSignedRank) == len(cd.Methods) {
		bayes := &Table{
			Title:  fmt.Sprintf("Bayesian signed-rank test against %s over the %d datasets (ROPE ±%s; Benavoli et al. 2017)", base, n, ropeText(cd.Rope, cd.Metric)),
			Header: []string{"method", "P(worse)", "P(equivalent)", "P(better)"},
		}
		for _, j := range order {
			b := cd.BayesSignedRank[j]
			if b == nil {
				continue
			}
			bayes.Add(cd.Methods[j], Fixed(float64(b.Worse), 3), Fixed(float64(b.Equivalent), 3), Fixed(float64(b.Better), 3))
		}
		bayes.Notes = append(bayes.Notes, fmt.Sprintf("the per-dataset differences of mean test %s from %s's, under a Dirichlet process posterior (prior strength %g at a difference of 0); each P is the share of %d Monte Carlo draws (seed %d) in which worse, equivalent or better is the most probable of the three", cd.Metric.Title(), base, stats.SignedRankPrior, stats.SignedRankSamples, stats.SignedRankSeed))
		out = append(out, bayes)
	}
	return out
}
