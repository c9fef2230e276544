package report

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// Shard is what a shard of a comparison prints (compare --shard): not a
// table (a few partitions' means are no result), but what it ran and how to
// merge.
type Shard struct {
	Shard       string `json:"shard"`
	Run         string `json:"run"`
	JobsInShard int    `json:"jobs_in_shard"`
	JobsDone    int    `json:"jobs_done"`    // records of this shard's jobs in the file
	JobsResumed int    `json:"jobs_resumed"` // of them, already there before this invocation
	Failures    int    `json:"failures"`
	JobsPlanned int    `json:"run_jobs_planned"` // the whole run's, over every shard
	Records     string `json:"records"`
	Merge       string `json:"merge"`
}

// NewShard describes res, the outcome of shard "i/N" (shard) of the shards
// run that wrote its records to the file records.
func NewShard(res *experiment.CompareResult, shard string, shards int, records string) Shard {
	return Shard{
		Shard: shard, Run: res.Run, JobsInShard: res.Jobs, JobsDone: len(res.Records), JobsResumed: res.Resumed,
		Failures: res.Failures, JobsPlanned: res.Grid.Jobs(), Records: records,
		Merge: "kerneltune report FILE... (the files of all " + strconv.Itoa(shards) + " shards)",
	}
}

// WriteShard writes s as JSON (FormatJSON) or as lines of text (any other
// format) that say how to merge the shards of a run of shards shards.
func WriteShard(w io.Writer, format string, s Shard, shards int) error {
	if format == FormatJSON {
		return RenderJSON(w, s)
	}
	_, err := fmt.Fprintf(w, "shard %s of run %s: %d of its %d jobs recorded (%d failed; %d were already in the file), of the run's %d\n"+
		"records: %s\n"+
		"no table: a shard holds a few partitions of each dataset; merge the files of all %d shards with\n"+
		"  kerneltune report FILE...\n",
		s.Shard, s.Run, s.JobsDone, s.JobsInShard, s.Failures, s.JobsResumed, s.JobsPlanned, s.Records, shards)
	return err
}

// FailureDigest lists the distinct errors of the failed records, at most
// most of them, one line each (each line starts with a newline and two
// spaces) with the first job that hit it, so that a failure is explained
// without opening the results file.
func FailureDigest(rs []experiment.Record, most int) string {
	var (
		order []string
		first = map[string]*experiment.Record{}
		count = map[string]int{}
	)
	for i := range rs {
		r := &rs[i]
		if !r.Failed() {
			continue
		}
		if first[r.Error] == nil {
			first[r.Error] = r
			order = append(order, r.Error)
		}
		count[r.Error]++
	}
	var b strings.Builder
	for i, msg := range order {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d other error(s)", len(order)-most)
			break
		}
		r := first[msg]
		fmt.Fprintf(&b, "\n  %s %s partition %d", r.Dataset, r.Entry, r.Partition+1)
		if n := count[msg]; n > 1 {
			fmt.Fprintf(&b, " (and %d more)", n-1)
		}
		fmt.Fprintf(&b, ": %s", msg)
	}
	return b.String()
}

// Failures says how many jobs of a comparison failed and why (FailureDigest
// of the first five errors), pointing to the records in the results file
// out when there is one.
func Failures(recs []experiment.Record, out string) string {
	hint := ""
	if out != "" {
		hint = " and the error field of the records in " + out
	}
	return fmt.Sprintf("%d job(s) failed (see the failures column%s):%s", experiment.CountFailures(recs), hint, FailureDigest(recs, 5))
}

// Notice is the stderr line of what a comparison found before its jobs ran
// (experiment.Notice), without its newline.
func Notice(n experiment.Notice) string {
	if n.Kind == experiment.NoticeBaseline {
		return fmt.Sprintf("%s: baseline (C, γ) = (%g, %g) chosen on the TEST parts of the first %d partitions (--select laanaya)",
			n.Dataset, n.Baseline.C, n.Baseline.Gamma, experiment.LaanayaPartitions)
	}
	if n.Kind == experiment.NoticeResumeMidJob {
		if n.Jobs == 1 {
			return fmt.Sprintf("kerneltune: note: 1 job cut short resumes from its checkpoint (%d steps done)", n.Steps)
		}
		return fmt.Sprintf("kerneltune: note: %d jobs cut short resume from their checkpoints (%d steps done)", n.Jobs, n.Steps)
	}
	if n.Kind == experiment.NoticeSmallTrainPart {
		each := fmt.Sprintf("each of the %d partitions", n.Partitions)
		if n.Partitions == 1 {
			each = "the partition"
		}
		return fmt.Sprintf("kerneltune: note: %s of %s trains on %s of its %s rows and tests on %s (Laanaya et al.'s protocol: the default --train-size and --test-size); give --train-fraction 0.5 (half of the rows train, the rest test) or a larger --train-size and --test-size to learn from more of the file",
			each, n.Dataset, thousands(n.TrainSize), thousands(n.Rows), thousands(n.TestSize))
	}
	return fmt.Sprintf("kerneltune: note: each of the %d partitions trains on a random %d of %s's %d rows (the default --train-size); give --train-size %d to train on the whole file",
		n.Partitions, n.TrainSize, n.Dataset, n.Rows, n.Rows)
}
