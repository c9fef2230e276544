package report

// report --per-job: the long table, one row per (dataset, method,
// partition) with every metric and cost, the form R and pandas read.

import (
	"errors"
	"math"
	"slices"
	"strconv"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// perJobColumn is a column of the per-job table: its name (the results
// file's JSON key where there is one) and its cell.
type perJobColumn struct {
	name string
	cell func(r *experiment.Record) string
}

// perJobNumber is v in full precision, or "" when it is not a number.
func perJobNumber(v float64) string {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return ""
	}
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// perJobScore is the test score m of r, "" for a failed job or one whose
// record lacks what m needs.
func perJobScore(m metrics.Metric) func(r *experiment.Record) string {
	return func(r *experiment.Record) string {
		if r.Failed() {
			return ""
		}
		return perJobNumber(recordScore(r, m))
	}
}

// finished returns cell for a finished job, "" for a failed one (whose
// record has zeros there).
func finished(cell func(r *experiment.Record) string) func(r *experiment.Record) string {
	return func(r *experiment.Record) string {
		if r.Failed() {
			return ""
		}
		return cell(r)
	}
}

var perJobColumns = []perJobColumn{
	{"dataset", func(r *experiment.Record) string { return r.Dataset }},
	{"method", func(r *experiment.Record) string { return r.Entry }},
	{"partition", func(r *experiment.Record) string { return strconv.Itoa(r.Partition) }},
	{"status", func(r *experiment.Record) string { return r.Status }},
	{"failed", func(r *experiment.Record) string { return strconv.FormatBool(r.Failed()) }},
	{"test_accuracy", perJobScore(metrics.Accuracy)},
	{"test_balanced_accuracy", perJobScore(metrics.BalancedAccuracy)},
	{"test_macro_f1", perJobScore(metrics.MacroF1)},
	{"test_auc", perJobScore(metrics.AUC)},
	{"train_accuracy", finished(func(r *experiment.Record) string { return perJobNumber(r.TrainAccuracy) })},
	{"nsv", finished(func(r *experiment.Record) string { return strconv.Itoa(r.NSV) })},
	{"train_size", func(r *experiment.Record) string { return strconv.Itoa(r.TrainSize) }},
	{"test_size", func(r *experiment.Record) string { return strconv.Itoa(r.TestSize) }},
	{"svm_solves", func(r *experiment.Record) string { return strconv.Itoa(r.Solves) }},
	{"seconds", func(r *experiment.Record) string { return perJobNumber(r.Seconds) }},
	{"shared_seconds", func(r *experiment.Record) string { return perJobNumber(r.SharedSeconds) }},
	{"iterations", func(r *experiment.Record) string { return strconv.Itoa(r.Iter) }},
	{"C", finished(func(r *experiment.Record) string { return perJobNumber(r.C) })},
	{"kernel", finished(func(r *experiment.Record) string { return r.Kernel.Kind })},
	{"gamma", finished(func(r *experiment.Record) string {
		if r.Kernel.Gamma == 0 {
			return ""
		}
		return perJobNumber(r.Kernel.Gamma)
	})},
	// The features γ (and Q, θ) act on: the normaliser's kind, "none" for
	// the data's own (where γ is svm-train's -g on the file).
	{"gamma_space", finished(func(r *experiment.Record) string { return r.GammaSpace })},
	{"degenerate", func(r *experiment.Record) string { return r.Degenerate }},
	{"sv_share", finished(func(r *experiment.Record) string { return perJobNumber(experiment.RecordMemorisation(*r).SVShare) })},
	{"memorising", finished(func(r *experiment.Record) string {
		return strconv.FormatBool(experiment.RecordMemorisation(*r).Memorising)
	})},
	// A multi-class record's binary SVMs and how many of them are
	// degenerate ("3 of 15 pairs"); empty for a binary record.
	{"svms", func(r *experiment.Record) string { return countIf(len(r.Pairs) > 0, len(r.Pairs)) }},
	{"degenerate_svms", func(r *experiment.Record) string { return countIf(len(r.Pairs) > 0, r.DegeneratePairs) }},
	{"seed", func(r *experiment.Record) string { return strconv.FormatUint(r.Seed, 10) }},
	{"run", func(r *experiment.Record) string { return r.Run }},
	{"error", func(r *experiment.Record) string { return r.Error }},
}

// countIf is n as a cell, or "" when !ok.
func countIf(ok bool, n int) string {
	if !ok {
		return ""
	}
	return strconv.Itoa(n)
}

// CheckPerJob returns the usage error of --per-job (perJob) with a format
// or other output it cannot have: json (the results file already is that),
// --html or --plot (figures).
func CheckPerJob(perJob bool, format string, figures bool) error {
	switch {
	case !perJob:
		return nil
	case format == FormatJSON:
		return errors.New("--per-job: the results files are already one JSON record per job; give --format csv (or table, markdown, latex)")
	case figures:
		return errors.New("--per-job prints the long table only: run report once more for --html or --plot")
	}
	return nil
}

// PerJobTable is the long form of the records: one row per (dataset,
// method, partition), datasets and methods in the order of the summary's
// tables, partitions 0-based as in the results file. Every test metric
// (accuracy, balanced accuracy, macro-F1, AUC; "" where the record lacks
// what it needs or the job failed), the training accuracy, #SV, sizes and
// the costs (SVM solves, seconds, the shared part of them, iterations), the
// final C and kernel, the degenerate class and the seed, fingerprint and
// error. Column names are the results file's JSON keys where it has them.
func PerJobTable(sum Summary, recs []experiment.Record) *Table {
	t := &Table{Title: "one row per (dataset, method, partition)"}
	for _, c := range perJobColumns {
		t.Header = append(t.Header, c.name)
	}
	dsRank, entryRank := map[string]int{}, map[string]int{}
	for i, tb := range sum.Tables {
		dsRank[tb.Dataset] = i
		for j, r := range tb.Rows {
			if _, ok := entryRank[r.Entry]; !ok {
				entryRank[r.Entry] = j
			}
		}
	}
	rank := func(m map[string]int, k string) int {
		if v, ok := m[k]; ok {
			return v
		}
		return len(m)
	}
	rs := slices.Clone(byIdentity(recs)) // sum's datasets (Summarize)
	slices.SortStableFunc(rs, func(a, b experiment.Record) int {
		if d := rank(dsRank, a.Dataset) - rank(dsRank, b.Dataset); d != 0 {
			return d
		}
		if d := rank(entryRank, a.Entry) - rank(entryRank, b.Entry); d != 0 {
			return d
		}
		return a.Partition - b.Partition
	})
	for i := range rs {
		row := make([]string, len(perJobColumns))
		for j, c := range perJobColumns {
			row[j] = c.cell(&rs[i])
		}
		t.Add(row...)
	}
	return t
}
