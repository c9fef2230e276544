// Command makespan is the schedule side of bench/scaling.sh: from the
// per-job times of a comparison's records (compare --out, best a run with
// --workers 1, where no job waits for a core), it prints the speed-up the
// schedule allows on W cores: the sum of the job times over the makespan of
// Run's pool (each job on the first free core) with the jobs started in the
// plan's order, in compare's (longest expected first) and longest first
// by the measured times. The makespan cannot beat max(sum/W,
// longest job); where the longest job is what remains, W more cores add
// nothing. Process start, reading the data and the tables are not in it.
//
// With -shards it prints the shards' side instead (compare --shard i/N, one
// worker a shard, issue 45): the makespan of N shards, the longest shard's
// sum of job times, with the jobs assigned by count (job i of the plan to
// shard i mod N, as --shard did) and by expected cost (experiment.AssignShards
// of experiment.JobCost, as it does now), over the ideal total/N. A job's time
// is its Seconds, the grid search it shares with another job included: in
// another shard than that job it searches its grid itself. -tsv writes the
// jobs' plan-order times and shapes, the input of the shards test of
// pkg/experiment.
//
//	makespan [-w 1,2,4,8,16] RECORDS.jsonl...
//	makespan -shards 2,3,4,6,8,16 [-tsv FILE] RECORDS.jsonl...
package main

import (
	"cmp"
	"flag"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

func main() {
	ws := flag.String("w", "1,2,4,8,16", "comma-separated worker counts")
	shards := flag.String("shards", "", "comma-separated shard counts: print the shards' makespans instead")
	tsv := flag.String("tsv", "", "with -shards, also write the jobs' times and shapes to this file")
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: makespan [-w 1,2,4,8,16 | -shards 2,4,8 [-tsv FILE]] RECORDS.jsonl...")
		os.Exit(2)
	}
	var recs []experiment.Record
	for _, path := range flag.Args() {
		r, err := experiment.ReadRecordsFile(path)
		if err != nil {
			fmt.Fprintln(os.Stderr, "makespan:", err)
			os.Exit(1)
		}
		recs = append(recs, r...)
	}
	if *shards != "" {
		ns := counts("shards", *shards)
		if *tsv != "" {
			if err := os.WriteFile(*tsv, []byte(jobsTSV(recs)), 0o644); err != nil {
				fmt.Fprintln(os.Stderr, "makespan:", err)
				os.Exit(1)
			}
		}
		fmt.Print(shardTable(recs, ns))
		return
	}
	fmt.Print(table(recs, counts("w", *ws)))
}

// counts parses the comma-separated positive integers of flag name.
func counts(name, list string) []int {
	var out []int
	for _, s := range strings.Split(list, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || w < 1 {
			fmt.Fprintf(os.Stderr, "makespan: -%s: want positive integers, got %q\n", name, s)
			os.Exit(2)
		}
		out = append(out, w)
	}
	return out
}

// planOrder returns the records in the plan's order (sortPlan, the
// datasets and entries in the order they first appear).
func planOrder(recs []experiment.Record) []experiment.Record {
	dsOrder, enOrder := map[string]int{}, map[string]int{}
	for _, r := range recs {
		if _, ok := dsOrder[r.Dataset]; !ok {
			dsOrder[r.Dataset] = len(dsOrder)
		}
		if _, ok := enOrder[r.Entry]; !ok {
			enOrder[r.Entry] = len(enOrder)
		}
	}
	plan := slices.Clone(recs)
	sortPlan(plan, dsOrder, enOrder)
	return plan
}

