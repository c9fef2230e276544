package experiment

// A dataset's identity: what it is (its data, how it was read, partitioned
// and normalised), as opposed to its display name. report merges the
// records of one name only when they are of one identity, so that a table
// never averages, and a paired test never pairs, partitions of different
// data (issue 34).

import (
	"fmt"
	"slices"
	"strings"
)

// diffIdentity lists what differs between two identities, "FIELD a vs b"
// by the fields' JSON paths ("read.labels.positive"), sorted.
func diffIdentity(a, b DatasetIdentity) []string {
	return diffFlat(flatJSON(a), flatJSON(b), func(k, va, vb string) string {
		return fmt.Sprintf("%s %s vs %s", k, va, vb)
	})
}

// IdentityConflictError is a dataset name that two results files give to
// different datasets (DatasetIdentity): report refuses to merge them unless
// asked to show them as two datasets (MergeSettings.SplitIdentities).
type IdentityConflictError struct {
	Dataset     string
	File, First string // the file of the record, and of the first record of the name
	// Diff are what differs, "key first-value vs value".
	Diff []string
}

func (e *IdentityConflictError) Error() string {
	return fmt.Sprintf("dataset %s in %s is not the dataset %s in %s: %s; merge only records of the same data, read and partitioned the same way (give one of them another name with compare --name, or pass --split-identities to report them as two datasets)",
		e.Dataset, e.File, e.Dataset, e.First, strings.Join(e.Diff, "; "))
}

func (e *IdentityConflictError) Unwrap() error { return ErrMixedRuns }

// identityCheck remembers the identities met under each dataset name while
// merging the records of several files.
type identityCheck struct {
	split bool
	seen  map[string][]identitySeen // by the name in the files
	// taken are the names a split may not give (every name in the
	// records, and those given): a user's own "heart#2" is not the
	// name of another identity of heart (issue 42, item 18).
	taken map[string]bool
}

// take marks the dataset names of sets as taken.
func (c *identityCheck) take(sets ...[]Record) {
	if c.taken == nil {
		c.taken = map[string]bool{}
	}
	for _, rs := range sets {
		for _, r := range rs {
			c.taken[r.Dataset] = true
		}
	}
}

type identitySeen struct {
	fields DatasetIdentity
	id     Identity
	file   string
	name   string // the name given to the records of this identity
}

// add checks r (from file) against the identities of its name met before,
// and returns the name its records are given: its own name for the first
// identity of a name, "NAME#2", "NAME#3", ... for others when split (the
// first of these no record's name, c.taken), an *IdentityConflictError
// otherwise. A record without a DatasetIdentity keeps its name.
func (c *identityCheck) add(r *Record, file string) (string, error) {
	if r.DatasetIdentity == nil {
		return r.Dataset, nil
	}
	if c.seen == nil {
		c.seen = map[string][]identitySeen{}
	}
	ids := c.seen[r.Dataset]
	for _, s := range ids {
		if s.id == r.Identity {
			return s.name, nil
		}
	}
	if len(ids) > 0 && !c.split {
		return "", &IdentityConflictError{Dataset: r.Dataset, File: file, First: ids[0].file, Diff: diffIdentity(ids[0].fields, *r.DatasetIdentity)}
	}
	name := r.Dataset
	if len(ids) > 0 {
		c.take()
		for k := len(ids) + 1; ; k++ {
			if name = fmt.Sprintf("%s#%d", r.Dataset, k); !c.taken[name] {
				break
			}
		}
		c.taken[name] = true
	}
	c.seen[r.Dataset] = append(ids, identitySeen{*r.DatasetIdentity, r.Identity, file, name})
	return name, nil
}

// renamed returns, for a dataset split by identity, a line per identity
// after the first saying which file's records bear which name.
func (c *identityCheck) renamed() []string {
	var out []string
	names := make([]string, 0, len(c.seen))
	for n := range c.seen {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		ids := c.seen[n]
		for _, s := range ids[1:] {
			out = append(out, fmt.Sprintf("%s is dataset %s of %s (%s)", s.name, n, s.file, strings.Join(diffIdentity(ids[0].fields, s.fields), "; ")))
		}
	}
	return out
}

// renameDataset gives r's dataset the name name, in its grid too (a copy:
// the records of one run may share their grid, and a file may hold two
// runs that give one name to two datasets).
func renameDataset(r *Record, name string) {
	if r.Grid != nil {
		g := &Grid{Entries: r.Grid.Entries, Datasets: slices.Clone(r.Grid.Datasets)}
		for j := range g.Datasets {
			if g.Datasets[j].Name == r.Dataset {
				g.Datasets[j].Name = name
			}
		}
		// A grid that named both (one run of two spellings of one
		// dataset) names it once.
		seen := false
		g.Datasets = slices.DeleteFunc(g.Datasets, func(d GridDataset) bool {
			dup := d.Name == name && seen
			seen = seen || d.Name == name
			return dup
		})
		r.Grid = g
	}
	r.Dataset = name
}

// SplitByIdentity returns rs with the datasets that share a name but not
// an identity (DatasetIdentity) kept apart, as MergeSettings.SplitIdentities
// keeps them: the first identity met of a name keeps it, the others are
// NAME#2, NAME#3, ...; renamed says, a line each, which run's records bear
// which name and what differs. It is for records gathered without
// MergeFiles (which refuses them unless asked to split): pkg/report calls
// it on the records it is given, so that no table, paired test or figure
// averages two datasets' partitions under one name. Records keyed by
// identity already are returned as they are: those of one run (Compare
// names a run's datasets apart) and those whose every name has one
// identity (MergeFiles's, whose check this would only repeat); rs itself
// is never changed (the records renamed are copies, their grid too).
func SplitByIdentity(rs []Record) (out []Record, renamed []string) {
	if keyedByIdentity(rs) {
		return rs, nil
	}
	ic := identityCheck{split: true}
	ic.take(rs)
	for i := range rs {
		name, _ := ic.add(&rs[i], "run "+rs[i].Run) // no error when split
		if name == rs[i].Dataset {
			continue
		}
		if out == nil {
			out = slices.Clone(rs)
		}
		renameDataset(&out[i], name)
	}
	if out == nil {
		return rs, nil
	}
	return out, ic.renamed()
}

// keyedByIdentity reports whether the names of rs are one-to-one with
// their datasets already: rs are of one run, or each name has one identity
// (a record without one is keyed by its name: checked, it keeps it).
func keyedByIdentity(rs []Record) bool {
	if !slices.ContainsFunc(rs, func(r Record) bool { return r.Run != rs[0].Run }) {
		return true
	}
	ids := map[string]Identity{}
	for _, r := range rs {
		if id, ok := ids[r.Dataset]; r.Identity == "" || ok && id != r.Identity {
			return false
		}
		ids[r.Dataset] = r.Identity
	}
	return true
}
