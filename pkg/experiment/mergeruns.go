package experiment

// Merging the records of different runs: allowed when no (dataset, method)
// pair was run with different settings.

import (
	"fmt"
	"slices"
	"strings"
)

// SettingsConflictError is a (dataset, entry) pair whose records in two
// results files were made with different settings.
type SettingsConflictError struct {
	Dataset, Entry string
	File, First    string // the file of the record, and of the first record of the pair
	// Diff are the settings that differ, "name first-value vs value".
	Diff []string
}

func (e *SettingsConflictError) Error() string {
	return fmt.Sprintf("%s/%s was run with other settings in %s than in %s: %s; merge only runs that agree on every (dataset, method) pair they share",
		e.Dataset, e.Entry, e.File, e.First, strings.Join(e.Diff, "; "))
}

func (e *SettingsConflictError) Unwrap() error { return ErrMixedRuns }

// diffPair lists the settings that differ between two pairs' settings, by
// the names a user knows (settingName).
func diffPair(a, b PairSettings) []string {
	return diffFlat(pairFields(a), pairFields(b), func(k, va, vb string) string {
		return fmt.Sprintf("%s %s vs %s", settingName(k), va, vb)
	})
}

func pairFields(p PairSettings) map[string]string {
	return flatGroups(map[string]any{"select": p.Select, "baseline.": p.Baseline, "common.": p.Common, "entry.": p.Entry})
}

// settingName is the name a user knows of a pair setting's field (its
// JSON path): the flag of a method setting ("common.class_weight" and
// "entry.budget" are --class-weight and --budget, "entry.log2g" --log2g),
// else the path.
func settingName(k string) string {
	for _, g := range []string{"common.", "entry."} {
		if f, ok := strings.CutPrefix(k, g); ok {
			return "--" + strings.ReplaceAll(f, "_", "-")
		}
	}
	return k
}

// pairCheck remembers the settings of each (dataset, entry) pair met while
// merging the records of several runs.
type pairCheck struct {
	seen map[[2]string]pairSeen
}

type pairSeen struct {
	settings PairSettings
	file     string
}

// add checks r (from file; ps its pair settings, taken before r was
// renamed) against the records of its pair met before; a record without
// settings (ok false) is not checked (MergeFiles merges it within its run
// only).
func (c *pairCheck) add(r *Record, file string, ps PairSettings, ok bool) error {
	if !ok {
		return nil
	}
	if c.seen == nil {
		c.seen = map[[2]string]pairSeen{}
	}
	key := [2]string{r.Dataset, r.Entry}
	first, ok := c.seen[key]
	if !ok {
		c.seen[key] = pairSeen{ps, file}
		return nil
	}
	if d := diffPair(first.settings, ps); len(d) > 0 {
		return &SettingsConflictError{Dataset: r.Dataset, Entry: r.Entry, File: file, First: first.file, Diff: d}
	}
	return nil
}

// unionGrid is the grid of several runs: their datasets and entries, each
// once, in order of first appearance.
func unionGrid(rs []Record) *Grid {
	g := &Grid{}
	for _, r := range rs {
		if r.Grid == nil {
			continue
		}
		for _, d := range r.Grid.Datasets {
			if i := slices.IndexFunc(g.Datasets, func(e GridDataset) bool { return e.Name == d.Name }); i < 0 {
				g.Datasets = append(g.Datasets, d)
			} else {
				// Runs of more partitions of one dataset: partition k
				// is the same in each (its identity does not hold the
				// count).
				g.Datasets[i].Partitions = max(g.Datasets[i].Partitions, d.Partitions)
			}
		}
		for _, e := range r.Grid.Entries {
			if !slices.Contains(g.Entries, e) {
				g.Entries = append(g.Entries, e)
			}
		}
	}
	return g
}
