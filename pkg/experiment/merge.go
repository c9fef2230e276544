package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// MergeSettings are the settings of MergeFiles.
type MergeSettings struct {
	// Files are results files written by Compare (CompareSettings.Out),
	// e.g. the files of every shard of a run.
	Files []string
}

// MergeResult is the outcome of MergeFiles.
type MergeResult struct {
	// Run is the fingerprint of the run the records come from.
	Run string
	// Records are the merged records (a job recorded twice counts once),
	// sorted by dataset, entry and partition.
	Records []Record
	// Datasets are the datasets in order of first appearance in the files.
	Datasets []string
	// Summary is the averaged tables of the records; Summary.Complete says
	// whether every job of the run's grid is present.
	Summary Summary
}

// ErrNoRecords is the error of MergeFiles when the files hold no record.
var ErrNoRecords = errors.New("no result records")

// OtherFileRunError is a results file whose records are of another run than
// the first file's.
type OtherFileRunError struct {
	File, First   string // the file, and the file of the first record
	Run, FirstRun string
}

func (e *OtherFileRunError) Error() string {
	return fmt.Sprintf("%s holds records of another run than %s (run %s, not %s)", e.File, e.First, e.Run, e.FirstRun)
}

func (e *OtherFileRunError) Unwrap() error { return ErrMixedRuns }

// MergeFiles reads results files (the shards of one run, or one run's file),
// checks that they are of one run, merges them (Merge) and summarises them
// (SummarizeRun: methods in methods.Names order unless the records carry
// the run's grid). An incomplete run is not an error: see
// Summary.Complete and Summary.Warning.
func MergeFiles(ctx context.Context, s MergeSettings) (*MergeResult, error) {
	var (
		sets [][]Record
		res  MergeResult
		by   string // the file of the first record
	)
	for _, f := range s.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rs, err := ReadRecordsFile(f)
		if err != nil {
			return nil, err
		}
		for _, r := range rs {
			if res.Run == "" {
				res.Run, by = r.Run, f
			} else if r.Run != res.Run {
				return nil, &OtherFileRunError{File: f, First: by, Run: r.Run, FirstRun: res.Run}
			}
			if !slices.Contains(res.Datasets, r.Dataset) {
				res.Datasets = append(res.Datasets, r.Dataset)
			}
		}
		sets = append(sets, rs)
	}
	all, err := Merge(sets...)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, ErrNoRecords
	}
	res.Records = all
	res.Summary = SummarizeRun(all, SummaryOptions{MethodNames: methods.Names(), Datasets: res.Datasets})
	return &res, nil
}
