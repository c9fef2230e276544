package report

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/stats"
)

// WinTieLossAlpha is the level of the per-dataset Wilcoxon tests behind the
// win/tie/loss counts of CrossData.
const WinTieLossAlpha = 0.05

// CrossData is the comparison of a run's entries across its datasets
// (Demšar 2006): the statistics of stats.Analysis over the mean test
// accuracies of the per-dataset tables, and win/tie/loss counts against the
// baseline.
type CrossData struct {
	stats.Analysis
	// DatasetNames are the ranked datasets, in table order.
	DatasetNames []string `json:"dataset_names"`
	// Excluded are the datasets left out of the ranking because some entry
	// has no successful run there.
	Excluded []ExcludedDataset `json:"excluded,omitempty"`
	// NotRun are the entries left out of the ranking because they were not
	// run on some dataset (merged runs of different methods, a shard left
	// out), with the datasets where they have no record.
	NotRun []NotRunEntry `json:"not_run,omitempty"`
	// WinTieLoss[j] counts, over the ranked datasets, where Methods[j] has a
	// significantly higher mean test accuracy than the baseline (two-sided
	// paired Wilcoxon p < WinTieLossAlpha, the table's P), a significantly
	// lower one, or neither; nil (JSON null) for the baseline itself.
	WinTieLoss []*stats.WinTieLoss `json:"win_tie_loss"`
	// BayesSignedRank[j] is the Bayesian signed-rank test
	// (stats.BayesSignedRank, stats.SignedRankSamples draws with
	// stats.SignedRankSeed) of the ranked datasets' mean test scores of
	// Methods[j] minus the baseline's, with the ROPE of Rope points: the
	// probabilities that Methods[j] is worse than, practically equivalent
	// to or better than the baseline across datasets; nil for the baseline.
	BayesSignedRank []*stats.BayesProbs `json:"bayes_signed_rank"`
	// Rope is the half-width of the region of practical equivalence, in
	// points of the metric (the tables' Rope).
	Rope float64 `json:"rope_points"`
	// Metric is the test score ranked (the tables'); left out of the JSON
	// for accuracy.
	Metric metrics.Metric `json:"metric,omitzero"`
}

// ExcludedDataset names a dataset left out of the cross-dataset ranking and
// the entries that have no successful run on it.
type ExcludedDataset struct {
	Dataset string   `json:"dataset"`
	Missing []string `json:"missing"`
}

// NotRunEntry is an entry left out of the cross-dataset ranking and the
// datasets where it was not run.
type NotRunEntry struct {
	Entry    string   `json:"entry"`
	Datasets []string `json:"datasets"`
}

// ErrTooFewDatasets is returned by CrossDataset when fewer than two
// datasets have a result for every entry.
var ErrTooFewDatasets = errors.New("fewer than 2 datasets have results for every method")

// accTieScale is the resolution at which mean accuracies are compared when
// ranking: means are rounded to 1e-9, so that two entries with the same
// true mean (a ratio of small integers) tie even when the floating-point
// sums that computed them differ in the last bit.
const accTieScale = 1e9

