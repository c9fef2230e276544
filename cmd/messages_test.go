package cmd

import (
	"context"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// TestUnknownFlagSuggests: an unknown flag within two edits of a known one
// is named, as cobra does for commands; exit code 2.
func TestUnknownFlagSuggests(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "builtin:heart", "--methods", "svm"}, "kerneltune: unknown flag: --methods; did you mean --method?\nRun 'kerneltune tune --help' for usage.\n"},
		{[]string{"compare", "--partitons", "3"}, "kerneltune: unknown flag: --partitons; did you mean --partitions?\nRun 'kerneltune compare --help' for usage.\n"},
		{[]string{"train", "builtin:heart", "--sede", "3"}, "kerneltune: unknown flag: --sede; did you mean --seed?\n"}, // a global flag
		{[]string{"tune", "--zzz"}, "kerneltune: unknown flag: --zzz\nRun 'kerneltune tune --help' for usage.\n"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != ExitUsage || !strings.HasPrefix(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want %q", c.args, code, errOut, c.want)
		}
	}
}

// TestCompareInterruptedOnce: a compare with --out stopped by Ctrl-C says
// once that it was interrupted, with where the finished jobs are (it said
// "kerneltune: interrupted" a second time).
func TestCompareInterruptedOnce(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.jsonl")
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	_, errOut, code := runCLIContext(ctx, t, "", "compare", "builtin:heart", "--methods", "svm,gi", "--partitions", "30", "--out", out, "--workers", "1")
	if code != ExitInterrupted {
		t.Fatalf("exit %d, want %d: %s", code, ExitInterrupted, errOut)
	}
	if n := strings.Count(errOut, "interrupted"); n != 1 {
		t.Errorf("%q says interrupted %d times, want once", errOut, n)
	}
	if !strings.Contains(errOut, "kerneltune: interrupted; the finished jobs are in "+out+", rerun with --resume to continue\n") {
		t.Errorf("no resume hint: %q", errOut)
	}
}

// TestGenerateHelpCountsProblems: generate's help says how many problems it
// has, and lists that many (it said "the two" and listed three).
func TestGenerateHelpCountsProblems(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "generate", "--help")
	intro, _, _ := strings.Cut(out, "Usage:")
	listed := regexp.MustCompile(`(?m)^  ([a-z]+) {2,}\S`).FindAllStringSubmatch(intro, -1)
	var names []string
	for _, m := range listed {
		names = append(names, m[1])
	}
	if strings.Join(names, ",") != "weston,chessboard,sparse,blobs,text" {
		t.Fatalf("listed problems %v", names)
	}
	if !strings.HasPrefix(out, "generate writes one of five synthetic problems") {
		t.Errorf("help does not say five:\n%.200s", out)
	}
}

// TestInfoDecimalComma: a file written with decimal commas and ';' between
// fields is said to be so, not advised to one-hot encode the "text" it
// reads; with or without a header line. A plain comma CSV gets no such note.
func TestInfoDecimalComma(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for name, text := range map[string]string{
		"plain.csv":  "1,5;2,3;1\n2,5;1,0;-1\n0,5;2,5;1\n",
		"header.csv": "a;b;y\n1,5;2,3;1\n2,5;1,0;-1\n0,5;2,5;1\n",
	} {
		out := mustRun(t, "info", writeFile(t, dir, name, text))
		if !strings.Contains(out, "note: the numbers look like decimal commas with ';' between fields") ||
			!strings.Contains(out, "convert the commas to points") {
			t.Errorf("%s: no decimal-comma note:\n%s", name, out)
		}
		for _, l := range strings.Split(out, "\n") {
			if strings.HasPrefix(l, "note:") && (strings.Contains(l, "--categorical onehot") || strings.Contains(l, "--positive")) {
				t.Errorf("%s: advice that follows from the misreading: %s", name, l)
			}
		}
	}
	out := mustRun(t, "info", writeFile(t, dir, "points.csv", "1.5,2.3,1\n2.5,1.0,-1\n0.5,2.5,1\n"))
	if strings.Contains(out, "decimal comma") {
		t.Errorf("a note on a file with decimal points:\n%s", out)
	}
}

