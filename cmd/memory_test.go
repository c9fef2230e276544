package cmd

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

// TestTuneMemMBRefuses: with a small --mem-mb, tune refuses before any work
// (exit 2, nothing on stdout, no model file), naming the estimate, the bound
// and the largest n within it; that n is methods.MaxRows's, and a run on that
// many rows passes the check.
func TestTuneMemMBRefuses(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	model := filepath.Join(dir, "m.json")
	for _, method := range []string{"svm", "rcsc", "spd"} {
		t.Run(method, func(t *testing.T) {
			out, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", method, "--mem-mb", "33", "--workers", "2", "-o", model)
			if code != 2 || out != "" {
				t.Fatalf("exit %d, stdout %q, stderr %q", code, out, errOut)
			}
			if _, err := os.Stat(model); err == nil {
				t.Error("a refused run wrote the model file")
			}
			// heart: 270 rows × 13 features, all training (no test part).
			spec, err := methods.New(method, "", "")
			if err != nil {
				t.Fatal(err)
			}
			spec = spec.WithBase(methods.Common{Workers: 2})
			need := methods.PeakBytes(spec, 270, 13)
			maxN := methods.MaxRows(spec, 13, 33<<20)
			for _, want := range []string{
				fmt.Sprintf("tune: %s needs about %d MB for 270 training rows × 13 features, more than --mem-mb 33", method, (need+(1<<20)-1)>>20),
				fmt.Sprintf("it can handle at most %d training rows", maxN),
			} {
				if !strings.Contains(errOut, want) {
					t.Errorf("stderr %q lacks %q", errOut, want)
				}
			}
			if maxN < 20 || maxN >= 270 {
				t.Fatalf("MaxRows = %d", maxN)
			}
			// The boundary: maxN rows pass, one more is refused.
			if err := memoryError(33, methods.CheckMemory(spec, maxN, 13, sysmem.Bound(33))); err != nil {
				t.Errorf("%d rows: %v", maxN, err)
			}
			if err := memoryError(33, methods.CheckMemory(spec, maxN+1, 13, sysmem.Bound(33))); err == nil {
				t.Errorf("%d rows: not refused", maxN+1)
			}
			if method != "svm" {
				return
			}
			// Through the CLI: --test-fraction leaving maxN training rows runs.
			frac := fmt.Sprintf("%.6f", 1-(float64(maxN)+0.4)/270)
			out, errOut, code = runCLI(t, "tune", "builtin:heart", "--method", method, "--mem-mb", "33", "--workers", "2", "--test-fraction", frac, "--format", "json")
			if code != 0 || !strings.Contains(out, fmt.Sprintf(`"n_train": %d`, maxN)) {
				t.Errorf("--test-fraction %s (%d training rows): exit %d, %s", frac, maxN, code, errOut)
			}
		})
	}
}

// TestTuneMemMBTooSmall: a bound below the runtime's own share fits no data,
// and the message says so instead of "at most 0 training rows".
func TestTuneMemMBTooSmall(t *testing.T) {
	t.Parallel()
	_, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--mem-mb", "1")
	if code != 2 || !strings.Contains(errOut, "more than --mem-mb 1; no data fits within it") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// TestTuneMemMBFlag: -1 lifts the bound (sysmem's TestBound: the default
// reads MemTotal); values below -1 are usage errors (TestTuneFlagErrors).
func TestTuneMemMBFlag(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--mem-mb", "-1", "--test-fraction", "0.5", "--format", "json")
	if code != 0 || !strings.Contains(out, `"method": "svm"`) {
		t.Errorf("--mem-mb -1: exit %d, %s", code, errOut)
	}
}

// TestCompareMemMBRefuses: compare refuses, before any job runs and before
// --out is made, a run whose jobs at once would need more than --mem-mb
// (exit 2, nothing on stdout), naming the dataset, the largest entry, the
// need, the bound and the most training rows a job can have within it.
func TestCompareMemMBRefuses(t *testing.T) {
	t.Parallel()
	// Every method on heart's 100-row training parts: spd is the largest,
	// and 1 MB is below the runtime's own 32 MB.
	out, errOut, code := runCLI(t, "compare", "builtin:heart", "--workers", "2", "--mem-mb", "1")
	want := "kerneltune: compare: spd on heart needs about 34 MB for 2 jobs at once (--workers), 1 MB each for 100 training rows × 13 features besides the runtime's 32 MB, more than --mem-mb 1; no data fits within it (the runtime alone takes about 32 MB). Raise --mem-mb, or use fewer --workers, fewer rows (--train-size or --train-fraction), a smaller --cache-mb, or leave spd out of --methods\n" +
		"Run 'kerneltune compare --help' for usage.\n"
	if code != 2 || out != "" || errOut != want {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errOut, want)
	}

	// 200 training rows: rcsc (5 matrices of 200²) is larger than svm; two
	// jobs hold the runtime's share once and the rest twice.
	res := filepath.Join(t.TempDir(), "run.jsonl")
	out, errOut, code = runCLI(t, "compare", "builtin:heart", "--methods", "svm,rcsc", "--partitions", "2", "--train-size", "200", "--test-size", "70",
		"--workers", "2", "--mem-mb", "34", "--out", res)
	rcsc := methods.RCSCSettings{Common: methods.Common{Folds: 5, CacheMB: 200, Eps: 1e-3, Workers: 1}}
	peak := rcsc.PeakBytes(200, 13)
	maxN := methods.MaxRows(rcsc, 13, methods.RuntimeBytes+(34<<20-methods.RuntimeBytes)/2)
	mb := func(b int64) int64 { return (b + 1<<20 - 1) >> 20 }
	want = fmt.Sprintf("kerneltune: compare: rcsc on heart needs about %d MB for 2 jobs at once (--workers), %d MB each for 200 training rows × 13 features besides the runtime's 32 MB, more than --mem-mb 34; each job can handle at most %d training rows within it. Raise --mem-mb, or use fewer --workers, fewer rows (--train-size or --train-fraction), a smaller --cache-mb, or leave rcsc out of --methods\n",
		mb(2*peak-methods.RuntimeBytes), mb(peak-methods.RuntimeBytes), maxN)
	if code != 2 || out != "" || !strings.HasPrefix(errOut, want) {
		t.Errorf("exit %d, stdout %q, stderr\n%s\nwant\n%s", code, out, errOut, want)
	}
	if maxN < 50 || maxN >= 200 || !strings.Contains(errOut, "needs about 36 MB") {
		t.Errorf("MaxRows = %d; stderr %q (want 36 MB: 32 MiB + 2 × %d)", maxN, errOut, peak-methods.RuntimeBytes)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a refused compare made its --out file")
	}
}

