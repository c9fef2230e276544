package cmd

import (
	"fmt"
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
	t.Parallel()
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
	want := []string{"accuracy-cost.svg", "accuracy-time.svg", "accuracy.svg", "w-spd-trace.svg", "w-spd-weights.svg"}
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
	// Accuracy against cost: each entry labelled, on a log axis of solves,
	// and against time, on a log axis of seconds.
	for _, x := range []string{"Mean test accuracy against SVM solves", ">svm<", ">spd<", "mean SVM solves (log scale)"} {
		if c := read(filepath.Join(figs, "accuracy-cost.svg")); !strings.Contains(c, x) {
			t.Errorf("accuracy-cost.svg: no %q", x)
		}
	}
	for _, x := range []string{"Mean test accuracy against time", ">svm<", ">spd<", "mean seconds (log scale)"} {
		if c := read(filepath.Join(figs, "accuracy-time.svg")); !strings.Contains(c, x) {
			t.Errorf("accuracy-time.svg: no %q", x)
		}
	}
	acc := read(filepath.Join(figs, "accuracy.svg"))
	for _, s := range []string{">w</text>", ">svm</text>", ">spd</text>", "median of svm"} {
		if !strings.Contains(acc, s) {
			t.Errorf("accuracy figure: no %q", s)
		}
	}
}

// With two datasets, --plot also draws the critical-difference diagram of
// the statistics across datasets, labelled with the methods' average ranks.
func TestComparePlotCriticalDifference(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	mustRun(t, "compare", "builtin:heart", "builtin:breast-wisconsin", "--methods", "svm,rcsc", "--partitions", "2",
		"--train-size", "50", "--test-size", "50", "--workers", "2", "--plot", dir)
	b, err := os.ReadFile(filepath.Join(dir, "critical-difference.svg"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{"on 2 datasets", ">svm (", ">rcsc (", "(Nemenyi, α = 0.05)", "average rank (1 = best)"} {
		if !strings.Contains(s, want) {
			t.Errorf("critical-difference.svg: no %q", want)
		}
	}
	// Two methods on two datasets: ranks sum to 3 over the two methods.
	var r1, r2 float64
	if _, err := fmtSscanRanks(s, &r1, &r2); err != nil || r1+r2 != 3 {
		t.Errorf("average ranks %v + %v (err %v), want a sum of 3", r1, r2, err)
	}
}

// fmtSscanRanks reads the average ranks "svm (R1)" and "rcsc (R2)" from a
// diagram's labels.
func fmtSscanRanks(svg string, r1, r2 *float64) (int, error) {
	get := func(name string, r *float64) error {
		i := strings.Index(svg, ">"+name+" (")
		if i < 0 {
			return fmt.Errorf("no label for %s", name)
		}
		_, err := fmt.Sscanf(svg[i+len(name)+3:], "%g)", r)
		return err
	}
	if err := get("svm", r1); err != nil {
		return 0, err
	}
	return 2, get("rcsc", r2)
}
