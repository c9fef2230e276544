package report

import (
	"fmt"
	"math"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	fig "github.com/kerneltune/kerneltune/pkg/figure"
)

// costFigures draws accuracy against cost (issue 24: do the methods beat
// the practitioners' baselines at equal cost?):
//
//	accuracy-cost  per dataset, each entry's mean test accuracy (± 1 s.d.)
//	               against its mean SVM solves (fewest to most), the
//	               baseline in the accent colour
//	rank-cost      across datasets (CrossDataset), each entry's average rank
//	               against the mean over the datasets of its mean SVM
//	               solves, with the Friedman test and the Nemenyi critical
//	               difference under it; only with two or more datasets
//
// Failed jobs are left out, as in every figure.
func costFigures(tables []DatasetTable, records []experiment.Record) ([]NamedFigure, error) {
	panels := costPanels(tables, records)
	if len(panels) == 0 {
		return nil, nil
	}
	m := tables[0].Metric
	// Time first: a solve costs what its method and size make it (bo's
	// GP, a halving round on a third of the rows, a refinement on all
	// rows), so solves alone put methods of very different cost side by
	// side; the solves figure follows for what it does count.
	var out []NamedFigure
	if tp := timePanels(tables, records); len(tp) > 0 {
		f, err := fig.AccuracyCost("Mean test "+m.Title()+" against time (seconds per partition, tuning and final fit, wall clock)", tp)
		if err != nil {
			return nil, fmt.Errorf("draw figures: %w", err)
		}
		out = append(out, NamedFigure{Name: ScoreFigureName(m) + "-time", Figure: f})
	}
	f, err := fig.AccuracyCost("Mean test "+m.Title()+" against SVM solves per partition (a solve's cost differs by method: see the time figure)", panels)
	if err != nil {
		return nil, fmt.Errorf("draw figures: %w", err)
	}
	out = append(out, NamedFigure{Name: ScoreFigureName(m) + "-cost", Figure: f})
	cross, err := CrossDataset(tables)
	if err != nil || cross == nil {
		return out, nil
	}
	pts, note := rankCost(tables, cross)
	if !slices.ContainsFunc(pts, func(p fig.RankCostPoint) bool { return p.Cost > 0 }) {
		return out, nil
	}
	rf, err := fig.RankCost(fmt.Sprintf("Average rank of mean test %s on %d datasets against cost", m.Title(), cross.Datasets), note, pts)
	if err != nil {
		return nil, fmt.Errorf("draw figures: %w", err)
	}
	return append(out, NamedFigure{Name: "rank-cost", Figure: rf}), nil
}

// costPanels are the accuracy-cost figure's panels: per dataset, each
// entry with a finished run, its mean and s.d. of test accuracy (%) and
// its mean, fewest and most SVM solves over the finished runs. Entries
// without a count of solves (0: records of a version that kept none) are
// left out, and so is a dataset with none.
func costPanels(tables []DatasetTable, records []experiment.Record) []fig.CostPanel {
	return panelsOf(tables, records, "", func(row EntryRow) float64 { return float64(row.MeanSolves) },
		func(r experiment.Record) float64 { return float64(r.Solves) })
}

// timePanels are costPanels with each job's wall-clock seconds (tuning and
// final fit, Record.Seconds) as the cost.
func timePanels(tables []DatasetTable, records []experiment.Record) []fig.CostPanel {
	return panelsOf(tables, records, "seconds", func(row EntryRow) float64 { return float64(row.MeanSecs) },
		func(r experiment.Record) float64 { return r.Seconds })
}

// panelsOf builds the panels of an accuracy-cost figure whose cost is mean
// per entry row and cost per record, in unit.
func panelsOf(tables []DatasetTable, records []experiment.Record, unit string, mean func(EntryRow) float64, cost func(experiment.Record) float64) []fig.CostPanel {
	var panels []fig.CostPanel
	for _, t := range tables {
		pn := fig.CostPanel{Dataset: t.Dataset, Metric: t.Metric.Title(), Unit: unit}
		for _, row := range t.Rows {
			if row.Runs == 0 || !(mean(row) > 0) { // records without the count
				continue
			}
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, r := range records {
				if r.Dataset == t.Dataset && r.Entry == row.Entry && !r.Failed() {
					lo, hi = min(lo, cost(r)), max(hi, cost(r))
				}
			}
			pn.Points = append(pn.Points, fig.CostPoint{
				Name: row.Entry, Acc: 100 * float64(row.MeanAcc), AccSD: 100 * float64(row.StdAcc),
				Cost: mean(row), CostMin: lo, CostMax: hi,
				Reference: row.Entry == t.Baseline,
			})
		}
		if len(pn.Points) > 0 {
			panels = append(panels, pn)
		}
	}
	return panels
}

// rankCost is the rank-cost figure's points (each entry's average rank and
// the mean over the ranked datasets of its mean SVM solves) and the note
// under it: the Friedman test and the Nemenyi critical difference.
func rankCost(tables []DatasetTable, cross *CrossData) ([]fig.RankCostPoint, string) {
	var pts []fig.RankCostPoint
	for j, m := range cross.Methods {
		cost := 0.0
		for _, t := range tables {
			if !slices.Contains(cross.DatasetNames, t.Dataset) {
				continue
			}
			for _, row := range t.Rows {
				if row.Entry == m {
					cost += float64(row.MeanSolves) / float64(len(cross.DatasetNames))
				}
			}
		}
		pts = append(pts, fig.RankCostPoint{Name: m, Rank: cross.AvgRanks[j], Cost: cost, Reference: m == cross.Control})
	}
	fr := cross.Friedman
	note := fmt.Sprintf("Friedman χ²_F = %.3g (p = %.2g), Iman–Davenport F_F = %.3g (p = %.2g)", float64(fr.ChiSq), float64(fr.ChiSqP), float64(fr.FF), float64(fr.P))
	if nem, ok := cross.NemenyiAt(cdAlpha); ok {
		note += fmt.Sprintf("; Nemenyi critical difference %.3g (α = %g): ranks closer than that are not told apart", nem.CD, cdAlpha)
	}
	return pts, note
}
