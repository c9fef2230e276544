package cmd

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// gi-chessboard runs the paper's 20 trials by default and exactly
// --partitions when given, even 30 (compare's default, which the preset took
// for "not given"). The last shard runs only the last partition, so each case
// costs one cheap rcsc job.
func TestPresetChessboardPartitions(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs compare")
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "20/20"}, "1 of its 1 jobs recorded (0 failed; 0 were already in the file), of the run's 20\n"},
		{[]string{"--partitions", "30", "--shard", "30/30"}, "1 of its 1 jobs recorded (0 failed; 0 were already in the file), of the run's 30\n"},
	} {
		out := filepath.Join(t.TempDir(), "shard.jsonl")
		args := append([]string{"compare", "--preset", "gi-chessboard", "--methods", "rcsc", "-q", "--out", out}, tc.args...)
		if out := mustRun(t, args...); !strings.Contains(out, tc.want) {
			t.Errorf("%v: output lacks %q:\n%s", tc.args, tc.want, out)
		}
	}
}

// Every preset is described in compare's --help.
func TestPresetHelp(t *testing.T) {
	t.Parallel()
	out := mustRun(t, "compare", "--help")
	for _, p := range experiment.Presets() {
		if !strings.Contains(out, "  "+p.Name+"\n      "+strings.SplitN(p.About, "\n", 2)[0]) {
			t.Errorf("compare --help does not describe --preset %s", p.Name)
		}
	}
}

// gi-chessboard runs gi with the paper's hard margin, whatever --methods
// names and with compare's other flags at their defaults: --max-iter and the
// other method flags must not reset the preset's margin (they did once, and
// gi then chose C by the grid search: 579 SVM solves a partition instead of
// about 35, and other accuracies). --max-iter given still reaches gi.
func TestPresetChessboardKeepsTheHardMargin(t *testing.T) {
	t.Parallel()
	for _, extra := range [][]string{nil, {"--max-iter", "3"}} {
		out := filepath.Join(t.TempDir(), "gi.jsonl")
		args := append([]string{"compare", "--preset", "gi-chessboard", "--methods", "gi:A", "--partitions", "1", "-q", "--out", out}, extra...)
		mustRun(t, args...)
		recs, err := experiment.ReadRecordsFile(out)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%v: %d records, %v", extra, len(recs), err)
		}
		r := recs[0]
		if r.Margin != "hard" || r.Solves > 100 || r.C != 0 {
			t.Errorf("%v: margin %q, C %g, %d SVM solves; want the hard margin (no C), no grid search", extra, r.Margin, r.C, r.Solves)
		}
		if extra != nil && r.Iter > 3 {
			t.Errorf("--max-iter 3: %d iterations", r.Iter)
		}
	}
}
