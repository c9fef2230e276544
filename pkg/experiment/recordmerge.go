package experiment

import (
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// ErrMixedRuns is returned when records of different runs are merged.
var ErrMixedRuns = errors.New("records come from runs with different settings")

// DuplicateJobError is a job recorded twice with different results: First
// and Then say where each record is, Diff what differs.
type DuplicateJobError struct {
	Key Key
	// First and Then are the files (or Merge's "record set K") of the two
	// records, FirstLine and ThenLine their lines (0 outside a file).
	First, Then         string
	FirstLine, ThenLine int
	// Diff are the record fields that differ, "field first-value vs
	// value" (a long value by its field's name alone).
	Diff []string
}

func (e *DuplicateJobError) Error() string {
	first, then := RecordPos{e.First, e.FirstLine}, RecordPos{e.Then, e.ThenLine}
	return fmt.Sprintf("%s: job (dataset %s, entry %s, partition %d) is recorded twice with different values: at %s and %s (%s)",
		then, e.Key.Dataset, e.Key.Entry, e.Key.Partition, first, then, strings.Join(e.Diff, "; "))
}

// jobSet is the one record-deduplication helper: ReadRecords (the lines of
// one file), Merge (the shards of a run) and MergeFiles (several runs) add
// their records to one. A job is its Key (the dataset's name and identity,
// MergeFiles giving each identity of a name its own name, the entry and
// the partition). The same
// result twice is kept once, the first record unless a later one adds the
// test metrics it lacks; two different results (resultDiff) are a
// *DuplicateJobError naming both places and what differs.
type jobSet struct {
	recs []Record
	at   []RecordPos // where each of recs was read
	seen map[Key]int // index in recs
}

func (s *jobSet) add(r Record, at RecordPos) error {
	if s.seen == nil {
		s.seen = map[Key]int{}
	}
	i, dup := s.seen[r.Key()]
	if !dup {
		s.seen[r.Key()] = len(s.recs)
		s.recs, s.at = append(s.recs, r), append(s.at, at)
		return nil
	}
	if d := resultDiff(&s.recs[i], &r); len(d) > 0 {
		return &DuplicateJobError{Key: r.Key(), First: s.at[i].File, FirstLine: s.at[i].Line,
			Then: at.File, ThenLine: at.Line, Diff: d}
	}
	if s.recs[i].TestConfusion == nil && r.TestConfusion != nil {
		s.recs[i], s.at[i] = r, at // the one that keeps the test metrics
	}
	return nil
}

// resultDiff lists what differs between two records of one job, by their
// JSON fields: none when they hold the same result. Aside are the wall
// time (a job run again gives the same record), how the run was invoked
// (the provenance's command line and version: other --out, --shard,
// --workers or --resume compute the same job; its read options as spelled), the test confusion matrix
// and AUC when one of them lacks them (written before they were kept),
// the gamma space when one lacks it (written before it was recorded), the
// provenance when one lacks it,
// the memorising check (derived from the other fields), and, for records
// of two different runs (which only MergeFiles merges,
// after checking their settings pair by pair), what identifies the run:
// its id, settings, provenance and grid.
func resultDiff(a, b *Record) []string {
	x, y := *a, *b
	x.Seconds, y.Seconds, x.SharedSeconds, y.SharedSeconds = 0, 0, 0, 0
	for _, r := range []*Record{&x, &y} {
		// The memorising check is computed from the record's other
		// fields (RecordMemorisation); a record written before it was
		// recorded lacks it.
		r.SVShare, r.HeldOut, r.HeldOutAccuracy, r.Memorising = 0, "", 0, false
		if a.Run != b.Run {
			r.Run, r.Settings, r.Provenance, r.Grid = "", nil, nil, nil
		} else if r.Provenance != nil {
			p := *r.Provenance
			p.Command, p.Version = "", ""
			if p.Data != nil {
				// The read options as spelled: a default spelled out
				// (--features 13 on 13 features) reads the same data;
				// what they resolved to (format, features, labels, rows)
				// is the rest of Data (issue 42, item 16).
				d := *p.Data
				d.Read = nil
				p.Data = &d
			}
			r.Provenance = &p
		}
	}
	if x.TestConfusion == nil || y.TestConfusion == nil {
		x.TestConfusion, y.TestConfusion, x.TestAUC, y.TestAUC = nil, nil, nil, nil
	}
	if x.Provenance == nil || y.Provenance == nil {
		// One written without provenance: it says nothing to compare.
		x.Provenance, y.Provenance = nil, nil
	}
	if x.GammaSpace == "" || y.GammaSpace == "" {
		x.GammaSpace, y.GammaSpace = "", ""
	}
	fields := func(r *Record) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		b, err := json.Marshal(r)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			return map[string]json.RawMessage{"(unencodable)": json.RawMessage(err.Error())}
		}
		return m
	}
	mx, my := fields(&x), fields(&y)
	var out []string
	for _, k := range keysOfBoth(mx, my) {
		vx, vy := mx[k], my[k]
		if bytes.Equal(vx, vy) {
			continue
		}
		if len(vx) > 40 || len(vy) > 40 {
			out = append(out, k)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s vs %s", k, cmp.Or(string(vx), "(none)"), cmp.Or(string(vy), "(none)")))
	}
	return out
}

// Merge combines sets of records of one run (the shards of a run, or a
// resumed file's records and the new ones) by the rules of every merge
// (mergeSets): the runs must match (ErrMixedRuns), a job present twice
// counts once when the two hold the same result; otherwise the error is a
// *DuplicateJobError naming both ("record set K").
func Merge(sets ...[]Record) ([]Record, error) {
	rs := make([]recordSet, len(sets))
	run := ""
	for k, set := range sets {
		for _, r := range set {
			if run == "" {
				run = r.Run
			} else if r.Run != run {
				return nil, fmt.Errorf("%w (%s and %s)", ErrMixedRuns, run, r.Run)
			}
		}
		rs[k] = recordSet{name: fmt.Sprintf("record set %d", k+1), recs: set}
	}
	return mergeSets(rs)
}

// recordSet is a set of records to merge and where each was read (at; nil
// outside a file).
type recordSet struct {
	name string
	recs []Record
	at   []RecordPos
}

// mergeSets is the one merge path (Merge, MergeFiles): every record goes
// through one jobSet, in order; when the records span several runs (which
// MergeFiles checks pair by pair before) every record gets the union of
// their grids (of every record read, a duplicate's too), so that the
// report counts the jobs of all of them. The records are returned sorted
// (SortRecords).
func mergeSets(sets []recordSet) ([]Record, error) {
	var (
		jobs jobSet
		all  []Record
		runs = map[string]bool{}
	)
	for _, s := range sets {
		for i, r := range s.recs {
			at := RecordPos{File: s.name}
			if s.at != nil {
				at = s.at[i]
			}
			if err := jobs.add(r, at); err != nil {
				return nil, err
			}
			runs[r.Run] = true
		}
		all = append(all, s.recs...)
	}
	out := jobs.recs
	if len(runs) > 1 {
		g := unionGrid(all) // a duplicate's run planned its jobs too
		for i := range out {
			out[i].Grid = g
		}
	}
	SortRecords(out)
	return out, nil
}
