package report

import (
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/stats"
)

func TestEntryOrder(t *testing.T) {
	rec := func(method, param string) experiment.Record {
		e := method
		if param != "" {
			e += ":" + param
		}
		return experiment.Record{Dataset: "heart", Entry: e, Method: method, Param: param}
	}
	// As a merged results file has them: shards interleaved, entries
	// repeated once per partition.
	rs := []experiment.Record{
		rec("spd", "full"), rec("gi", "B"), rec("svm", ""), rec("custom", ""),
		rec("spd", "diag"), rec("gi", "A"), rec("svm", ""), rec("spd", "full"),
		rec("rcsc", ""), rec("aaa", ""),
	}
	names := []string{"svm", "spd", "gi", "lccp", "rcsc", "twolevel"}
	want := []string{"svm", "spd:diag", "spd:full", "gi:A", "gi:B", "rcsc", "aaa", "custom"}
	if got := EntryOrder(rs, names); !slices.Equal(got, want) {
		t.Errorf("EntryOrder = %q, want %q", got, want)
	}
	// The order of the records does not matter.
	slices.Reverse(rs)
	if got := EntryOrder(rs, names); !slices.Equal(got, want) {
		t.Errorf("EntryOrder of reversed records = %q, want %q", got, want)
	}
	// Without a registry, entries are in name order.
	if got, want := EntryOrder(rs, nil), []string{"aaa", "custom", "gi:A", "gi:B", "rcsc", "spd:diag", "spd:full", "svm"}; !slices.Equal(got, want) {
		t.Errorf("EntryOrder without names = %q, want %q", got, want)
	}
	if got := EntryOrder(nil, names); len(got) != 0 {
		t.Errorf("EntryOrder of no records = %q", got)
	}
}

// TestSummarizeIncomplete: a summary counts the records against the
// run's planned grid. Missing jobs are counted per row and per table, a
// planned dataset without records gets a table of empty rows, the Wilcoxon
// test pairs only the partitions both entries finished, and the order is
// the grid's (the command line's), not alphabetical.
func TestSummarizeIncomplete(t *testing.T) {
	grid := &experiment.Grid{
		Datasets: []experiment.GridDataset{{Name: "wdbc", Partitions: 6}, {Name: "bupa", Partitions: 6}},
		Entries:  []string{"spd", "svm"},
	}
	base := []float64{0.80, 0.82, 0.79, 0.85, 0.90, 0.70}
	alt := []float64{0.78, 0.80, 0.80, 0.81, 0.86, 0.72}
	var rs []experiment.Record
	for k := range base {
		if k != 1 { // svm's partition 2 is in a shard left out
			rs = append(rs, experiment.Record{Dataset: "wdbc", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: base[k], Grid: grid})
		}
		switch k {
		case 4: // spd failed on partition 5
			rs = append(rs, experiment.Record{Dataset: "wdbc", Entry: "spd", Partition: k, Status: experiment.StatusFailure, Grid: grid})
		case 5: // and the run stopped before spd's partition 6
		default:
			rs = append(rs, experiment.Record{Dataset: "wdbc", Entry: "spd", Partition: k, Status: "converged", TestAccuracy: alt[k], Grid: grid})
		}
	}
	sum := Summarize(rs, SummaryOptions{Baseline: "svm"})
	if !sum.GridKnown || sum.Complete || sum.JobsPlanned != 24 || sum.JobsPresent != 10 {
		t.Fatalf("summary: grid %v, complete %v, %d of %d jobs; want false, 10 of 24", sum.GridKnown, sum.Complete, sum.JobsPresent, sum.JobsPlanned)
	}
	if want := "INCOMPLETE: 10 of 24 jobs present (wdbc: 10 of 12, bupa: no records); means are over the partitions present"; sum.Warning != want {
		t.Errorf("warning %q, want %q", sum.Warning, want)
	}
	if len(sum.Tables) != 2 || sum.Tables[0].Dataset != "wdbc" || sum.Tables[1].Dataset != "bupa" {
		t.Fatalf("tables %+v, want wdbc then bupa (the grid's order)", sum.Tables)
	}
	w := sum.Tables[0]
	if w.Complete || w.Partitions != 6 || w.JobsPresent != 10 || w.Rows[0].Entry != "spd" || w.Rows[1].Entry != "svm" {
		t.Fatalf("wdbc table %+v", w)
	}
	spd, svm := w.Rows[0], w.Rows[1]
	if spd.Runs != 4 || spd.Failures != 1 || spd.Missing != 1 || svm.Runs != 5 || svm.Missing != 1 || svm.Failures != 0 {
		t.Errorf("spd runs/failures/missing %d/%d/%d (want 4/1/1), svm %d/%d/%d (want 5/0/1)",
			spd.Runs, spd.Failures, spd.Missing, svm.Runs, svm.Failures, svm.Missing)
	}
	// Partitions 1, 3, 4 are the only ones both finished (2: svm missing,
	// 5: spd failed, 6: spd missing).
	want := stats.WilcoxonSignedRank([]float64{alt[0], alt[2], alt[3]}, []float64{base[0], base[2], base[3]}).P
	if spd.Pairs != 3 || float64(spd.P) != want {
		t.Errorf("spd pairs %d, p %v; want 3 and %v", spd.Pairs, spd.P, want)
	}
	if m := (alt[0] + alt[1] + alt[2] + alt[3]) / 4; math.Abs(float64(spd.MeanAcc)-m) > 1e-15 {
		t.Errorf("spd mean %v, want %v", spd.MeanAcc, m)
	}
	b := sum.Tables[1]
	if b.Complete || b.JobsPresent != 0 || b.JobsPlanned != 12 || len(b.Rows) != 2 {
		t.Fatalf("bupa table %+v, want 0 of 12 jobs and a row per entry", b)
	}
	for _, r := range b.Rows {
		if r.Runs != 0 || r.Missing != 6 || r.Best || !math.IsNaN(float64(r.MeanAcc)) || !math.IsNaN(float64(r.MeanSV)) {
			t.Errorf("bupa row %+v, want 6 missing and no numbers", r)
		}
	}
	if got := sum.Incomplete(); len(got) != 2 {
		t.Errorf("Incomplete() = %d tables, want 2", len(got))
	}
}

