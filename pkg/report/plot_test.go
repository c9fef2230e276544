package report

import (
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	fig "github.com/kerneltune/kerneltune/pkg/figure"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/stats"
)

func plotRecords() []experiment.Record {
	var rs []experiment.Record
	for k := 0; k < 4; k++ {
		rs = append(rs,
			experiment.Record{Dataset: "toy", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: []float64{0.8, 0.7, 0.9, 0.75}[k],
				Kernel: kernel.Spec{Kind: "gaussian", Gamma: 0.1}, Criterion: "5-fold CV accuracy", Trace: []float64{0.8}},
			experiment.Record{Dataset: "toy", Entry: "spd:full", Partition: k, Status: "converged", TestAccuracy: 0.9,
				Kernel:    kernel.Spec{Kind: "gaussian", Q: [][]float64{{2 + float64(k), -0.5}, {-0.5, 1}}},
				Criterion: "w(Q)", Trace: []float64{3, 2, 1.5}},
			experiment.Record{Dataset: "toy", Entry: "spd:diag", Partition: k, Status: experiment.StatusFailure},
			experiment.Record{Dataset: "toy", Entry: "lccp", Partition: k, Status: "converged", TestAccuracy: 0.85,
				Kernel: kernel.Spec{Kind: "l1", Theta: []float64{0.5, 4, 2}}, Features: []string{"age", "sex", "chol"}},
			experiment.Record{Dataset: "toy", Entry: "twolevel", Partition: k, Status: "converged", TestAccuracy: 0.8,
				Kernel: kernel.Spec{Kind: "gaussian", Diag: []float64{float64(k), 1, 0.5}}},
		)
	}
	return rs
}

