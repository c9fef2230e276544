package cmd

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// TestTuneMemMBRefuses: with a small --mem-mb, tune refuses before any work
// (exit 2, nothing on stdout, no model file), naming the estimate, the bound
// and the largest n within it; that n is methods.MaxRows's, and a run on that
// many rows passes the check.
func TestTuneMemMBRefuses(t *testing.T) {
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
			opts := methods.Options{Workers: 2}
			need, _ := methods.PeakBytes(method, 270, 13, opts)
			maxN, _ := methods.MaxRows(method, 13, opts, 33<<20)
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
			if err := memoryError(33, methods.CheckMemory(method, maxN, 13, opts, experiment.MemoryBound(33))); err != nil {
				t.Errorf("%d rows: %v", maxN, err)
			}
			if err := memoryError(33, methods.CheckMemory(method, maxN+1, 13, opts, experiment.MemoryBound(33))); err == nil {
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
	_, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--mem-mb", "1")
	if code != 2 || !strings.Contains(errOut, "more than --mem-mb 1; no data fits within it") {
		t.Errorf("exit %d, %q", code, errOut)
	}
}

// TestTuneMemMBFlag: -1 lifts the bound, values below -1 are usage errors
// (experiment's TestMemoryBound: the default reads MemTotal).
func TestTuneMemMBFlag(t *testing.T) {
	out, errOut, code := runCLI(t, "tune", "builtin:heart", "--method", "svm", "--mem-mb", "-1", "--test-fraction", "0.5", "--format", "json")
	if code != 0 || !strings.Contains(out, `"method": "svm"`) {
		t.Errorf("--mem-mb -1: exit %d, %s", code, errOut)
	}
	_, errOut, code = runCLI(t, "tune", "builtin:heart", "--method", "svm", "--mem-mb", "-2")
	if code != 2 || !strings.Contains(errOut, "--mem-mb must be") {
		t.Errorf("--mem-mb -2: exit %d, %q", code, errOut)
	}
}
