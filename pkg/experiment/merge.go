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
	// SplitIdentities reports records that give one dataset name to
	// different datasets (DatasetIdentity) as two datasets, the later
	// "NAME#2" (MergeResult.Renamed says which), instead of refusing them
	// (an *IdentityConflictError).
	SplitIdentities bool
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
	// Renamed says, one line each, which records were given another
	// dataset name: by MergeSettings.SplitIdentities, or because their
	// dataset is one met under another name (one identity is one
	// dataset, identityNames).
	Renamed []string
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
// checks that they are of one run and merges them (mergeSets, the rules of
// every merge; a job recorded twice with different results is a
// *DuplicateJobError naming both files:lines and what differs). Records of
// different runs are merged too when every record carries its settings and
// no (dataset, method) pair was run with different ones (PairSettings):
// otherwise the error is a *SettingsConflictError naming the pair and each
// setting that differs (an *OtherFileRunError for records without
// settings: assembled by hand or by another tool). An incomplete
// run is not an error: report.Summarize averages what is there and
// says what is missing.
func MergeFiles(ctx context.Context, s MergeSettings) (*MergeResult, error) {
	var (
		sets  []recordSet
		res   MergeResult
		by    string // the file of the first record
		pc    pairCheck
		ic    = identityCheck{split: s.SplitIdentities}
		names identityNames
		old   bool // some record has no settings
	)
	for _, f := range s.Files {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		set, err := readRecordSetFile(f)
		if err != nil {
			return nil, err
		}
		sets = append(sets, set)
	}
	for _, set := range sets {
		ic.take(set.recs)
	}
	for _, set := range sets {
		f, rs := set.name, set.recs
		for i := range rs {
			ps, hasPS := pairSettings(&rs[i]) // before the record is renamed
			name, err := ic.add(&rs[i], f)
			if err != nil {
				return nil, err
			}
			if name != rs[i].Dataset {
				renameDataset(&rs[i], name)
			}
			if first, ok := names.of(rs[i].Identity, rs[i].Dataset, f); ok {
				renameDataset(&rs[i], first)
			}
			r := &rs[i]
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
			if err := pc.add(r, f, ps, hasPS); err != nil {
				return nil, err
			}
			if !slices.Contains(res.Datasets, r.Dataset) {
				res.Datasets = append(res.Datasets, r.Dataset)
			}
		}
	}
	all, err := mergeSets(sets)
	if err != nil {
		return nil, err
	}
	if len(all) == 0 {
		return nil, ErrNoRecords
	}
	res.Records = all
	res.Renamed = append(ic.renamed(), names.notes...)
	return &res, nil
}

// identityNames gives the records of one identity one dataset name (issue
// 42, item 9): two runs of one dataset under --name h1 and --name h2 would
// otherwise count it as two datasets in the tests across datasets. The
// first name met of an identity is its name; a record of it under another
// name takes that name, and notes say which.
type identityNames struct {
	first map[Identity]string
	noted map[[2]string]bool // (name, file) noted
	notes []string
}

// of returns the name the records of identity id are given and whether
// it is not name (the record's, in file); "" identities (records without
// a dataset identity) are not compared.
func (n *identityNames) of(id Identity, name, file string) (string, bool) {
	if id == "" {
		return name, false
	}
	if n.first == nil {
		n.first, n.noted = map[Identity]string{}, map[[2]string]bool{}
	}
	first, ok := n.first[id]
	if !ok {
		n.first[id] = name
		return name, false
	}
	if first == name {
		return name, false
	}
	if k := [2]string{name, file}; !n.noted[k] {
		n.noted[k] = true
		n.notes = append(n.notes, fmt.Sprintf("%s of %s is dataset %s (one identity %s: the same data, read, partitioned and normalised the same way): reported as %s, one dataset", name, file, first, id, first))
	}
	return first, true
}