// CrossDataset compares the entries of the per-dataset tables (a Summary's
// Tables) across datasets by their mean test accuracy: average ranks
// (1 = best), the Friedman and Iman–Davenport tests, Nemenyi critical
// differences, and Holm's test and win/tie/loss counts against the baseline
// (the first table's).
//
// The Friedman test needs every entry's result on every dataset. An entry
// that was not run on some dataset (no record there, failed or not: the
// merged runs of a study's parts with different methods, a shard left out)
// is left out of the ranking and listed in NotRun with those datasets, so
// that the methods run everywhere are ranked over every dataset (the
// baseline is kept: the datasets without it are left out instead). Then a
// dataset where some entry has no successful run (its jobs failed) is left
// out of the ranking and listed in Excluded with those entries; the
// alternative, dropping the entry, would remove a method from the
// comparison because of a few failures.
//
// It returns nil and no error when there is nothing to compare (fewer than
// two datasets or two entries in the tables), and an error wrapping
// ErrTooFewDatasets, naming the excluded datasets, when the exclusions leave
// fewer than two.
func CrossDataset(tables []DatasetTable) (*CrossData, error) {
	var entries []string
	for _, t := range tables {
		for _, r := range t.Rows {
			if !slices.Contains(entries, r.Entry) {
				entries = append(entries, r.Entry)
			}
		}
	}
	if len(tables) < 2 || len(entries) < 2 {
		return nil, nil
	}
	// The entries in table order and the baseline, from a table that lists
	// them all: a table without the run's baseline (an incomplete run) has
	// another entry as its baseline and is left out below.
	baseline := ""
	for _, t := range tables {
		if len(t.Rows) == len(entries) {
			baseline = t.Baseline
			for j, r := range t.Rows {
				entries[j] = r.Entry
			}
			break
		}
	}
	cd := &CrossData{Metric: tables[0].Metric, Rope: tables[0].Rope}
	entries = cd.dropNotRun(tables, entries, baseline)
	if len(entries) < 2 {
		return nil, fmt.Errorf("%w; not run on every dataset: %s", ErrTooFewEntries, cd.notRunText())
	}
	control := slices.Index(entries, baseline)
	var scores [][]float64
	var deltas, pvals [][]float64 // [entry][dataset]: mean − baseline mean, Wilcoxon p
	deltas, pvals = make([][]float64, len(entries)), make([][]float64, len(entries))
	for _, t := range tables {
		rows := map[string]EntryRow{}
		for _, r := range t.Rows {
			rows[r.Entry] = r
		}
		var missing []string
		row := make([]float64, len(entries))
		for j, e := range entries {
			r, ok := rows[e]
			if !ok || r.Runs == 0 {
				missing = append(missing, e)
				continue
			}
			row[j] = math.Round(float64(r.MeanAcc)*accTieScale) / accTieScale
		}
		if len(missing) > 0 {
			cd.Excluded = append(cd.Excluded, ExcludedDataset{Dataset: t.Dataset, Missing: missing})
			continue
		}
		cd.DatasetNames = append(cd.DatasetNames, t.Dataset)
		scores = append(scores, row)
		for j, e := range entries {
			deltas[j] = append(deltas[j], row[j]-row[control])
			pvals[j] = append(pvals[j], float64(rows[e].P))
		}
	}
	if len(scores) < 2 || control < 0 {
		var ex []string
		for _, e := range cd.Excluded {
			ex = append(ex, fmt.Sprintf("%s (no results for %s)", e.Dataset, strings.Join(e.Missing, ", ")))
		}
		more := ""
		if len(cd.NotRun) > 0 {
			more = "; not run on every dataset: " + cd.notRunText()
		}
		return nil, fmt.Errorf("%w; excluded: %s%s", ErrTooFewDatasets, strings.Join(ex, "; "), more)
	}
	a, err := stats.Analyze(entries, scores, control)
	if err != nil {
		return nil, err
	}
	cd.Analysis = a
	for j := range entries {
		if j == control {
			cd.WinTieLoss = append(cd.WinTieLoss, nil)
			continue
		}
		w := stats.CountWinTieLoss(deltas[j], pvals[j], WinTieLossAlpha)
		cd.WinTieLoss = append(cd.WinTieLoss, &w)
	}
	for j := range entries {
		if j == control {
			cd.BayesSignedRank = append(cd.BayesSignedRank, nil)
			continue
		}
		b := stats.BayesSignedRank(deltas[j], cd.Rope/100, stats.SignedRankSamples, stats.SignedRankSeed)
		cd.BayesSignedRank = append(cd.BayesSignedRank, &b)
	}
	return cd, nil
}

// ErrTooFewEntries is returned by CrossDataset when fewer than two entries
// were run on every dataset.
var ErrTooFewEntries = errors.New("fewer than 2 methods were run on every dataset")

// dropNotRun returns entries without those that have no record on some
// table's dataset (the baseline stays), and lists them in cd.NotRun.
func (cd *CrossData) dropNotRun(tables []DatasetTable, entries []string, baseline string) []string {
	var keep []string
	for _, e := range entries {
		var where []string
		for _, t := range tables {
			i := slices.IndexFunc(t.Rows, func(r EntryRow) bool { return r.Entry == e })
			if i < 0 || t.Rows[i].Runs+t.Rows[i].Failures == 0 {
				where = append(where, t.Dataset)
			}
		}
		if len(where) == 0 || e == baseline {
			keep = append(keep, e)
			continue
		}
		cd.NotRun = append(cd.NotRun, NotRunEntry{Entry: e, Datasets: where})
	}
	return keep
}

// notRunText lists NotRun as "spd (not on diabetes); gi (not on a, b)".
func (cd *CrossData) notRunText() string {
	var parts []string
	for _, n := range cd.NotRun {
		parts = append(parts, fmt.Sprintf("%s (not on %s)", n.Entry, strings.Join(n.Datasets, ", ")))
	}
	return strings.Join(parts, "; ")
}
