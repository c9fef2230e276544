package cmd

import (
	"bufio"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// The search space is the user's (issue 35, item 12): grid.py's -log2c and
// -log2g for svm and halving, the box for random and bo, class weights in
// tune and compare and a study file.

var heartFile = filepath.Join(cmdTestdata, "libsvm", "heart_scale")

// TestGridFlagErrors: a bad grid is a usage error (exit 2) that names the
// flag and says what is wrong, before any work.
func TestGridFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--log2c", "-1,3,0"}, `invalid argument "-1,3,0" for "--log2c" flag: step 0 never reaches the end`},
		{[]string{"--log2g", "3,-15,2"}, `"--log2g" flag: step 2 leads away from end -15`},
		{[]string{"--log2c", "1,999,0.5"}, `"--log2c" flag: 1,999,0.5 has 1997 values, more than 1000`},
		{[]string{"--log2c", "a,b"}, `"--log2c" flag: "a" is not a number`},
		{[]string{"--log2c", "-1,3,2", "--C", "1"}, `--log2c -1,3,2: svm: want no C grid when C is fixed`},
		{[]string{"--class-weight", "inverse"}, `--class-weight "inverse": svm: want balanced`},
		{[]string{"--weight-pos", "-2"}, `--weight-pos -2: svm: want a number from 2^-20 (9.537e-07) to 2^20 (1.049e+06) (or 0 for the default 1)`},
	} {
		for _, cmd := range [][]string{{"tune", heartFile, "--method", "svm"}, {"compare", heartFile, "--methods", "svm", "--partitions", "1"}} {
			_, errOut, code := runCLI(t, append(cmd, tc.args...)...)
			if code != ExitUsage || !strings.Contains(errOut, tc.want) {
				t.Errorf("%s %v: exit %d, stderr %q; want exit 2 and %q", cmd[0], tc.args, code, errOut, tc.want)
			}
		}
	}
	_, errOut, code := runCLI(t, "tune", heartFile, "--method", "gi", "--class-weight", "balanced")
	if code != ExitUsage || !strings.Contains(errOut, "--class-weight balanced: gi: want no class weights") {
		t.Errorf("gi with class weights: exit %d, %q", code, errOut)
	}
	_, errOut, code = runCLI(t, "compare", heartFile, "--weight-pos", "2", "--partitions", "1")
	if code != ExitUsage || !strings.Contains(errOut, "--weight-pos 2: spd: want no class weights") {
		t.Errorf("compare's default methods with --weight-pos: exit %d, %q", code, errOut)
	}
}

// TestTuneSVMUsersGrid: svm chooses from the user's grid only; with one C
// (no warm-start shortcut) its solves are the points × folds, plus the
// final fit.
func TestTuneSVMUsersGrid(t *testing.T) {
	t.Parallel()
	r := tuneJSON(t, heartFile, "--method", "svm", "--log2c", "-1,3,2", "--log2g", "-3,-7,-2")
	lc, lg := math.Log2(r.C), math.Log2(r.Gamma)
	if !slices.Contains([]float64{-1, 1, 3}, lc) || !slices.Contains([]float64{-3, -5, -7}, lg) {
		t.Errorf("chose log2 C = %g, log2 γ = %g: not on the grid -1,3,2 × -3,-7,-2", lc, lg)
	}
	if r.Solves > 3*3*5+1 || !strings.Contains(r.Init, "the user's grid (log2 C = -1..3 step 2, log2 gamma = -3..-7 step -2)") {
		t.Errorf("solves %d (want at most 46), init %q", r.Solves, r.Init)
	}
	r = tuneJSON(t, heartFile, "--method", "svm", "--log2c", "2,2,1", "--log2g", "0,-8,-1", "--folds", "4")
	if r.C != 4 || r.Solves != 1*9*4+1 {
		t.Errorf("one C and 9 γ by 4-fold CV: C = %g, %d solves, want 4 and %d", r.C, r.Solves, 9*4+1)
	}
}