// shardTable returns the shards' makespans of the records' job times, by
// count and by expected cost, for each shard count of ns.
func shardTable(recs []experiment.Record, ns []int) string {
	plan := planOrder(recs)
	times, costs := make([]float64, len(plan)), make([]float64, len(plan))
	sum := 0.0
	for i, r := range plan {
		times[i], costs[i] = r.Seconds, expected(r)
		sum += r.Seconds
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d jobs, sum of job times %.2f s (one worker a shard)\n", len(times), sum)
	fmt.Fprintf(&b, "%6s | %9s | %14s %7s | %13s %7s\n", "shards", "ideal s", "by count s", "×ideal", "by cost s", "×ideal")
	for _, n := range ns {
		ideal := sum / float64(n)
		byCount := slices.Max(experiment.ShardCosts(times, experiment.ShardsByCount(len(times), n), n))
		byCost := slices.Max(experiment.ShardCosts(times, experiment.AssignShards(costs, n), n))
		fmt.Fprintf(&b, "%6d | %9.2f | %14.2f %6.3f× | %13.2f %6.3f×\n", n, ideal, byCount, ratio(byCount, ideal), byCost, ratio(byCost, ideal))
	}
	b.WriteString("ideal: the sum of job times / N; by count: job i of the plan in shard i mod N;\n" +
		"by cost: experiment.AssignShards of experiment.JobCost (compare --shard)\n")
	return b.String()
}

// jobsTSV returns the records' jobs in plan order, one a line: dataset,
// entry, method, partition, training rows, features and seconds.
func jobsTSV(recs []experiment.Record) string {
	var b strings.Builder
	b.WriteString("dataset\tentry\tmethod\tpartition\ttrain_size\tfeatures\tseconds\n")
	for _, r := range planOrder(recs) {
		fmt.Fprintf(&b, "%s\t%s\t%s\t%d\t%d\t%d\t%.4f\n", r.Dataset, r.Entry, r.Method, r.Partition, r.TrainSize, features(r), r.Seconds)
	}
	return b.String()
}

// table returns the ideal-schedule table of the records' job times.
func table(recs []experiment.Record, workers []int) string {
	// Plan order: dataset, partition, entry, as Config.Plan lists the jobs.
	plan := planOrder(recs)
	times := make([]float64, len(plan))
	sum, longest := 0.0, 0.0
	// A job's own time: a grid search shared with another job of the run
	// (Record.SharedSeconds) ran once, in that job.
	own := func(r experiment.Record) float64 { return r.Seconds - r.SharedSeconds }
	for i, r := range plan {
		times[i] = own(r)
		sum += times[i]
		longest = max(longest, times[i])
	}
	lpt := experiment.LongestFirst(times)
	// Run's order: longest expected first (experiment.JobCost of the
	// method, the training rows and the dataset's features), stable.
	run := make([]experiment.Record, len(plan))
	copy(run, plan)
	slices.SortStableFunc(run, func(a, b experiment.Record) int { return cmp.Compare(expected(b), expected(a)) })
	runTimes := make([]float64, len(run))
	for i, r := range run {
		runTimes[i] = own(r)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%d jobs, sum of job times %.2f s, longest job %.3f s\n", len(times), sum, longest)
	fmt.Fprintf(&b, "%7s | %12s %9s | %12s %9s | %13s %9s | %9s\n", "workers", "plan-order s", "speed-up",
		"run-order s", "speed-up", "longest-1st s", "speed-up", "bound")
	for _, w := range workers {
		mp, mr, ml := experiment.Makespan(times, w), experiment.Makespan(runTimes, w), experiment.Makespan(lpt, w)
		bound := max(sum/float64(w), longest)
		fmt.Fprintf(&b, "%7d | %12.2f %8.2f× | %12.2f %8.2f× | %13.2f %8.2f× | %8.2f×\n", w, mp, ratio(sum, mp),
			mr, ratio(sum, mr), ml, ratio(sum, ml), ratio(sum, bound))
	}
	b.WriteString("plan order: dataset, partition, entry; run order: compare's, longest expected first\n" +
		"(experiment.JobCost); longest-1st: by the measured times, the best list order;\n" +
		"bound: sum / max(sum/W, longest job)\n")
	return b.String()
}

func ratio(a, b float64) float64 {
	if b == 0 {
		return 0
	}
	return a / b
}

// expected is the job's expected cost as compare orders its jobs: the
// method, the training rows and the dataset's features (its provenance;
// 10 when the record has none).
func expected(r experiment.Record) float64 {
	return experiment.JobCost(r.Method, r.TrainSize, features(r))
}

// features is the record's dataset's features (its provenance; 10 when
// the record has none).
func features(r experiment.Record) int {
	if r.Provenance != nil && r.Provenance.Data != nil && r.Provenance.Data.Features > 0 {
		return r.Provenance.Data.Features
	}
	return 10
}

// sortPlan sorts records into the plan's order: dataset, partition, entry.
func sortPlan(rs []experiment.Record, ds, en map[string]int) {
	slices.SortStableFunc(rs, func(a, b experiment.Record) int {
		return cmp.Or(cmp.Compare(ds[a.Dataset], ds[b.Dataset]), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(en[a.Entry], en[b.Entry]))
	})
}