// TestCompareMemMBResumeAndFlag: -1 lifts the bound; --resume is checked
// the same way, before the results file is touched (values below -1 are
// usage errors: TestCompareFlagErrors).
func TestCompareMemMBResumeAndFlag(t *testing.T) {
	t.Parallel()
	res := filepath.Join(t.TempDir(), "run.jsonl")
	args := []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "1", "--train-size", "40", "--test-size", "40", "--workers", "2", "--out", res}
	if _, errOut, code := runCLI(t, append(args, "--mem-mb", "-1")...); code != 0 {
		t.Fatalf("--mem-mb -1: exit %d, %s", code, errOut)
	}
	before, err := os.ReadFile(res)
	if err != nil || len(before) == 0 {
		t.Fatalf("results file: %v", err)
	}
	_, errOut, code := runCLI(t, append(args, "--resume", "--mem-mb", "1")...)
	if code != 2 || !strings.Contains(errOut, "compare: svm on heart needs about 33 MB for 1 job at once (--workers)") {
		t.Errorf("--resume --mem-mb 1: exit %d, %q", code, errOut)
	}
	if after, _ := os.ReadFile(res); string(after) != string(before) {
		t.Error("a refused --resume changed the results file")
	}
	if _, errOut, code := runCLI(t, append(args, "--resume", "--mem-mb", "-1")...); code != 0 {
		t.Errorf("--resume --mem-mb -1: exit %d, %s", code, errOut)
	}
}

// TestTwoLevelSizeRefused: twolevel refuses a training part of more than
// 10,000 rows before any work, with exit 2 and the reason, in tune and in
// compare (naming the entry and the data); --max-iter lets it run.
func TestTwoLevelSizeRefused(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	data := filepath.Join(dir, "big.libsvm")
	d := dataio.Weston(methods.TwoLevelMaxRows+1, 20, rand.New(rand.NewPCG(3, 4)))
	f, err := os.Create(data)
	if err != nil {
		t.Fatal(err)
	}
	if err := dataio.WriteLIBSVM(f, d); err != nil {
		t.Fatal(err)
	}
	f.Close()
	reason := "twolevel refuses to learn on 10001 training rows, more than 10000: its SQP has a variable and a constraint per validation row (6667 of them here) and works on dense matrices of that size; a step took about 4 s at n = 5,000"
	// By default it learns on a subset of --kernel-rows rows (5,000):
	// the refusal is for --kernel-rows -1, all rows.
	out, errOut, code := runCLI(t, "tune", data, "--method", "twolevel", "--kernel-rows", "-1")
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "kerneltune: tune: "+reason) || !strings.Contains(errOut, "use fewer rows (a --kernel-rows subset), or set an iteration limit to run that many steps anyway (--max-iter)") {
		t.Errorf("tune: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	res := filepath.Join(dir, "res.jsonl")
	// The test file is another file (the training file itself is refused,
	// issue 42): its first 100 rows.
	raw, err := os.ReadFile(data)
	if err != nil {
		t.Fatal(err)
	}
	test := writeFile(t, dir, "test.libsvm", strings.Join(strings.SplitAfter(string(raw), "\n")[:100], ""))
	out, errOut, code = runCLI(t, "compare", data, "--test", test, "--methods", "svm,twolevel", "--kernel-rows", "-1", "--out", res)
	if code != ExitUsage || out != "" || !strings.Contains(errOut, "kerneltune: compare: twolevel on big: "+reason) {
		t.Errorf("compare: exit %d, stdout %q, stderr %q", code, out, errOut)
	}
	if _, err := os.Stat(res); err == nil {
		t.Error("a refused compare wrote its results file")
	}
	// With an iteration limit the check passes (the run itself is not
	// waited for: --mem-mb 100 refuses it next, before any work; reading
	// the file, about 47 MB, fits in it, the method's n×n matrices do not).
	_, errOut, code = runCLI(t, "tune", data, "--method", "twolevel", "--kernel-rows", "-1", "--max-iter", "1", "--mem-mb", "100")
	if code != ExitUsage || !strings.Contains(errOut, "tune: twolevel needs about") {
		t.Errorf("tune --max-iter 1 --mem-mb 100: exit %d, stderr %q", code, errOut)
	}
}