// TestTuneBaselinesInUsersSpace: halving picks a point of the user's grid,
// random and bo stay in its box.
func TestTuneBaselinesInUsersSpace(t *testing.T) {
	t.Parallel()
	space := []string{"--log2c", "3,-1,-2", "--log2g", "-2,-6,-2"}
	r := tuneJSON(t, append([]string{heartFile, "--method", "halving"}, space...)...)
	if lc, lg := math.Log2(r.C), math.Log2(r.Gamma); !slices.Contains([]float64{-1, 1, 3}, lc) || !slices.Contains([]float64{-2, -4, -6}, lg) {
		t.Errorf("halving chose log2 C = %g, log2 γ = %g: off the grid", lc, lg)
	}
	for _, m := range []string{"random", "bo"} {
		r := tuneJSON(t, append([]string{heartFile, "--method", m, "--budget", "8"}, space...)...)
		if lc, lg := math.Log2(r.C), math.Log2(r.Gamma); lc < -1-1e-9 || lc > 3+1e-9 || lg < -6-1e-9 || lg > -2+1e-9 {
			t.Errorf("%s chose log2 C = %g, log2 γ = %g: outside [-1, 3] × [-6, -2]", m, lc, lg)
		}
		if !strings.Contains(r.Init, "[-1, 3] × [-6, -2]") {
			t.Errorf("%s's init does not name the box: %s", m, r.Init)
		}
	}
}

// imbalancedHeart writes heart with only its first 20 rows of class +1 (and
// all 150 of -1).
func imbalancedHeart(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(heartFile)
	if err != nil {
		t.Fatal(err)
	}
	var keep []string
	pos := 0
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		if strings.HasPrefix(line, "+1") {
			if pos++; pos > 20 {
				continue
			}
		}
		keep = append(keep, line)
	}
	return writeFile(t, t.TempDir(), "heart-imbalanced", strings.Join(keep, "\n")+"\n")
}

// TestTuneClassWeightBalanced: balanced weights are n / (2 n_c) on an
// imbalanced set (20 against 150): the final SVM's C per class, the saved
// model's, and the search's solves use them (another choice than without).
func TestTuneClassWeightBalanced(t *testing.T) {
	t.Parallel()
	data := imbalancedHeart(t)
	model := filepath.Join(t.TempDir(), "m.json")
	plain := tuneJSON(t, data, "--method", "svm")
	r := tuneJSON(t, data, "--method", "svm", "--class-weight", "balanced", "-o", model)
	if wp, wn := 170.0/40, 170.0/300; math.Abs(r.WeightPos-wp) > 1e-12 || math.Abs(r.WeightNeg-wn) > 1e-12 {
		t.Errorf("weights %g, %g, want %g, %g", r.WeightPos, r.WeightNeg, wp, wn)
	}
	if plain.WeightPos != 0 || plain.WeightNeg != 0 {
		t.Errorf("unweighted tune reports weights %g, %g", plain.WeightPos, plain.WeightNeg)
	}
	var m struct {
		WeightPos float64 `json:"weight_pos"`
		WeightNeg float64 `json:"weight_neg"`
	}
	b, err := os.ReadFile(model)
	if err != nil || json.Unmarshal(b, &m) != nil || m.WeightPos != r.WeightPos || m.WeightNeg != r.WeightNeg {
		t.Errorf("model file's weights %+v (%v), want the result's", m, err)
	}
	if r.C == plain.C && r.Gamma == plain.Gamma && r.NSV == plain.NSV {
		t.Errorf("balanced weights changed neither the choice nor the SVM: C %g, γ %g, #SV %d", r.C, r.Gamma, r.NSV)
	}
	out := mustRun(t, "tune", data, "--method", "svm", "--weight-pos", "3")
	if !strings.Contains(out, "C per class") || !strings.Contains(out, "(× 3)") {
		t.Errorf("the table does not show C per class:\n%s", out)
	}
}

