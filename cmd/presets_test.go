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
	out := mustRun(t, "compare", "--help")
	for _, p := range experiment.Presets() {
		if !strings.Contains(out, "  "+p.Name+"\n      "+strings.SplitN(p.About, "\n", 2)[0]) {
			t.Errorf("compare --help does not describe --preset %s", p.Name)
		}
	}
}