// TestSummarizeTiesAndOldRecords: every entry with the best mean is
// marked; records without a grid (older files) infer it and say so, in
// the datasets' given order.
func TestSummarizeTiesAndOldRecords(t *testing.T) {
	var rs []experiment.Record
	acc := map[string][]float64{"a": {0.7, 0.9}, "b": {0.9, 0.7}, "c": {0.6, 0.6}}
	for _, ds := range []string{"zoo", "abc"} {
		for _, e := range []string{"c", "b", "a"} {
			for k, v := range acc[e] {
				if ds == "abc" && e == "a" && k == 1 {
					continue // a run stopped early
				}
				rs = append(rs, experiment.Record{Dataset: ds, Entry: e, Method: e, Partition: k, Status: "converged", TestAccuracy: v})
			}
		}
	}
	sum := Summarize(rs, SummaryOptions{Datasets: []string{"zoo", "abc"}, MethodNames: []string{"c", "a", "b"}})
	if sum.GridKnown || sum.Complete || sum.JobsPlanned != 12 || sum.JobsPresent != 11 {
		t.Fatalf("grid %v complete %v %d of %d", sum.GridKnown, sum.Complete, sum.JobsPresent, sum.JobsPlanned)
	}
	if !strings.Contains(sum.Warning, "abc: 5 of 6") || !strings.Contains(sum.Warning, "written by an older kerneltune") {
		t.Errorf("warning %q", sum.Warning)
	}
	z := sum.Tables[0]
	if z.Dataset != "zoo" || !z.Complete {
		t.Fatalf("first table %+v", z)
	}
	var best []string
	for _, r := range z.Rows {
		if r.Best {
			best = append(best, r.Entry)
		}
	}
	if got := []string{z.Rows[0].Entry, z.Rows[1].Entry, z.Rows[2].Entry}; !slices.Equal(got, []string{"c", "a", "b"}) || !slices.Equal(best, []string{"a", "b"}) {
		t.Errorf("zoo rows %q, best %q; want c, a, b with a and b tied best", got, best)
	}
	if a := sum.Tables[1].Rows[1]; a.Entry != "a" || a.Runs != 1 || a.Missing != 1 || !math.IsNaN(float64(a.StdAcc)) {
		t.Errorf("abc row a %+v, want 1 run, 1 missing, no std", a)
	}
}

