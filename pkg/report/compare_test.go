package report

import (
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

func TestFailureDigest(t *testing.T) {
	fail := func(p int, msg string) experiment.Record {
		return experiment.Record{Dataset: "d", Entry: "e", Partition: p, Status: experiment.StatusFailure, Error: msg}
	}
	rs := []experiment.Record{fail(0, "a"), {Status: "converged"}, fail(1, "b"), fail(2, "a"), fail(3, "c")}
	if got, want := FailureDigest(rs, 2), "\n  d e partition 1 (and 1 more): a\n  d e partition 2: b\n  … and 1 other error(s)"; got != want {
		t.Errorf("FailureDigest = %q, want %q", got, want)
	}
}

func TestFailures(t *testing.T) {
	rs := []experiment.Record{{Dataset: "d", Entry: "e", Status: experiment.StatusFailure, Error: "x"}}
	if got, want := Failures(rs, "r.jsonl"), "1 job(s) failed (see the failures column and the error field of the records in r.jsonl):\n  d e partition 1: x"; got != want {
		t.Errorf("Failures = %q, want %q", got, want)
	}
}

func TestNotice(t *testing.T) {
	for _, c := range []struct {
		n    experiment.Notice
		want string
	}{
		{experiment.Notice{Kind: experiment.NoticeBaseline, Dataset: "heart", Baseline: experiment.FixedSVM{C: 128, Gamma: 0.25}},
			"heart: baseline (C, γ) = (128, 0.25) chosen on the TEST parts of the first 5 partitions (--select laanaya)"},
		{experiment.Notice{Kind: experiment.NoticeDefaultTrainSize, Dataset: "a9a", Rows: 32561, TrainSize: 100, Partitions: 1},
			"kerneltune: note: each of the 1 partitions trains on a random 100 of a9a's 32561 rows (the default --train-size); give --train-size 32561 to train on the whole file"},
	} {
		if got := Notice(c.n); got != c.want {
			t.Errorf("Notice = %q, want %q", got, c.want)
		}
	}
}