// TestTuneClassWeightMultiClass: balanced weights per pair of classes
// (LIBSVM's -wi); --weight-pos is for two classes.
func TestTuneClassWeightMultiClass(t *testing.T) {
	t.Parallel()
	wine := filepath.Join(cmdTestdata, "multiclass", "wine.scale")
	r := tuneJSON(t, wine, "--method", "svm", "--class-weight", "balanced")
	// wine: 59, 71, 48 rows of "1", "2", "3"; w_c = 178 / (3 n_c).
	w := map[string]float64{"1": 178.0 / 177, "2": 178.0 / 213, "3": 178.0 / 144}
	if len(r.Pairs) != 3 {
		t.Fatalf("%d pairs", len(r.Pairs))
	}
	for _, p := range r.Pairs {
		if math.Abs(p.WeightPos-w[p.Positive]) > 1e-12 || math.Abs(p.WeightNeg-w[p.Negative]) > 1e-12 {
			t.Errorf("%s vs %s: weights %g, %g, want %g, %g", p.Positive, p.Negative, p.WeightPos, p.WeightNeg, w[p.Positive], w[p.Negative])
		}
	}
	_, errOut, code := runCLI(t, "tune", wine, "--method", "svm", "--weight-pos", "2")
	if code != ExitError || !strings.Contains(errOut, "for two classes; this data has 3") {
		t.Errorf("--weight-pos on 3 classes: exit %d, %q", code, errOut)
	}
}

// records reads a --out file's records.
func records(t *testing.T, path string) []experiment.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []experiment.Record
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		var r experiment.Record
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatal(err)
		}
		out = append(out, r)
	}
	// Jobs finish in any order: by dataset, entry and partition.
	slices.SortStableFunc(out, func(a, b experiment.Record) int {
		return cmp.Or(strings.Compare(a.Dataset, b.Dataset), strings.Compare(a.Entry, b.Entry), cmp.Compare(a.Partition, b.Partition))
	})
	return out
}

// TestCompareAndStudySpace: compare's flags and a study file's keys give
// the same run (its id, its choices on the user's grid), the settings name
// the grid and the weights, and an unweighted run of the default grid is
// another run.
func TestCompareAndStudySpace(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	common := []string{"--methods", "svm", "--partitions", "2", "--train-size", "40", "--test-size", "40", "-q"}
	flags := filepath.Join(dir, "flags.jsonl")
	mustRun(t, append([]string{"compare", heartFile, "--name", "heart", "--out", flags, "--log2c", "-1,3,2", "--log2g", "-2,-6,-2", "--class-weight", "balanced"}, common...)...)
	abs, err := filepath.Abs(heartFile) // a study's paths are relative to it
	if err != nil {
		t.Fatal(err)
	}
	study := writeFile(t, dir, "s.yaml", "seed: 1\nlog2c: [-1, 3, 2]\nlog2g: \"-2,-6,-2\"\nclass-weight: balanced\ndatasets:\n  - path: "+abs+"\n    name: heart\n")
	viaStudy := filepath.Join(dir, "study.jsonl")
	mustRun(t, append([]string{"compare", "--study", study, "--out", viaStudy}, common...)...)
	plain := filepath.Join(dir, "plain.jsonl")
	mustRun(t, append([]string{"compare", heartFile, "--name", "heart", "--out", plain}, common...)...)
	a, b, c := records(t, flags), records(t, viaStudy), records(t, plain)
	if len(a) != 2 || len(b) != 2 || len(c) != 2 {
		t.Fatalf("%d, %d, %d records", len(a), len(b), len(c))
	}
	for i := range a {
		if a[i].C != b[i].C || a[i].Kernel.Gamma != b[i].Kernel.Gamma || a[i].TestAccuracy != b[i].TestAccuracy {
			t.Errorf("partition %d: flags chose C %g γ %g, the study C %g γ %g", i, a[i].C, a[i].Kernel.Gamma, b[i].C, b[i].Kernel.Gamma)
		}
		if lc, lg := math.Log2(a[i].C), math.Log2(a[i].Kernel.Gamma); !slices.Contains([]float64{-1, 1, 3}, lc) || !slices.Contains([]float64{-2, -4, -6}, lg) {
			t.Errorf("partition %d: log2 C = %g, log2 γ = %g off the grid", i, lc, lg)
		}
	}
	s := a[0].Settings
	if e := s.Entries[0]; e.Log2C != "-1,3,2" || e.Log2Gamma != "-2,-6,-2" || s.Common.ClassWeight != "balanced" {
		t.Errorf("settings do not name the space: %v", s)
	}
	if a[0].Run == c[0].Run {
		t.Errorf("the weighted run on the user's grid has the default run's id %s", a[0].Run)
	}
	if _, errOut, code := runCLI(t, "report", plain, flags); code != ExitError || !strings.Contains(errOut, "--class-weight (default) vs balanced; --log2c (default) vs -1,3,2; --log2g (default) vs -2,-6,-2") {
		t.Errorf("report merged a weighted run on the user's grid with the default run: exit %d, %q", code, errOut)
	}
	bad := writeFile(t, dir, "bad.yaml", "log2c: -1,3,0\ndatasets:\n  - path: "+abs+"\n")
	_, errOut, code := runCLI(t, "compare", "--study", bad, "--dry-run")
	if code != ExitUsage || !strings.Contains(errOut, "bad.yaml:1: log2c: invalid argument \"-1,3,0\" for \"--log2c\" flag: step 0") {
		t.Errorf("a bad grid in a study: exit %d, %q", code, errOut)
	}
}

