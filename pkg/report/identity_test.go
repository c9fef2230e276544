package report

import (
	"context"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
	kt "github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// compareRecords runs svm on two partitions of 40/40 rows of path, its
// dataset named name, and returns the records.
func compareRecords(t *testing.T, path, name string) []experiment.Record {
	t.Helper()
	return compareDatasets(t, "svm", "", experiment.DatasetSettings{Path: path, Name: name, Partitions: 2, TrainSize: 40, TestSize: 40})
}

// compareDatasets runs methods on the datasets, writing the records to
// out ("": none), and returns them.
func compareDatasets(t *testing.T, methods, out string, ds ...experiment.DatasetSettings) []experiment.Record {
	t.Helper()
	entries, err := experiment.ParseEntries(methods)
	if err != nil {
		t.Fatal(err)
	}
	res, err := experiment.Compare(context.Background(), experiment.CompareSettings{
		Datasets: ds,
		Entries:  entries,
		Base:     kt.Common{Folds: 3, Eps: 1e-3, CacheMB: 10},
		Out:      out,
	})
	if err != nil {
		t.Fatal(err)
	}
	return res.Records
}

// The hostile finding of issue 31 ("report merges different experiments
// under one name"): a Go caller hands report the records of two runs that
// both call their data heart, one of them diabetes. report keys a dataset
// by its identity, the name only shows it: the tables, their paired tests
// and the figures keep the two apart, as heart and heart#2 (as report
// --split-identities names them) — never one row averaging 4 runs of two
// datasets' partitions 1 and 2 — and the summary says which is which.
func TestReportKeepsTwoDatasetsOfOneNameApart(t *testing.T) {
	t.Parallel()
	heart := compareRecords(t, "builtin:heart", "")
	other := compareRecords(t, "builtin:diabetes", "heart")
	all := append(slices.Clone(heart), other...)
	mean := func(rs []experiment.Record) float64 {
		var s float64
		for _, r := range rs {
			s += r.TestAccuracy
		}
		return s / float64(len(rs))
	}
	want := map[string]float64{"heart": mean(heart), "heart#2": mean(other)}
	if want["heart"] == want["heart#2"] {
		t.Fatalf("the two datasets' svm scores alike: %v", want)
	}

	sum := Summarize(all, SummaryOptions{})
	got := map[string]float64{}
	for _, tb := range sum.Tables {
		if len(tb.Rows) != 1 || tb.Rows[0].Runs != 2 || tb.Partitions != 2 {
			t.Errorf("table %s: %d partitions, rows %+v; want 2 partitions, svm's 2 runs", tb.Dataset, tb.Partitions, tb.Rows)
			continue
		}
		got[tb.Dataset] = float64(tb.Rows[0].MeanAcc)
	}
	if len(got) != 2 || !near(got["heart"], want["heart"]) || !near(got["heart#2"], want["heart#2"]) {
		t.Errorf("Summarize: tables' svm means %v, want %v", got, want)
	}
	if len(sum.Renamed) != 1 || !strings.Contains(sum.Renamed[0], "heart#2 is dataset heart of run "+other[0].Run) || !strings.Contains(sum.Warning, sum.Renamed[0]) {
		t.Errorf("renamed %q, warning %q: want heart#2 named as the second run's heart", sum.Renamed, sum.Warning)
	}
	if tb := drawnTables(all, nil, "", metrics.Accuracy); len(tb) != 2 {
		t.Errorf("Summarize: %d tables, want heart and heart#2", len(tb))
	}

	// The per-job table and the figures name the same datasets as the
	// tables, each record under its own.
	rows := map[string]int{}
	for _, row := range PerJobTable(sum, all).Rows {
		rows[row[0]]++
	}
	if rows["heart"] != 2 || rows["heart#2"] != 2 {
		t.Errorf("per-job rows by dataset %v, want 2 each", rows)
	}
	figs, err := Figures(all, nil, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var acc *NamedFigure
	for i := range figs {
		if figs[i].Name == "accuracy" {
			acc = &figs[i]
		}
	}
	if acc == nil {
		t.Fatalf("no accuracy figure among %d", len(figs))
	}
	svg, err := acc.Figure.SVG()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "heart#2") {
		t.Error("the accuracy figure has no panel heart#2")
	}
	if kept, err := Filter(all, []string{"heart#2"}, nil); err != nil || len(kept) != 2 || kept[0].TestAccuracy != other[0].TestAccuracy {
		t.Errorf("Filter heart#2: %d records, %v; want the second run's 2", len(kept), err)
	}
	// The caller's records are left as they are.
	if other[0].Dataset != "heart" || all[len(all)-1].Dataset != "heart" {
		t.Error("report renamed the caller's records")
	}
	// One dataset's records, or the records of two runs of one dataset,
	// are one table, as before.
	again := compareRecords(t, "builtin:heart", "")
	if s := Summarize(append(slices.Clone(heart), again...), SummaryOptions{}); len(s.Tables) != 1 || len(s.Renamed) != 0 {
		t.Errorf("two runs of heart: %d tables, renamed %q; want 1, none", len(s.Tables), s.Renamed)
	}
}

func near(a, b float64) bool { return a-b < 1e-12 && b-a < 1e-12 }

// The records MergeFiles gives have one identity per name: report shows
// them as they are, without a second check that could name apart what
// MergeFiles merged. Here heart of a run beside a sparse dataset (its
// normalisation auto resolved to a z-score on heart, to maxabs on dna)
// merges with heart run alone by another method, and report's tables and
// figures have one heart.
func TestReportShowsMergeFilesDatasetsAsMerged(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	heart := experiment.DatasetSettings{Path: "builtin:heart", Partitions: 2, TrainSize: 40, TestSize: 40}
	dna := experiment.DatasetSettings{Path: "../../testdata/multiclass/dna.scale", Name: "dna", Partitions: 2, TrainSize: 40, TestSize: 40,
		Read: dataio.ReadOptions{Positive: "3", Features: 180}}
	mixed, alone := filepath.Join(dir, "mixed.jsonl"), filepath.Join(dir, "alone.jsonl")
	compareDatasets(t, "svm", mixed, heart, dna)
	compareDatasets(t, "gi", alone, heart)
	res, err := experiment.MergeFiles(context.Background(), experiment.MergeSettings{Files: []string{mixed, alone}})
	if err != nil {
		t.Fatal(err)
	}
	sum := Summarize(res.Records, SummaryOptions{MethodNames: methods.Names(), Datasets: res.Datasets, Rope: DefaultRope})
	var names []string
	for _, tb := range sum.Tables {
		names = append(names, tb.Dataset)
	}
	if !slices.Equal(names, []string{"heart", "dna"}) || len(sum.Renamed) != 0 || len(sum.Tables[0].Rows) != 2 {
		t.Errorf("tables %v, renamed %q; want heart (svm and gi) and dna, none", names, sum.Renamed)
	}
	figs, err := Figures(res.Records, nil, PlotOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range figs {
		if svg, err := f.Figure.SVG(); err != nil || strings.Contains(string(svg), "heart#2") {
			t.Errorf("figure %s: %v, or it shows heart#2", f.Name, err)
		}
	}
}
