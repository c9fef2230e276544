package cmd

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestTuneLargeDataPath: above --kernel-rows a kernel-learning method says
// in its table and JSON that it learned on a subset and trained the final
// SVM on every row; --kernel-rows is checked like --grid-rows.
func TestTuneLargeDataPath(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "s.libsvm")
	mustRun(t, "generate", "sparse", "--n", "500", "-o", data, "-q")
	r := tuneJSON(t, data, "--method", "lccp", "--kernel-rows", "200", "--test-fraction", "0.2", "--max-iter", "2")
	if r.LearnedOn != 200 || r.NTrain != 400 || r.Normalize != "maxabs" || r.TestAccuracy == nil || *r.TestAccuracy < 0.7 {
		t.Errorf("learned on %d of %d rows, normalize %s, test accuracy %v", r.LearnedOn, r.NTrain, r.Normalize, r.TestAccuracy)
	}
	out := mustRun(t, "tune", data, "--method", "lccp", "--kernel-rows", "200", "--test-fraction", "0.2", "--max-iter", "2")
	if !strings.Contains(out, "│ learned on") || !strings.Contains(out, "200 of the 400 training rows") {
		t.Errorf("the table does not say the kernel was learned on a subset:\n%s", out)
	}
	if all := tuneJSON(t, data, "--method", "lccp", "--test-fraction", "0.2", "--max-iter", "2"); all.LearnedOn != 0 {
		t.Errorf("400 rows, default --kernel-rows: learned on %d", all.LearnedOn)
	}
	_, errOut, code := runCLI(t, "tune", data, "--method", "lccp", "--kernel-rows", "10")
	if code != ExitUsage || !strings.Contains(errOut, "--kernel-rows 10: lccp: want -1 (no limit), 0 (the default 5,000) or at least 50") {
		t.Errorf("--kernel-rows 10: exit %d, %q", code, errOut)
	}
}
