package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

func TestWritePlots(t *testing.T) {
	var rs []Record
	for k := 0; k < 4; k++ {
		rs = append(rs,
			Record{Dataset: "toy", Entry: "svm", Partition: k, Status: "converged", TestAccuracy: 0.8 + 0.01*float64(k),
				Kernel: kernel.Spec{Kind: "gaussian", Gamma: 0.1}},
			Record{Dataset: "toy", Entry: "spd:full", Partition: k, Status: "converged", TestAccuracy: 0.9,
				Kernel:    kernel.Spec{Kind: "gaussian", Q: [][]float64{{2, -0.5}, {-0.5, 1}}},
				Criterion: "w(Q)", Trace: []float64{3, 2, 1.5}},
			Record{Dataset: "toy", Entry: "spd:diag", Partition: k, Status: StatusFailure},
		)
	}
	dir := filepath.Join(t.TempDir(), "figs")
	files, err := WritePlots(dir, "svg", rs, []string{"svm", "spd:full", "spd:diag"})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, f := range files {
		names = append(names, filepath.Base(f))
	}
	want := []string{"toy-accuracy.svg", "toy-spd_full-trace.svg", "toy-spd_full-Q.svg"}
	for _, w := range want {
		if !slices.Contains(names, w) {
			t.Errorf("missing %s in %v", w, names)
		}
	}
	if len(files) != len(want) {
		t.Errorf("wrote %v, want exactly %v (no trace or Q for svm, nothing for an all-failed entry)", names, want)
	}
	b, err := os.ReadFile(filepath.Join(dir, "toy-spd_full-Q.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if s := string(b); !strings.Contains(s, "<svg") || !strings.Contains(s, "mean learned Q over 4 partitions") {
		t.Error("Q heat map is not an SVG with its title")
	}
	if _, err := WritePlots(dir, "gif", rs, nil); err == nil {
		t.Error("unknown format accepted")
	}
}
