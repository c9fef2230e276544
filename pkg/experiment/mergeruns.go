package experiment

// Merging the records of different runs: allowed when no (dataset, method)
// pair was run with different settings.

import (
	"fmt"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// SettingsConflictError is a (dataset, entry) pair whose records in two
// results files were made with different settings.
type SettingsConflictError struct {
	Dataset, Entry string
	File, First    string // the file of the record, and of the first record of the pair
	// Diff are the settings that differ, "name first-value vs value" (a
	// method's setting named as a hint.Setting).
	Diff []hint.Text
}

func (e *SettingsConflictError) Error() string { return e.Words().String() }

// Words is the message of e.
func (e *SettingsConflictError) Words() hint.Text {
	t := hint.T(fmt.Sprintf("%s/%s was run with other settings in %s than in %s: ", e.Dataset, e.Entry, e.File, e.First))
	for i, d := range e.Diff {
		if i > 0 {
			t = append(t, "; ")
		}
		t = append(t, d...)
	}
	return append(t, "; merge only runs that agree on every (dataset, method) pair they share")
}

func (e *SettingsConflictError) Unwrap() error { return ErrMixedRuns }

// diffPair lists the settings that differ between two pairs' settings, by
// the names a user knows (settingName), in the order of their spelling as
// the command line's (a setting first, by its name).
func diffPair(a, b PairSettings) []hint.Text {
	fa, fb := pairFields(a), pairFields(b)
	var out []hint.Text
	for _, k := range keysOfBoth(fa, fb) {
		va, oka := fa[k]
		vb, okb := fb[k]
		if oka && okb && va == vb {
			continue
		}
		out = append(out, hint.T(settingName(k), fmt.Sprintf(" %s vs %s", orDefault(va, oka), orDefault(vb, okb))))
	}
	key := func(t hint.Text) string { return t.Spell(func(s hint.Setting) string { return "\x00" + s.Key }) }
	slices.SortFunc(out, func(x, y hint.Text) int { return strings.Compare(key(x), key(y)) })
	return out
}

func pairFields(p PairSettings) map[string]string {
	return flatGroups(map[string]any{"select": p.Select, "baseline.": p.Baseline, "common.": p.Common, "entry.": p.Entry})
}

// settingName is the name a user knows of a pair setting's field (its
// JSON path): the setting (hint.Setting) of a method setting
// ("common.class_weight" and "entry.budget" are class-weight and budget,
// "entry.log2g" log2g; a command line spells them as its flags), else the
// path.
func settingName(k string) any {
	for _, g := range []string{"common.", "entry."} {
		if f, ok := strings.CutPrefix(k, g); ok {
			return hint.S(strings.ReplaceAll(f, "_", "-"), "")
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