func TestWritePlots(t *testing.T) {
	t.Parallel()
	rs := plotRecords()
	dir := filepath.Join(t.TempDir(), "figs")
	files, err := WritePlots(dir, "svg", rs, []string{"svm", "spd:full", "spd:diag", "lccp", "twolevel"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	// No trace for svm (one value) or lccp (none), no weights for an
	// isotropic γ, nothing for an entry whose every job failed.
	want := []string{"accuracy.svg", "toy-spd_full-trace.svg", "toy-spd_full-Q.svg", "toy-lccp-weights.svg", "toy-twolevel-weights.svg"}
	if !reflect.DeepEqual(names, want) {
		t.Errorf("wrote %v, want %v", names, want)
	}
	read := func(name string) string {
		b, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	for file, texts := range map[string][]string{
		"accuracy.svg":             {"<svg", "Test accuracy per partition", ">toy<", ">spd:full<", "median of svm"},
		"toy-spd_full-Q.svg":       {"mean learned Q over 4 partitions", "off-diagonal Q_ij"},
		"toy-lccp-weights.svg":     {">age<", ">chol<", "1/θ_k"},
		"toy-twolevel-weights.svg": {">1<", ">3<", "q_k, the diagonal of Q"},
	} {
		s := read(file)
		for _, x := range texts {
			if !strings.Contains(s, x) {
				t.Errorf("%s: no %q", file, x)
			}
		}
	}
	if _, err := WritePlots(dir, "gif", rs, nil); err == nil || !strings.Contains(err.Error(), `unknown format "gif"`) {
		t.Errorf("unknown format: %v", err)
	}
	files, err = WritePlotsWith(filepath.Join(dir, "png"), rs, nil, PlotOptions{Format: "png"})
	if err != nil || len(files) != len(want) || !strings.HasSuffix(files[0], "accuracy.png") {
		t.Errorf("png: %v, %v", files, err)
	}
}

// The figures' data: the baseline's median as the reference, the L1
// kernel's weights as 1/θ with the records' feature names, a diagonal Q's
// q_k with numbered features, and the mean of the full Q's.
func TestFigureData(t *testing.T) {
	rs := plotRecords()
	byEntry := map[string][]experiment.Record{}
	for _, r := range rs {
		if !r.Failed() {
			byEntry[r.Entry] = append(byEntry[r.Entry], r)
		}
	}
	tables := drawnTables(rs, []string{"svm", "spd:full", "spd:diag", "lccp", "twolevel"}, "", metrics.Accuracy)
	p := accuracyPanel(tables[0], byEntry, metrics.Accuracy)
	if p.Reference != 77.5 || p.ReferenceName != "svm" || len(p.Boxes) != 5 || len(p.Boxes[2].Values) != 0 {
		t.Errorf("accuracy panel: reference %v (%s), %d boxes, spd:diag %v; want 77.5 (svm), 5, none",
			p.Reference, p.ReferenceName, len(p.Boxes), p.Boxes[2].Values)
	}
	w := weights("toy", "lccp", byEntry["lccp"], true)
	if w == nil || !reflect.DeepEqual(w.Runs[0], []float64{2, 0.25, 0.5}) || !reflect.DeepEqual(w.Names, []string{"age", "sex", "chol"}) || !w.Sorted {
		t.Errorf("lccp weights: %+v", w)
	}
	w = weights("toy", "twolevel", byEntry["twolevel"], false)
	if w == nil || len(w.Runs) != 4 || w.Runs[3][0] != 3 || !reflect.DeepEqual(w.Names, []string{"1", "2", "3"}) {
		t.Errorf("twolevel weights: %+v", w)
	}
	if w := weights("toy", "svm", byEntry["svm"], false); w != nil {
		t.Errorf("isotropic γ gave weights %+v", w)
	}
	m := meanQ("toy", "spd:full", byEntry["spd:full"])
	if m == nil || !reflect.DeepEqual(m.Q, [][]float64{{3.5, -0.5}, {-0.5, 1}}) {
		t.Errorf("mean Q: %+v", m)
	}
}

// With two or more datasets, the figures include Demšar's diagram of the
// statistics across datasets: their average ranks, CD and groups.
func TestCriticalDifferenceFigure(t *testing.T) {
	t.Parallel()
	var rs []experiment.Record
	acc := map[string][]float64{ // mean accuracy per dataset: svm, lccp, twolevel
		"d1": {0.8, 0.9, 0.7}, "d2": {0.8, 0.85, 0.75}, "d3": {0.7, 0.9, 0.8},
	}
	for ds, a := range acc {
		for k := 0; k < 3; k++ {
			for j, e := range []string{"svm", "lccp", "twolevel"} {
				rs = append(rs, experiment.Record{Dataset: ds, Entry: e, Method: e, Partition: k, Status: "converged", TestAccuracy: a[j] + 0.01*float64(k)})
			}
		}
	}
	order := []string{"svm", "lccp", "twolevel"}
	d := cdDiagram(drawnTables(rs, order, "", metrics.Accuracy))
	// Ranks per dataset: d1 2,1,3; d2 2,1,3; d3 3,1,2 → 7/3, 1, 8/3.
	// CD (Nemenyi, α = 0.05, k = 3, N = 3) = 2.343 √(3·4/18) = 1.913 > 8/3 − 1:
	// one group.
	if d == nil || !reflect.DeepEqual(d.Names, order) || math.Abs(d.Ranks[0]-7.0/3) > 1e-12 || d.Ranks[1] != 1 || math.Abs(d.Ranks[2]-8.0/3) > 1e-12 ||
		math.Abs(d.CD-1.913) > 1e-3 || !reflect.DeepEqual(d.Cliques, [][]int{{1, 0, 2}}) {
		t.Fatalf("diagram input %+v", d)
	}
	dir := t.TempDir()
	files, err := WritePlots(dir, "svg", rs, order)
	if err != nil || len(files) < 2 || filepath.Base(files[1]) != "critical-difference.svg" {
		t.Fatalf("files %v, %v", files, err)
	}
	b, _ := os.ReadFile(files[1])
	for _, s := range []string{">lccp (1.00)<", ">svm (2.33)<", "CD = 1.91 (Nemenyi, α = 0.05)", "on 3 datasets"} {
		if !strings.Contains(string(b), s) {
			t.Errorf("critical-difference.svg: no %q", s)
		}
	}
	// One dataset: no diagram.
	if d := cdDiagram(drawnTables(rs[:9], order, "", metrics.Accuracy)); d != nil {
		t.Errorf("one dataset gave a diagram: %+v", d)
	}
}

// The figure package's own grouping (for callers without statistics) and
// the statistics' agree.
func TestCliquesAgreeWithStatsGroups(t *testing.T) {
	for seed := 0; seed < 200; seed++ {
		k := 2 + seed%7
		ranks := make([]float64, k)
		for i := range ranks {
			ranks[i] = 1 + float64((seed*7919+i*104729)%1000)/1000*float64(k-1)
		}
		cd := 0.2 + float64(seed%13)/5
		a, b := fig.Cliques(ranks, cd), stats.Groups(ranks, cd)
		if len(a) != len(b) || (len(a) > 0 && !reflect.DeepEqual(a, b)) {
			t.Fatalf("ranks %v, CD %v: figure %v, stats %v", ranks, cd, a, b)
		}
	}
}

// TestWeightsLeaveOutConstantFeatures: a feature constant on a partition's
// training part has no learned weight there: its value is left out of the
// mean, and a feature constant on every training part is not drawn at all
// but named in the title (lccp leaves θ at its start 1, which would draw as
// the largest weight).
func TestWeightsLeaveOutConstantFeatures(t *testing.T) {
	rec := func(theta []float64, constant ...int) experiment.Record {
		return experiment.Record{Kernel: kernel.Spec{Kind: "l1", Theta: theta}, Constant: constant,
			Features: []string{"a", "b", "c"}}
	}
	rs := []experiment.Record{
		rec([]float64{2, 1, 4}, 2),
		rec([]float64{4, 1, 8}, 2, 3),
		rec([]float64{8, 1, 2}, 2),
	}
	w := weights("d", "lccp", rs, false)
	if w == nil {
		t.Fatal("no weights")
	}
	if !reflect.DeepEqual(w.Names, []string{"a", "c"}) {
		t.Fatalf("names %v, want [a c]", w.Names)
	}
	if !strings.Contains(w.Title, "not shown, constant on every training part: feature b") {
		t.Errorf("title %q does not name the constant feature", w.Title)
	}
	want := [][]float64{{0.5, 0.25}, {0.25, math.NaN()}, {0.125, 0.5}}
	for i, r := range w.Runs {
		for k, v := range r {
			if !(v == want[i][k] || math.IsNaN(v) && math.IsNaN(want[i][k])) {
				t.Errorf("run %d feature %s: %v, want %v", i, w.Names[k], v, want[i][k])
			}
		}
	}
	// Constant on no training part: every feature is drawn.
	for i := range rs {
		rs[i].Constant = nil
	}
	if w := weights("d", "lccp", rs, false); len(w.Names) != 3 || strings.Contains(w.Title, "not shown") {
		t.Errorf("without constant features: names %v, title %q", w.Names, w.Title)
	}
}

// TestMeanQMarksConstantFeatures: the full-Q heat map labels a feature
// constant on every training part "NAME (constant)" (its row and column of
// Q were not learned); one constant on some parts only is labelled as usual.
func TestMeanQMarksConstantFeatures(t *testing.T) {
	rec := func(constant ...int) experiment.Record {
		return experiment.Record{Kernel: kernel.Spec{Kind: "gaussian", Q: [][]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}},
			Constant: constant, Features: []string{"a", "b", "c"}}
	}
	rs := []experiment.Record{rec(2, 3), rec(2), rec(2, 2)}
	m := meanQ("d", "spd:full", rs)
	if m == nil || !reflect.DeepEqual(m.Names, []string{"a", "b (constant)", "c"}) {
		t.Fatalf("names %+v, want [a \"b (constant)\" c]", m)
	}
	if !reflect.DeepEqual(rs[0].Features, []string{"a", "b", "c"}) {
		t.Errorf("the records' feature names were changed: %v", rs[0].Features)
	}
	for i := range rs {
		rs[i].Constant = nil
	}
	if m := meanQ("d", "spd:full", rs); !reflect.DeepEqual(m.Names, []string{"a", "b", "c"}) {
		t.Errorf("without constant features: names %v", m.Names)
	}
}

// A multi-class record keeps its first binary SVM's kernel, and which pair
// comes first depends on the partition: the weights figure averages only
// the partitions whose first pair is the first record's, and says which.
func TestWeightsOfMultiClassRecords(t *testing.T) {
	conf := &metrics.Confusion{Labels: []string{"1", "2", "3"}, Counts: [][]int{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}
	rec := func(first string, q ...float64) experiment.Record {
		return experiment.Record{Dataset: "m", Entry: "spd", Method: "spd", TestConfusion: conf,
			Kernel: kernel.Spec{Kind: kernel.KindGaussian, Diag: q},
			Notes:  []string{"one-vs-one over 3 classes: 3 tunings; kernel and C are the first pair's (" + first + ")"}}
	}
	rs := []experiment.Record{rec(`"1" vs "2"`, 1, 3), rec(`"2" vs "1"`, 100, 100), rec(`"1" vs "2"`, 3, 5)}
	w := weights("m", "spd", rs, false)
	if w == nil || len(w.Runs) != 2 || w.Runs[0][0] != 1 || w.Runs[1][1] != 5 {
		t.Fatalf("weights %+v: want the runs of the first and third records only", w)
	}
	if !strings.Contains(w.Title, `the "1" vs "2" SVM over the 2 partitions`) {
		t.Errorf("title %q does not name the pair and its partitions", w.Title)
	}
	if got := firstSubproblem(nil); got != "first pair" {
		t.Errorf("firstSubproblem without a note: %q", got)
	}
}