// TestInfoARFFNominalNoTypo: an attribute the ARFF header declares nominal
// with numeric-looking values (breast-cancer's deg-malig {'1','2','3'}) is
// nominal on purpose: no "a typo in a numeric column?" note (it said so,
// naming a blank value).
func TestInfoARFFNominalNoTypo(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "info", cmdTestdata+"/arff/breast-cancer.arff", "--missing", "drop")
	if strings.Contains(out, "typo") || !strings.Contains(out, "note: 9 rows with missing values were dropped") {
		t.Errorf("notes:\n%s", out[strings.Index(out, "note:"):])
	}
}

// TestLIBSVMOptionsNameTheirFlag: an option of svm-train, svm-predict,
// svm-scale or grid.py typed as LIBSVM spells it is refused (exit 2) with
// the kerneltune flag it maps to, or why there is none, and the page that
// maps them all (pflag said only "unknown shorthand flag: 'l' in -log2c").
func TestLIBSVMOptionsNameTheirFlag(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"tune", "builtin:heart", "--method", "svm", "-log2c", "-1,7,1"}, "unknown shorthand flag: 'l' in -log2c; grid.py's -log2c begin,end,step is --log2c begin,end,step"},
		{[]string{"compare", "builtin:heart", "-log2g", "3,-15,-2"}, "'l' in -log2g; grid.py's -log2g begin,end,step is --log2g begin,end,step"},
		{[]string{"train", "builtin:heart", "-b", "1"}, "'b' in -b; LIBSVM's -b 1 (probability estimates) is --probability"},
		{[]string{"predict", "model.json", "builtin:heart", "-b", "1"}, "'b' in -b; LIBSVM's -b 1 (probability estimates) is --probability"},
		{[]string{"tune", "builtin:heart", "-v", "5"}, "'v' in -v; svm-train's and grid.py's -v n (n-fold cross-validation) is --folds n"},
		{[]string{"tune", "builtin:heart", "-qv", "5"}, "'v' in -v; svm-train's and grid.py's -v n"},
		{[]string{"train", "builtin:heart", "-s", "1"}, "kerneltune trains C-SVC classifiers only (LIBSVM's -s 0, the default; --margin l1, or l2 or hard); nu-SVC (-s 1), one-class (-s 2), epsilon-SVR (-s 3) and nu-SVR (-s 4) have no equivalent"},
		{[]string{"train", "builtin:heart", "-t", "0"}, "-t 0 (linear) is --kernel linear, -t 2 (RBF) is --kernel gaussian (the default); kerneltune adds --kernel l1; polynomial (-t 1), sigmoid (-t 3) and precomputed (-t 4) kernels have no equivalent"},
		{[]string{"train", "builtin:heart", "-w1", "2"}, "'w' in -w1; svm-train's -wi is --weight-pos (-w1) and --weight-neg (-w-1)"},
		{[]string{"tune", "builtin:heart", "-e", "0.01"}, "svm-train's -e is --eps"},
		{[]string{"tune", "builtin:heart", "-m", "500"}, "svm-train's -m is --cache-mb"},
		{[]string{"tune", "builtin:heart", "-g", "0.5"}, "svm-train's -g is --gamma (train -g G); tune and compare learn γ"},
		{[]string{"train", "builtin:heart", "-l", "0", "-u", "1"}, "svm-scale's -l/-u (the feature range) is --normalize minmax11 (-l -1 -u 1) or minmax01 (-l 0 -u 1)"},
	} {
		_, errOut, code := runCLI(t, c.args...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) || !strings.Contains(errOut, "(docs/libsvm-users.md maps every LIBSVM option)") {
			t.Errorf("%v: exit %d, stderr %q, want exit 2 and %q", c.args, code, errOut, c.want)
		}
	}
	// A letter that is no LIBSVM option keeps pflag's message alone.
	if _, errOut, code := runCLI(t, "tune", "builtin:heart", "-x"); code != ExitUsage || errOut != "kerneltune: unknown shorthand flag: 'x' in -x\nRun 'kerneltune tune --help' for usage.\n" {
		t.Errorf("-x: exit %d, stderr %q", code, errOut)
	}
}
