package cmd

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// compare --plot on data with a header: the accuracy figure, spd's trace and
// a weight chart labelled with the file's feature names; --plot-sort lists
// them by weight; report --plot draws the same files from the results file.
func TestComparePlotFeatureNames(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "w.csv")
	mustRun(t, "generate", "weston", "--n", "200", "-o", data)
	figs, sorted := filepath.Join(dir, "figs"), filepath.Join(dir, "sorted")
	res := filepath.Join(dir, "res.jsonl")
	args := []string{"compare", data, "--methods", "svm,spd", "--partitions", "2", "--train-size", "60", "--test-size", "60", "--workers", "2"}
	mustRun(t, append(args, "--plot", figs, "--out", res)...)
	mustRun(t, "report", res, "--plot", sorted, "--plot-sort")
	list := func(d string) []string {
		es, err := os.ReadDir(d)
		if err != nil {
			t.Fatal(err)
		}
		var ns []string
		for _, e := range es {
			ns = append(ns, e.Name())
		}
		return ns
	}
	want := []string{"accuracy.svg", "w-spd-trace.svg", "w-spd-weights.svg"}
	for _, d := range []string{figs, sorted} {
		if got := list(d); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: %v, want %v", d, got, want)
		}
	}
	read := func(p string) string {
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	plain, byWeight := read(filepath.Join(figs, "w-spd-weights.svg")), read(filepath.Join(sorted, "w-spd-weights.svg"))
	for _, s := range []string{plain, byWeight} {
		if !strings.Contains(s, ">x1</text>") || !strings.Contains(s, ">x52</text>") || !strings.Contains(s, "over 2 partitions") {
			t.Error("weights chart without the header's feature names x1…x52 or the partition count")
		}
	}
	if strings.Contains(plain, "largest mean first") || !strings.Contains(byWeight, "largest mean first") {
		t.Error("--plot-sort does not switch the weight chart to largest-first")
	}
	if plain == byWeight {
		t.Error("--plot-sort drew the same chart")
	}
	acc := read(filepath.Join(figs, "accuracy.svg"))
	for _, s := range []string{">w</text>", ">svm</text>", ">spd</text>", "median of svm"} {
		if !strings.Contains(acc, s) {
			t.Errorf("accuracy figure: no %q", s)
		}
	}
}
