package cmd

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// The practitioners' baselines through the commands a user types: --budget
// reaches random search, its numbers are a function of the seed, and
// compare's table puts each entry's SVM solves beside its accuracy.
func TestTuneRandomBudget(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "tune", "builtin:heart", "--method", "random", "--budget", "10", "--test-fraction", "0.3")
	for _, want := range []string{
		"│ cv evaluations     │ 10 ",
		"│ C                  │ 0.952672 ",
		"│ cv accuracy        │ 86.24% ",
		"│ test accuracy      │ 86.42% (70/81) ",
		"│ SVM solves         │ 51 ", // 10 evaluations × 5 folds, and the final fit
		"start: 10 draws of (log2 C, log2 gamma) uniform on [-5, 15] × [-15, 3] (grid.py's box), seed 1; the best by 5-fold CV",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

func TestCompareBaselinesCost(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "compare", "builtin:heart", "--methods", "svm,random,halving,bo", "--partitions", "2", "--budget", "12", "-q")
	// accuracy, then solves: random and bo spend 12 evaluations × 5 folds
	// and the final fit; halving 110, then 37 points on 20 and 60 rows.
	for entry, cells := range map[string]string{
		"svm      ":   `84\.00 ± 0\.00 │ 41\.0 │ +[0-9.]+ │ +374 │`,
		"random   ":   `84\.00 ± 0\.00 │ 43\.5 │ +[0-9.]+ │ +61 │`,
		"halving \\*": `85\.00 ± 0\.00 │ 61\.0 │ +[0-9.]+ │ +437 │`,
		"bo       ":   `81\.00 ± 1\.41 │ 40\.5 │ +[0-9.]+ │ +61 │`, // issue 35: the cheaper GP search
	} {
		if !regexp.MustCompile(`│ ` + entry + ` │ +` + cells).MatchString(out) {
			t.Errorf("%s: no row matching %q in\n%s", entry, cells, out)
		}
	}
}

// bo:ard refuses more features than its GP can model, before any work,
// saying how many and why, in words without Go's package names.
func TestBOARDRefusesWideData(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	b.WriteString(strings.Repeat("f,", 20) + "y\n")
	for i := range 12 {
		for j := range 20 {
			b.WriteString(strings.Repeat("1", (i*j)%3+1) + ",")
		}
		b.WriteString([]string{"a\n", "b\n"}[i%2])
	}
	path := filepath.Join(t.TempDir(), "wide.csv")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	_, stderr, code := runCLI(t, "tune", path, "--method", "bo", "--param", "ard")
	want := "kerneltune: bo:ard refuses 20 features, more than 19: its Gaussian process models C and one gamma per feature, 21 dimensions, and expected improvement on a GP is known to work below about 20 (Frazier 2018); use bo (one gamma) or fewer features\n"
	if code != 1 || stderr != want {
		t.Errorf("exit %d, stderr %q; want 1 and %q", code, stderr, want)
	}
}
