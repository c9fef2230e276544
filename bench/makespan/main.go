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
//	makespan [-w 1,2,4,8,16] RECORDS.jsonl...
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
	flag.Parse()
	if flag.NArg() == 0 {
		fmt.Fprintln(os.Stderr, "usage: makespan [-w 1,2,4,8,16] RECORDS.jsonl...")
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
	var workers []int
	for _, s := range strings.Split(*ws, ",") {
		w, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || w < 1 {
			fmt.Fprintf(os.Stderr, "makespan: -w: want positive integers, got %q\n", s)
			os.Exit(2)
		}
		workers = append(workers, w)
	}
	fmt.Print(table(recs, workers))
}

// table returns the ideal-schedule table of the records' job times.
func table(recs []experiment.Record, workers []int) string {
	// Plan order: dataset, partition, entry, as Config.Plan lists the jobs
	// (datasets and entries in the order they first appear).
	dsOrder, enOrder := map[string]int{}, map[string]int{}
	for _, r := range recs {
		if _, ok := dsOrder[r.Dataset]; !ok {
			dsOrder[r.Dataset] = len(dsOrder)
		}
		if _, ok := enOrder[r.Entry]; !ok {
			enOrder[r.Entry] = len(enOrder)
		}
	}
	plan := make([]experiment.Record, len(recs))
	copy(plan, recs)
	sortPlan(plan, dsOrder, enOrder)
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
	d := 10
	if r.Provenance != nil && r.Provenance.Data != nil && r.Provenance.Data.Features > 0 {
		d = r.Provenance.Data.Features
	}
	return experiment.JobCost(r.Method, r.TrainSize, d)
}

// sortPlan sorts records into the plan's order: dataset, partition, entry.
func sortPlan(rs []experiment.Record, ds, en map[string]int) {
	slices.SortStableFunc(rs, func(a, b experiment.Record) int {
		return cmp.Or(cmp.Compare(ds[a.Dataset], ds[b.Dataset]), cmp.Compare(a.Partition, b.Partition),
			cmp.Compare(en[a.Entry], en[b.Entry]))
	})
}
