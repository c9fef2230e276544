package study_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/study"
)

// A study from Go: its datasets, each read and partitioned its own way, are
// the list of datasets Compare runs on, as compare --study FILE makes it.
func ExampleConfigure() {
	dir, err := os.MkdirTemp("", "study")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	file := filepath.Join(dir, "two.yaml")
	yaml := "name: two\ndatasets:\n  - path: builtin:heart\n  - path: builtin:diabetes\n    name: pima\n    train-size: 200\n"
	if err := os.WriteFile(file, []byte(yaml), 0o644); err != nil {
		log.Fatal(err)
	}
	st, err := study.Read(file)
	if err != nil {
		log.Fatal(err)
	}
	entries, err := experiment.ParseEntries("svm")
	if err != nil {
		log.Fatal(err)
	}
	s := experiment.CompareSettings{Entries: entries, Seed: 1}
	// Every dataset starts from these settings; its keys in the study override them.
	study.Configure(&s, st, experiment.DatasetSettings{Partitions: 2, TrainSize: 100, TestSize: 100})
	res, err := experiment.Compare(context.Background(), s)
	if err != nil {
		log.Fatal(err)
	}
	for _, t := range report.Summarize(res.Records, report.SummaryOptions{}).Tables {
		row := t.Rows[0]
		fmt.Printf("%-5s %s test accuracy %.3f over %d partitions\n", t.Dataset, row.Entry, float64(row.MeanAcc), row.Runs)
	}
	// Output:
	// heart svm test accuracy 0.840 over 2 partitions
	// pima  svm test accuracy 0.730 over 2 partitions
}