// TestCompareDegeneratePairs (issue 35, item 3): on multi-class data the
// tables count degenerate binary SVMs, not runs with one of them ("2 of 30
// pairs"); every record keeps each pair's kernel, C and check; records
// without pairs (older ones) are still read and counted by runs; the
// weights figure says which pair it shows.
func TestCompareDegeneratePairs(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "blobs6.csv")
	mustRun(t, "generate", "blobs", "--classes", "6", "--n", "300", "-o", data)
	out := filepath.Join(dir, "b.jsonl")
	table := mustRun(t, "compare", data, "--methods", "rcsc", "--partitions", "2", "--train-size", "150", "--test-size", "150", "--out", out, "-q")
	recs := records(t, out)
	deg, all := 0, 0
	for _, r := range recs {
		if len(r.Pairs) != 15 {
			t.Fatalf("partition %d keeps %d pairs, want 15", r.Partition, len(r.Pairs))
		}
		n := 0
		for _, p := range r.Pairs {
			if p.Kernel.Kind == "" || p.C <= 0 || p.Positive == p.Negative {
				t.Errorf("pair %+v: no kernel, C or classes", p)
			}
			if p.Degenerate != "" {
				n++
			}
		}
		if n != r.DegeneratePairs || (n > 0) != (r.Degenerate != "") {
			t.Errorf("partition %d: degenerate_pairs %d, %d of its pairs, degenerate %q", r.Partition, r.DegeneratePairs, n, r.Degenerate)
		}
		deg, all = deg+n, all+len(r.Pairs)
	}
	cell := fmt.Sprintf("%d of %d pairs", deg, all)
	if deg == 0 || !strings.Contains(table, "│ "+cell+" │") || !strings.Contains(table, "rcsc "+cell+": ") {
		t.Errorf("want a degenerate pair and the cell and note %q:\n%s", cell, table)
	}
	// The long table counts each job's SVMs and degenerate ones.
	rows, err := csv.NewReader(strings.NewReader(mustRun(t, "report", out, "--per-job", "--format", "csv"))).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	svms, degSVMs := slices.Index(rows[0], "svms"), slices.Index(rows[0], "degenerate_svms")
	for i, r := range recs {
		if svms < 0 || degSVMs < 0 || rows[1+i][svms] != "15" || rows[1+i][degSVMs] != strconv.Itoa(r.DegeneratePairs) {
			t.Errorf("--per-job row %d: %q; want svms 15 and degenerate_svms %d", i, rows[1+i], r.DegeneratePairs)
		}
	}
	// Older records, without pairs: the runs are counted.
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	var old []string
	for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(line), &m); err != nil {
			t.Fatal(err)
		}
		delete(m, "pairs")
		delete(m, "degenerate_pairs")
		l, _ := json.Marshal(m)
		old = append(old, string(l))
	}
	oldFile := writeFile(t, dir, "old.jsonl", strings.Join(old, "\n")+"\n")
	runs := 0
	for _, r := range recs {
		if r.Degenerate != "" {
			runs++
		}
	}
	if text := mustRun(t, "report", oldFile); !strings.Contains(text, fmt.Sprintf(" %d/2 │", runs)) {
		t.Errorf("older records: want %d/2 degenerate runs:\n%s", runs, text)
	}
	bad := writeFile(t, dir, "bad.jsonl", strings.Replace(string(b), `"degenerate_pairs":`, `"degenerate_pairs":1`, 1))
	if _, errOut, code := runCLI(t, "report", bad); code != ExitError || !strings.Contains(errOut, "contradicts pairs") {
		t.Errorf("a record whose degenerate_pairs contradicts its pairs: exit %d, %q", code, errOut)
	}
	// The weights figure names its pair.
	wine := filepath.Join(cmdTestdata, "multiclass", "wine.scale")
	w, plots := filepath.Join(dir, "w.jsonl"), filepath.Join(dir, "plots")
	mustRun(t, "compare", wine, "--methods", "lccp", "--partitions", "2", "--train-fraction", "0.5", "--out", w, "--plot", plots, "-q")
	svg, err := os.ReadFile(filepath.Join(plots, "wine.scale-lccp-weights.svg"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(svg), "learned weights of the &#34;1&#34; vs &#34;2&#34; SVM (the first pair of 3;") {
		t.Errorf("the weights figure does not say which pair it shows")
	}
}

