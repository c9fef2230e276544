package report

import (
	"errors"
	"math"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// records makes one record per accuracy: acc[dataset][entry] lists the test
// accuracies of partitions 0, 1, …; a NaN is a failed partition.
func crossRecords(acc map[string]map[string][]float64) []experiment.Record {
	var out []experiment.Record
	for ds, byEntry := range acc {
		for e, as := range byEntry {
			for p, a := range as {
				r := experiment.Record{Dataset: ds, Entry: e, Method: e, Partition: p, Status: "converged", TestAccuracy: a}
				if math.IsNaN(a) {
					r.Status, r.TestAccuracy = experiment.StatusFailure, 0
				}
				out = append(out, r)
			}
		}
	}
	return out
}

func TestCrossDatasetRanksExcludesAndCounts(t *testing.T) {
	nan := math.NaN()
	up := []float64{0.80, 0.82, 0.79, 0.85, 0.81, 0.83, 0.80, 0.84}
	plus := func(d float64) []float64 {
		out := make([]float64, len(up))
		for i, v := range up {
			out[i] = v + d
		}
		return out
	}
	acc := map[string]map[string][]float64{
		// b beats svm on every partition (Wilcoxon p ≈ 0.012: a win); c
		// equals svm's mean through a different sum (0.1+0.2+… style
		// rounding), so the two tie for rank.
		"d1": {"svm": up, "b": plus(0.05), "c": {0.81, 0.81, 0.81, 0.81, 0.81, 0.83, 0.82, 0.84}},
		"d2": {"svm": plus(0.1), "b": up, "c": plus(-0.1)},
		"d3": {"svm": up, "b": plus(0.01), "c": plus(0.02)},
		// c failed everywhere on d4: d4 is left out.
		"d4": {"svm": up, "b": up, "c": {nan, nan, nan, nan, nan, nan, nan, nan}},
	}
	tables := drawnTables(crossRecords(acc), []string{"svm", "b", "c"}, "", metrics.Accuracy)
	cd, err := CrossDataset(tables)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(cd.DatasetNames, []string{"d1", "d2", "d3"}) || len(cd.Excluded) != 1 ||
		cd.Excluded[0].Dataset != "d4" || !slices.Equal(cd.Excluded[0].Missing, []string{"c"}) {
		t.Fatalf("datasets %v, excluded %+v; want d1–d3 and d4 (missing c)", cd.DatasetNames, cd.Excluded)
	}
	// d1: b 1, svm and c tie 2.5; d2: svm 1, b 2, c 3; d3: c 1, b 2, svm 3.
	want := []float64{(2.5 + 1 + 3) / 3, (1 + 2 + 2) / 3.0, (2.5 + 3 + 1) / 3}
	for j, w := range want {
		if math.Abs(cd.AvgRanks[j]-w) > 1e-12 {
			t.Errorf("average rank of %s = %g, want %g", cd.Methods[j], cd.AvgRanks[j], w)
		}
	}
	if cd.Control != "svm" || cd.Datasets != 3 || cd.Friedman.DF1 != 2 || cd.Friedman.DF2 != 4 {
		t.Errorf("control %q, N %d, df (%d, %d); want svm, 3, (2, 4)", cd.Control, cd.Datasets, cd.Friedman.DF1, cd.Friedman.DF2)
	}
	// b vs svm: win on d1 (+0.05 on every partition), loss on d2 (−0.1 on
	// every partition), d3: +0.01 everywhere is also significant (a win).
	// c vs svm: d1 tie (same mean), d2 loss, d3 win.
	if cd.WinTieLoss[0] != nil {
		t.Errorf("baseline's win/tie/loss %+v, want nil", cd.WinTieLoss[0])
	}
	for j, w := range []struct{ win, tie, loss int }{{}, {2, 0, 1}, {1, 1, 1}} {
		if j == 0 {
			continue
		}
		got := cd.WinTieLoss[j]
		if got.Wins != w.win || got.Ties != w.tie || got.Losses != w.loss {
			t.Errorf("%s: %+v, want %d/%d/%d", cd.Methods[j], *got, w.win, w.tie, w.loss)
		}
	}
}

func TestCrossDatasetNeedsTwoCompleteDatasets(t *testing.T) {
	acc := map[string]map[string][]float64{
		"d1": {"svm": {0.8, 0.9}, "b": {0.7, 0.6}},
		"d2": {"svm": {0.8, 0.9}, "b": {math.NaN(), math.NaN()}}, // b failed on d2
	}
	tables := drawnTables(crossRecords(acc), []string{"svm", "b"}, "", metrics.Accuracy)
	_, err := CrossDataset(tables)
	if !errors.Is(err, ErrTooFewDatasets) || err.Error() != "fewer than 2 datasets have results for every method; excluded: d2 (no results for b)" {
		t.Errorf("error %v", err)
	}
	// b not run on d2 at all: it is not ranked, which leaves one method.
	delete(acc["d2"], "b")
	_, err = CrossDataset(drawnTables(crossRecords(acc), []string{"svm", "b"}, "", metrics.Accuracy))
	if !errors.Is(err, ErrTooFewEntries) || err.Error() != "fewer than 2 methods were run on every dataset; not run on every dataset: b (not on d2)" {
		t.Errorf("error %v", err)
	}
	// One dataset, or one entry: nothing to compare, and no error.
	for _, acc := range []map[string]map[string][]float64{
		{"d1": {"svm": {0.8}, "b": {0.7}}},
		{"d1": {"svm": {0.8}}, "d2": {"svm": {0.7}}},
	} {
		cd, err := CrossDataset(drawnTables(crossRecords(acc), nil, "", metrics.Accuracy))
		if cd != nil || err != nil {
			t.Errorf("%v: got %+v, %v; want nil, nil", acc, cd, err)
		}
	}
}

// In an incomplete run whose first dataset lacks the baseline altogether,
// that dataset's table compares against another entry; the cross-dataset
// statistics still use the run's baseline, and leave that dataset out.
func TestCrossDatasetBaselineFromACompleteTable(t *testing.T) {
	acc := map[string]map[string][]float64{
		"a": {"b": {0.7, 0.8}, "c": {0.6, 0.7}},
		"d": {"svm": {0.8, 0.9}, "b": {0.7, 0.8}, "c": {0.6, 0.7}},
		"e": {"svm": {0.5, 0.6}, "b": {0.7, 0.8}, "c": {0.6, 0.7}},
	}
	tables := drawnTables(crossRecords(acc), []string{"svm", "b", "c"}, "", metrics.Accuracy)
	// Summarize now keeps the run's baseline (the first entry) in every
	// table, with or without its records; a table from elsewhere (older
	// summaries compared a's rows against b) may still differ.
	if tables[0].Dataset != "a" || len(tables[0].Rows) != 2 {
		t.Fatalf("table %s has %d rows, want a with b and c", tables[0].Dataset, len(tables[0].Rows))
	}
	tables[0].Baseline = "b"
	cd, err := CrossDataset(tables)
	if err != nil {
		t.Fatal(err)
	}
	if cd.Control != "svm" || !slices.Equal(cd.Methods, []string{"svm", "b", "c"}) || !slices.Equal(cd.DatasetNames, []string{"d", "e"}) ||
		len(cd.Excluded) != 1 || !slices.Equal(cd.Excluded[0].Missing, []string{"svm"}) {
		t.Errorf("control %q, methods %v, datasets %v, excluded %+v", cd.Control, cd.Methods, cd.DatasetNames, cd.Excluded)
	}
	// d: svm 1, b 2, c 3; e: b 1, c 2, svm 3.
	if !slices.Equal(cd.AvgRanks, []float64{2, 1.5, 2.5}) {
		t.Errorf("average ranks %v, want [2 1.5 2.5]", cd.AvgRanks)
	}
}

// A method not run on some dataset (merged runs of a study's parts with
// different methods) is not ranked, and listed with where it is missing:
// the methods run everywhere are ranked over every dataset.
func TestCrossDatasetRanksTheMethodsRunEverywhere(t *testing.T) {
	acc := map[string]map[string][]float64{
		"d1": {"svm": {0.8, 0.9}, "b": {0.7, 0.8}, "c": {0.9, 0.9}},
		"d2": {"svm": {0.6, 0.7}, "b": {0.7, 0.8}, "c": {0.9, 0.9}},
		"d3": {"svm": {0.8, 0.9}, "b": {0.9, 0.9}},
		"d4": {"svm": {0.8, 0.9}, "b": {0.7, 0.8}},
	}
	cd, err := CrossDataset(drawnTables(crossRecords(acc), []string{"svm", "b", "c"}, "", metrics.Accuracy))
	if err != nil {
		t.Fatal(err)
	}
	// d1: svm 1, b 2; d2: b 1, svm 2; d3: b 1, svm 2; d4: svm 1, b 2.
	if !slices.Equal(cd.Methods, []string{"svm", "b"}) || len(cd.DatasetNames) != 4 || !slices.Equal(cd.AvgRanks, []float64{1.5, 1.5}) ||
		len(cd.NotRun) != 1 || cd.NotRun[0].Entry != "c" || !slices.Equal(cd.NotRun[0].Datasets, []string{"d3", "d4"}) || len(cd.Excluded) != 0 {
		t.Errorf("methods %v, datasets %v, ranks %v, not run %+v, excluded %+v", cd.Methods, cd.DatasetNames, cd.AvgRanks, cd.NotRun, cd.Excluded)
	}
}