// TestSummarizeNumbers: the mean, the sample std and the Wilcoxon p of a
// table (moved from experiment's protocol tests).
func TestSummarizeNumbers(t *testing.T) {
	var rs []experiment.Record
	base := []float64{0.80, 0.82, 0.79, 0.85, 0.90, 0.70, 0.76, 0.81, 0.88, 0.84}
	alt := []float64{0.78, 0.80, 0.80, 0.81, 0.86, 0.72, 0.70, 0.80, 0.85, 0.83}
	for k := range base {
		rs = append(rs, experiment.Record{Dataset: "d", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: base[k], NSV: 10, Seconds: 1, Solves: 100})
		rs = append(rs, experiment.Record{Dataset: "d", Entry: "spd", Partition: k, Status: "converged", TestAccuracy: alt[k], NSV: 20, Seconds: 3, Solves: 10})
	}
	rs = append(rs, experiment.Record{Dataset: "d", Entry: "spd", Partition: 10, Status: experiment.StatusFailure})
	tab := drawnTables(rs, []string{"svm", "spd"}, "", metrics.Accuracy)[0]
	svm, spd := tab.Rows[0], tab.Rows[1]
	if svm.Entry != "svm" || !svm.Best || spd.Best {
		t.Fatalf("rows %+v", tab.Rows)
	}
	// mean and sample std of base, from Python's statistics module.
	if math.Abs(float64(svm.MeanAcc)-0.815) > 1e-12 || math.Abs(float64(svm.StdAcc)-0.05816642788871717) > 1e-12 {
		t.Errorf("svm mean/std = %v/%v, want 0.815/0.0581664279", svm.MeanAcc, svm.StdAcc)
	}
	// p-value of the "simple" scipy case (same data as percentages): ten
	// pairs with ties, exact over the signs of the mid-ranks, 42/1024 (the
	// normal approximation's 0.0403051305 before issue 42).
	if float64(spd.P) != 0.041015625 || !spd.PExact || spd.Failures != 1 || spd.MeanSV != 20 || spd.MeanSolves != 10 {
		t.Errorf("spd row %+v", spd)
	}
	if !math.IsNaN(float64(svm.P)) {
		t.Errorf("baseline p = %v, want NaN", svm.P)
	}
}

// The degenerate cell of multi-class runs counts SVMs, and names the runs
// whose model as a whole is degenerate with no degenerate SVM (one-vs-rest
// predicting one class): before, such a run showed "0 of 6 classes" while
// the record said degenerate.
func TestDegenerateCellWholeModel(t *testing.T) {
	rest := func(deg string, degClass bool) experiment.Record {
		pairs := make([]experiment.RecordPair, 3)
		for i := range pairs {
			pairs[i] = experiment.RecordPair{Positive: string(rune('a' + i)), Rest: true}
		}
		n := 0
		if degClass {
			pairs[0].Degenerate, n = "diagonal", 1
		}
		return experiment.Record{Dataset: "d", Entry: "rcsc", Method: "rcsc", Status: "converged", Degenerate: deg, Pairs: pairs, DegeneratePairs: n, TestAccuracy: 0.5}
	}
	for _, c := range []struct {
		recs []experiment.Record
		want string
	}{
		{[]experiment.Record{rest("", false), rest("", false)}, "0 of 6 classes"},
		{[]experiment.Record{rest("one-class", false), rest("", false)}, "0 of 6 classes; 1/2 runs one-class"},
		{[]experiment.Record{rest("diagonal", true), rest("one-class", false)}, "1 of 6 classes; 1/2 runs one-class"},
		{[]experiment.Record{rest("diagonal", true), rest("", false)}, "1 of 6 classes"},
	} {
		row := summarizeEntry("rcsc", c.recs, metrics.Accuracy)
		if got := row.degenerateCell(); got != c.want {
			t.Errorf("%v: %q, want %q", c.recs, got, c.want)
		}
	}
}
