package main

import (
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// TestTable: two partitions of a 1 s rcsc job and a 4 s lccp job. In the
// plan's order (1, 4, 1, 4) on 2 cores the last 4 s job starts at 2 and
// ends at 6; in compare's order (lccp expected longest) and longest first
// (4, 4, 1, 1) the run ends at 5, the bound max(10/2, 4).
func TestTable(t *testing.T) {
	var recs []experiment.Record
	for _, k := range []int{1, 0} { // out of the plan's order
		recs = append(recs,
			experiment.Record{Dataset: "a", Entry: "rcsc", Method: "rcsc", Partition: k, TrainSize: 100, Seconds: 1},
			experiment.Record{Dataset: "a", Entry: "lccp", Method: "lccp", Partition: k, TrainSize: 100, Seconds: 4})
	}
	got := table(recs, []int{1, 2})
	for _, want := range []string{
		"4 jobs, sum of job times 10.00 s, longest job 4.000 s",
		"      1 |        10.00     1.00× |        10.00     1.00× |         10.00     1.00× |     1.00×",
		"      2 |         6.00     1.67× |         5.00     2.00× |          5.00     2.00× |     2.00×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
}

// TestShardTable: two partitions of a 4 s svm job and a 1 s rcsc job on two
// shards. By count (plan order svm, rcsc, svm, rcsc; job i to shard i mod 2)
// shard 1 gets both svm jobs, 8 s against the ideal 5 s; by expected cost
// (svm's above rcsc's) each shard gets one of each, 5 s.
func TestShardTable(t *testing.T) {
	var recs []experiment.Record
	for _, k := range []int{0, 1} {
		recs = append(recs,
			experiment.Record{Dataset: "a", Entry: "svm", Method: "svm", Partition: k, TrainSize: 100, Seconds: 4},
			experiment.Record{Dataset: "a", Entry: "rcsc", Method: "rcsc", Partition: k, TrainSize: 100, Seconds: 1})
	}
	got := shardTable(recs, []int{2})
	for _, want := range []string{
		"4 jobs, sum of job times 10.00 s (one worker a shard)",
		"     2 |      5.00 |           8.00  1.600× |          5.00  1.000×",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("table lacks %q:\n%s", want, got)
		}
	}
	if tsv := jobsTSV(recs); !strings.HasPrefix(tsv, "dataset\tentry\tmethod\tpartition\ttrain_size\tfeatures\tseconds\na\tsvm\tsvm\t0\t100\t10\t4.0000\n") {
		t.Errorf("tsv:\n%s", tsv)
	}
}
