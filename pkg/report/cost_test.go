package report

import (
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// costRecords: three datasets, three partitions each, svm (accuracy
// 0.80/0.82/0.84 on d1, 10, 20, 30 solves), random and bo with their own
// accuracies and costs (bo's seconds 18 times its solves' share: its GP);
// one failed bo job on d1 is left out.
func costRecords() []experiment.Record {
	var rs []experiment.Record
	acc := map[string][3]float64{"d1": {0.8, 0.85, 0.75}, "d2": {0.8, 0.7, 0.9}, "d3": {0.7, 0.9, 0.8}}
	solves := [3]int{10, 60, 30}
	secs := [3]float64{1, 2, 18}
	for _, ds := range []string{"d1", "d2", "d3"} {
		for k := range 3 {
			for j, e := range []string{"svm", "random", "bo"} {
				rs = append(rs, experiment.Record{Dataset: ds, Entry: e, Method: e, Partition: k, Status: "converged",
					TestAccuracy: acc[ds][j] + 0.02*float64(k), Solves: solves[j] * (k + 1), Seconds: secs[j] * float64(k+1)})
			}
		}
	}
	rs = append(rs, experiment.Record{Dataset: "d1", Entry: "bo", Method: "bo", Partition: 3, Status: experiment.StatusFailure, Solves: 1000})
	return rs
}

func TestCostPanelsAndRanks(t *testing.T) {
	t.Parallel()
	rs := costRecords()
	order := []string{"svm", "random", "bo"}
	tables := drawnTables(rs, order, "", metrics.Accuracy)
	panels := costPanels(tables, rs)
	if len(panels) != 3 || panels[0].Dataset != "d1" || len(panels[0].Points) != 3 {
		t.Fatalf("panels %+v", panels)
	}
	// The time panels: bo at 18, 36, 54 s (mean 36), costlier than
	// random though it runs half random's solves.
	tp := timePanels(tables, rs)
	if q := tp[0].Points[2]; len(tp) != 3 || tp[0].Unit != "seconds" || q.Name != "bo" || q.Cost != 36 || q.CostMin != 18 || q.CostMax != 54 || tp[0].Points[1].Cost >= q.Cost {
		t.Errorf("time panel of d1: %+v", tp[0])
	}
	// d1, svm: accuracies 80, 82, 84 % (mean 82, s.d. 2), solves 10, 20, 30.
	p := panels[0].Points[0]
	if p.Name != "svm" || !p.Reference || math.Abs(p.Acc-82) > 1e-9 || math.Abs(p.AccSD-2) > 1e-9 || p.Cost != 20 || p.CostMin != 10 || p.CostMax != 30 {
		t.Errorf("d1 svm: %+v", p)
	}
	// d1, bo: the failed job's 1000 solves are not its cost.
	if p := panels[0].Points[2]; p.Name != "bo" || p.Reference || math.Abs(p.Acc-77) > 1e-9 || p.Cost != 60 || p.CostMax != 90 {
		t.Errorf("d1 bo: %+v", p)
	}
	cross, err := CrossDataset(tables)
	if err != nil {
		t.Fatal(err)
	}
	pts, note := rankCost(tables, cross)
	// Ranks: d1 svm 2, random 1, bo 3; d2 2, 3, 1; d3 3, 1, 2 → 7/3, 5/3, 2.
	// Costs: the mean solves 20, 120, 60 on every dataset.
	want := map[string][2]float64{"svm": {7.0 / 3, 20}, "random": {5.0 / 3, 120}, "bo": {2, 60}}
	for _, q := range pts {
		w := want[q.Name]
		if math.Abs(q.Rank-w[0]) > 1e-12 || math.Abs(q.Cost-w[1]) > 1e-9 || q.Reference != (q.Name == "svm") {
			t.Errorf("%s: rank %g cost %g, want %g and %g", q.Name, q.Rank, q.Cost, w[0], w[1])
		}
	}
	if !strings.Contains(note, "Friedman χ²_F = 0.667") || !strings.Contains(note, "Nemenyi critical difference 1.91") {
		t.Errorf("note %q", note)
	}

	dir := t.TempDir()
	files, err := WritePlots(dir, "svg", rs, order)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	if !slices.Contains(names, "accuracy-cost.svg") || !slices.Contains(names, "accuracy-time.svg") || !slices.Contains(names, "rank-cost.svg") {
		t.Fatalf("wrote %v", names)
	}
	for file, texts := range map[string][]string{
		"accuracy-cost.svg": {"Mean test accuracy against SVM solves", ">d1<", ">d3<", ">random<", "mean SVM solves (log scale)", "fewest to most SVM solves"},
		"accuracy-time.svg": {"Mean test accuracy against time", ">d1<", ">random<", "mean seconds (log scale)", "shortest to longest partition"},
		"rank-cost.svg":     {"on 3 datasets against cost", ">bo<", "average rank (1 = best)", "Friedman"},
	} {
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			t.Fatal(err)
		}
		for _, x := range texts {
			if !strings.Contains(string(b), x) {
				t.Errorf("%s: no %q", file, x)
			}
		}
	}
}

// The HTML page captions the cost figures in words, not by file name.
func TestCostFigureCaptions(t *testing.T) {
	for name, want := range map[string]string{
		"accuracy-cost": "Mean test accuracy against cost: each method's mean SVM solves (log scale)",
		"accuracy-time": "Mean test accuracy against time: each method's mean wall-clock seconds",
		"rank-cost":     "Average rank of mean test accuracy (1 = best) against the mean SVM solves",
	} {
		if got := figureCaption(NamedFigure{Name: name}, metrics.Accuracy); !strings.HasPrefix(got, want) {
			t.Errorf("caption of %s: %q", name, got)
		}
	}
}

// The settings box gives each dataset's own sizes (issue 35, item 5): once
// when they agree, per dataset when they differ.
func TestTrainTestSizes(t *testing.T) {
	rec := func(ds string, tr, te int) experiment.Record {
		return experiment.Record{Dataset: ds, TrainSize: tr, TestSize: te}
	}
	for _, c := range []struct {
		recs []experiment.Record
		want string
	}{
		{[]experiment.Record{rec("a", 80, 30), rec("a", 80, 30)}, "80 / 30"},
		{[]experiment.Record{rec("a", 80, 30), rec("b", 80, 30)}, "80 / 30 (every dataset)"},
		{[]experiment.Record{rec("heart", 80, 190), rec("a32", 32561, 16281), rec("heart", 80, 190)}, "heart 80 / 190; a32 32561 / 16281"},
	} {
		if got := trainTestSizes(c.recs); got != c.want {
			t.Errorf("%v: %q, want %q", c.recs, got, c.want)
		}
	}
}
