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
