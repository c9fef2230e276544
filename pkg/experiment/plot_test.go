package experiment

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	fig "github.com/kerneltune/kerneltune/pkg/figure"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

func plotRecords() []Record {
	var rs []Record
	for k := 0; k < 4; k++ {
		rs = append(rs,
			Record{Dataset: "toy", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: []float64{0.8, 0.7, 0.9, 0.75}[k],
				Kernel: kernel.Spec{Kind: "gaussian", Gamma: 0.1}, Criterion: "5-fold CV accuracy", Trace: []float64{0.8}},
			Record{Dataset: "toy", Entry: "spd:full", Partition: k, Status: "converged", TestAccuracy: 0.9,
				Kernel:    kernel.Spec{Kind: "gaussian", Q: [][]float64{{2 + float64(k), -0.5}, {-0.5, 1}}},
				Criterion: "w(Q)", Trace: []float64{3, 2, 1.5}},
			Record{Dataset: "toy", Entry: "spd:diag", Partition: k, Status: StatusFailure},
			Record{Dataset: "toy", Entry: "lccp", Partition: k, Status: "converged", TestAccuracy: 0.85,
				Kernel: kernel.Spec{Kind: "l1", Theta: []float64{0.5, 4, 2}}, Features: []string{"age", "sex", "chol"}},
			Record{Dataset: "toy", Entry: "twolevel", Partition: k, Status: "converged", TestAccuracy: 0.8,
				Kernel: kernel.Spec{Kind: "gaussian", Diag: []float64{float64(k), 1, 0.5}}},
		)
	}
	return rs
}

func TestWritePlots(t *testing.T) {
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
	// With the cross-dataset statistics' ranks and CD, the diagram follows
	// the accuracy figure.
	cd := &fig.CD{Names: []string{"svm", "lccp", "twolevel"}, Ranks: []float64{1.5, 1.5, 3}, CD: 1.2}
	files, err = WritePlotsWith(filepath.Join(dir, "cd"), rs, nil, PlotOptions{CriticalDifference: cd})
	if err != nil || len(files) != len(want)+1 || filepath.Base(files[1]) != "critical-difference.svg" {
		t.Fatalf("with CD: %v, %v", files, err)
	}
	if s := read("cd/critical-difference.svg"); !strings.Contains(s, ">lccp (1.50)<") || !strings.Contains(s, ">CD = 1.2<") {
		t.Error("critical-difference.svg lacks its labels")
	}
	cd.Ranks[2] = 7
	if _, err := WritePlotsWith(filepath.Join(dir, "bad"), rs, nil, PlotOptions{CriticalDifference: cd}); err == nil || !strings.Contains(err.Error(), "rank of twolevel is 7") {
		t.Errorf("bad ranks: %v", err)
	}
}

// The figures' data: the baseline's median as the reference, the L1
// kernel's weights as 1/θ with the records' feature names, a diagonal Q's
// q_k with numbered features, and the mean of the full Q's.
func TestFigureData(t *testing.T) {
	rs := plotRecords()
	byEntry := map[string][]Record{}
	for _, r := range rs {
		if !r.Failed() {
			byEntry[r.Entry] = append(byEntry[r.Entry], r)
		}
	}
	tables := Summarize(rs, []string{"svm", "spd:full", "spd:diag", "lccp", "twolevel"}, "")
	p := accuracyPanel(tables[0], byEntry)
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
