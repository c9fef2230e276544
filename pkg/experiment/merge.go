package experiment

import (
	"context"
	"errors"
	"fmt"
	"slices"
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
	// Runs are the runs the records come from, in order of first
	// appearance: more than one when runs that share no (dataset, method)
	// pair with other settings were merged (each record's Grid is then
	// the union of their grids).
	Runs []string
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
// checks that they are of one run and merges them (Merge). Records of
// different runs are merged too when every record carries its settings and
// no (dataset, method) pair was run with different ones (PairSettings):
// otherwise the error is a *SettingsConflictError naming the pair and each
// setting that differs (an *OtherFileRunError for records without
// settings). An incomplete
// run is not an error: report.SummarizeMerge averages what is there and
// says what is missing.
func MergeFiles(ctx context.Context, s MergeSettings) (*MergeResult, error) {
	var (
		sets [][]Record
		res  MergeResult
		by   string // the file of the first record
		pc   pairCheck
		old  bool // some record has no settings
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
			}
			old = old || r.Settings == nil
			if r.Run != res.Run && old {
				return nil, &OtherFileRunError{File: f, First: by, Run: r.Run, FirstRun: res.Run}
			}
			if !slices.Contains(res.Runs, r.Run) {
				res.Runs = append(res.Runs, r.Run)
			}
			if err := pc.add(&r, f); err != nil {
				return nil, err
			}
			if !slices.Contains(res.Datasets, r.Dataset) {
				res.Datasets = append(res.Datasets, r.Dataset)
			}
		}
		sets = append(sets, rs)
	}
	var (
		all []Record
		err error
	)
	if len(res.Runs) > 1 {
		all, err = mergeRuns(sets)
	} else {
		all, err = Merge(sets...)
	}
	if de := (*DuplicateJobError)(nil); errors.As(err, &de) && de.FirstSet > 0 {
		de.First, de.Then = s.Files[de.FirstSet-1], s.Files[de.ThenSet-1]
	}
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, ErrNoRecords
	}
	res.Records = all
	return &res, nil
}