// TestCompareLaanayaUsersGrid (issue 43, item 3): --select laanaya chooses
// the baseline from the user's --log2c and --log2g, not from grid.py's
// grid, which it used to search whatever the flags said: C = 2^16..2^20
// lies outside grid.py's 2^-5..2^15, γ = 2^-12 between its points.
func TestCompareLaanayaUsersGrid(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	_, errOut, code := runCLI(t, "compare", heartFile, "--name", "heart", "--methods", "svm", "--select", "laanaya",
		"--log2c", "16,20,2", "--log2g", "-12,-14,-1", "--partitions", "5", "--train-size", "60", "--test-size", "60", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	recs := records(t, out)
	if len(recs) != 5 {
		t.Fatalf("%d records, want 5", len(recs))
	}
	for _, r := range recs {
		lc, lg := math.Log2(r.C), math.Log2(r.Kernel.Gamma)
		if !slices.Contains([]float64{16, 18, 20}, lc) || !slices.Contains([]float64{-12, -13, -14}, lg) {
			t.Fatalf("partition %d: log2 C = %g, log2 γ = %g: not on the user's grid 16,20,2 × -12,-14,-1", r.Partition, lc, lg)
		}
		if r.C != recs[0].C || r.Kernel.Gamma != recs[0].Kernel.Gamma {
			t.Errorf("partition %d: (C, γ) = (%g, %g), partition 0's (%g, %g): Laanaya's baseline is one per dataset", r.Partition, r.C, r.Kernel.Gamma, recs[0].C, recs[0].Kernel.Gamma)
		}
	}
	// The best test rate of the 3×3 points (measured when written).
	if recs[0].C != 65536 || recs[0].Kernel.Gamma != math.Exp2(-13) {
		t.Errorf("(C, γ) = (%g, %g), want (2^16, 2^-13)", recs[0].C, recs[0].Kernel.Gamma)
	}
	want := fmt.Sprintf("heart: baseline (C, γ) = (%g, %g) chosen on the TEST parts of the first 5 partitions", recs[0].C, recs[0].Kernel.Gamma)
	if !strings.Contains(errOut, want) {
		t.Errorf("stderr %q, want %q", errOut, want)
	}
}
