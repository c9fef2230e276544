package cmd

import (
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// The typed notices of a comparison, worded with the flags (moved here
// from pkg/report with issue 43).
func TestNoticeText(t *testing.T) {
	for _, c := range []struct {
		n    experiment.Notice
		want string
	}{
		{experiment.Notice{Kind: experiment.NoticeBaseline, Dataset: "heart", Baseline: experiment.FixedSVM{C: 128, Gamma: 0.25}},
			"heart: baseline (C, γ) = (128, 0.25) chosen on the TEST parts of the first 5 partitions (--select laanaya)"},
		{experiment.Notice{Kind: experiment.NoticeDefaultTrainSize, Dataset: "a9a", Rows: 32561, TrainSize: 100, Partitions: 1},
			"kerneltune: note: each of the 1 partitions trains on a random 100 of a9a's 32561 rows (the default --train-size); give --train-size 32561 to train on the whole file"},
		{experiment.Notice{Kind: experiment.NoticeSmallTrainPart, Dataset: "a9a", Rows: 32561, TrainSize: 100, TestSize: 100, Partitions: 1},
			"kerneltune: note: the partition of a9a trains on 100 of its 32,561 rows and tests on 100 (Laanaya et al.'s protocol: the default --train-size and --test-size); give --train-fraction 0.5 (half of the rows train, the rest test) or a larger --train-size and --test-size to learn from more of the file"},
	} {
		if got := noticeText(c.n); got != c.want {
			t.Errorf("noticeText = %q, want %q", got, c.want)
		}
	}
}
