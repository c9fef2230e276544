package experiment_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// Compare the svm baseline with rcsc on two partitions of the embedded heart
// data (100 training and 100 test points each): every method sees the same
// partitions, and the accuracies depend only on the seed. pkg/report
// averages the records into the tables compare prints.
func ExampleCompare() {
	entries, err := experiment.ParseEntries("svm,rcsc")
	if err != nil {
		log.Fatal(err)
	}
	res, err := experiment.Compare(context.Background(), experiment.CompareSettings{
		Entries: entries,
		// The files and how each is read and partitioned: FileSpecs, as the
		// command line gives them; a study's datasets are the same list.
		Datasets: experiment.FileSpecs([]string{"builtin:heart"},
			experiment.DatasetSettings{Partitions: 2, TrainSize: 100, TestSize: 100}),
		Seed: 1,
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%d jobs, %d failed\n", res.Jobs, res.Failures)
	t := report.Summarize(res.Records, report.SummaryOptions{}).Tables[0] // the averaged tables compare prints
	for _, row := range t.Rows {
		fmt.Printf("%s %-4s test accuracy %.3f ± %.3f over %d partitions\n", t.Dataset, row.Entry, float64(row.MeanAcc), float64(row.StdAcc), row.Runs)
	}
	fmt.Printf("Wilcoxon p of rcsc against %s: %.2f\n", t.Baseline, float64(t.Rows[1].P))
	// Output:
	// 4 jobs, 0 failed
	// heart svm  test accuracy 0.840 ± 0.000 over 2 partitions
	// heart rcsc test accuracy 0.770 ± 0.057 over 2 partitions
	// Wilcoxon p of rcsc against svm: 0.50
}

// Run a comparison in two shards, each into its own results file (on a
// cluster, two array jobs), and merge the files into one run's tables.
func ExampleMergeFiles() {
	dir, err := os.MkdirTemp("", "shards")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	svm, err := experiment.ParseEntries("svm")
	if err != nil {
		log.Fatal(err)
	}
	var files []string
	for shard := 1; shard <= 2; shard++ {
		s := experiment.CompareSettings{
			Entries: svm, Seed: 1,
			Datasets: experiment.FileSpecs([]string{"builtin:heart"}, experiment.DatasetSettings{Partitions: 3, TrainSize: 60, TestSize: 60}),
			Shard:    shard, Shards: 2, Out: filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", shard)),
		}
		if _, err := experiment.Compare(context.Background(), s); err != nil {
			log.Fatal(err)
		}
		files = append(files, s.Out)
	}
	res, err := experiment.MergeFiles(context.Background(), experiment.MergeSettings{Files: files})
	if err != nil {
		log.Fatal(err)
	}
	sum := report.Summarize(res.Records, report.SummaryOptions{Datasets: res.Datasets})
	t := sum.Tables[0]
	fmt.Printf("%d records of %v, complete: %v\n", len(res.Records), res.Datasets, sum.Complete)
	fmt.Printf("%s %s: test accuracy %.3f over %d partitions\n", t.Dataset, t.Rows[0].Entry, float64(t.Rows[0].MeanAcc), t.Rows[0].Runs)
	// Output:
	// 3 records of [heart], complete: true
	// heart svm: test accuracy 0.806 over 3 partitions
}

// Prepare a comparison (data read, jobs planned, settings checked, nothing
// run), look at its plan, then run it with an Observer that hears every
// finished job: what compare does between --dry-run and its progress line.
func ExamplePrepare() {
	entries, err := experiment.ParseEntries("svm,rcsc")
	if err != nil {
		log.Fatal(err)
	}
	p, err := experiment.Prepare(context.Background(), experiment.CompareSettings{
		Entries: entries, Seed: 1,
		Datasets: experiment.FileSpecs([]string{"builtin:heart"},
			experiment.DatasetSettings{Partitions: 2, TrainSize: 100, TestSize: 100}),
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("run %s: %d jobs of %v on %d dataset\n", p.Plan.Run, p.Plan.Jobs, p.Plan.Entries, len(p.Plan.Datasets))
	done := 0
	res, err := p.Run(context.Background(), experiment.Observer{
		Progress: func(d, total int, last *experiment.Record) { done = d },
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("heard %d of %d jobs; %d records of run %s\n", done, res.Jobs, len(res.Records), res.Run)
	// Output:
	// run a9e696fea923: 4 jobs of [svm rcsc] on 1 dataset
	// heard 4 of 4 jobs; 4 records of run a9e696fea923
}
