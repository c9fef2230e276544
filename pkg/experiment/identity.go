package experiment

// A dataset's identity: what it is (its data, how it was read, partitioned
// and normalised), as opposed to its display name. report merges the
// records of one name only when they are of one identity, so that a table
// never averages, and a paired test never pairs, partitions of different
// data (issue 34).

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Identity is a dataset's identity as one comparable value: a hash of its
// identity fields (DatasetIdentity), 12 hex digits. Compare computes it once
// per dataset when the run is set up (Config.Identity) and writes it into
// every record; a record written before identities were recorded gets it
// from its settings and provenance by the same function (RecordIdentity),
// so that the two agree — but for a dense dataset of a run whose settings
// name the normalisation auto (the run held a sparse dataset): what auto
// meant for it, a z-score, is in the identity alone (PairSettings), and an
// older record of such a run derives "auto" (MergeFiles gives it the
// run's, normalizations). Records, resume and merge key a job by it with the
// dataset's name (Key); the name is for display. "" is the identity of a
// record without settings (written before they were recorded): such a
// record is keyed by its name alone, and merges only within its run.
type Identity string

// identityOf hashes identity fields (nil: no identity, "").
func identityOf(fields map[string]string) Identity {
	if fields == nil {
		return ""
	}
	b, _ := json.Marshal(fields) // a map's keys are written sorted
	h := sha256.Sum256(b)
	return Identity(hex.EncodeToString(h[:6]))
}

// RecordIdentity returns the identity of r's dataset: the one it carries,
// or for a record written before identities were recorded, the one its
// settings and provenance give ("" for a record without settings).
func RecordIdentity(r *Record) Identity {
	if r.Identity != "" {
		return r.Identity
	}
	return identityOf(DatasetIdentity(r))
}

// Identity keys, as a user knows them (DatasetIdentity): dataio's
// (dataio.Partitioned.Identity).
const (
	IDData       = dataio.IDData
	IDTest       = dataio.IDTest
	IDEncoding   = dataio.IDEncoding
	IDRead       = dataio.IDRead
	IDPartitions = dataio.IDPartitions
	IDSeed       = dataio.IDSeed
	IDNormalize  = dataio.IDNormalize
	IDSource     = dataio.IDSource
	IDMulticlass = dataio.IDMulticlass
	IDPreset     = dataio.IDPreset
)

// DatasetIdentity returns the identity of r's dataset, by the names of
// what makes it (IDData, IDRead, IDPartitions, ...): the SHA-256 of its
// data and test file, how it was read, how its partitions were drawn
// (sizes or fractions, stratified, a given test file; not how many, since
// partition k is drawn from the seed and k alone), the seed and the
// normalisation. It is read from the record's settings and provenance and
// is nil for a record without settings (written before they were
// recorded: such files merge only within one run, OtherFileRunError).
// The normalisation is what it meant for the dataset (PairSettings): the
// default, auto, on a dense dataset is "zscore", whether or not the run
// held a sparse dataset too.
func DatasetIdentity(r *Record) map[string]string {
	return identityFields(r, PairSettings(r))
}

// identityFields is DatasetIdentity of r with its pair settings ps.
func identityFields(r *Record, ps map[string]string) map[string]string {
	if ps == nil {
		return nil
	}
	id := map[string]string{}
	if v, ok := ps["seed"]; ok {
		id[IDSeed] = v
	}
	if v, ok := ps["normalize"]; ok {
		id[IDNormalize] = v
	}
	if v, ok := ps["source"]; ok {
		hashed := false
		for _, f := range strings.Split(v, "/") {
			switch {
			case isSHA256(f) && !hashed:
				id[IDData], hashed = f, true
			case strings.HasPrefix(f, "test="):
				id[IDTest] = strings.TrimPrefix(f, "test=")
			case f == "onehot":
				id[IDEncoding] = "one-hot"
			}
		}
		if !hashed {
			// A source given in Go (no file, no hash): its name is all
			// that identifies it.
			name, _, _ := strings.Cut(v, "/")
			id[IDSource] = name
		}
	}
	if p := r.Provenance; p != nil && p.Data != nil {
		if p.Data.SHA256 != "" {
			id[IDData] = p.Data.SHA256
		}
		if p.Data.TestSHA256 != "" {
			id[IDTest] = p.Data.TestSHA256
		}
	}
	if v, ok := ps["read"]; ok {
		id[IDRead] = v
	}
	if v, ok := ps["dataset"]; ok {
		// A study dataset's key (dataio.DatasetSpec.KeyWith): its read
		// options and partition settings, "k=v" joined by spaces.
		var part, read []string
		for _, kv := range splitKV(v) {
			k, _, _ := strings.Cut(kv, "=")
			switch k {
			case "partitions":
			case "train-size", "test-size", "train-fraction", "stratified", "test", "splits":
				part = append(part, kv)
			default:
				read = append(read, kv)
			}
		}
		id[IDPartitions] = strings.Join(part, " ")
		if _, ok := id[IDRead]; !ok {
			id[IDRead] = strings.Join(read, " ")
			if len(read) == 0 {
				id[IDRead] = "(defaults)"
			}
		}
	}
	if v, ok := ps["describe.partitions"]; ok {
		// "SPLITS/K/TRAIN/TEST/FRACTION/STRATIFIED" of a run that is not
		// in a study's form (predefined splits): all but K.
		f := strings.Split(v, "/")
		if len(f) > 1 {
			f = slices.Delete(f, 1, 2)
		}
		id[IDPartitions] = strings.Join(f, "/")
	}
	if v, ok := ps["describe.test"]; ok {
		f := strings.Split(v, "/")
		id[IDPartitions] += " test=given/" + strings.Join(f[max(0, len(f)-2):], "/")
	}
	if v, ok := ps["describe.multiclass"]; ok {
		if _, read := id[IDRead]; !read {
			// The read options say it too (multiclass=ovr) where they are
			// known: one key, so that a run of files with the flags and a
			// study's run of the same data have one identity.
			id[IDMulticlass] = v
		}
	}
	if v, ok := ps["describe.preset"]; ok {
		id[IDPreset] = v
	}
	return id
}

// splitKV splits dataio.DatasetSpec.KeyWith's "k=v k=v" form; a space inside a value (a
// delimiter " ") stays with its value.
func splitKV(s string) []string {
	var out []string
	for _, f := range strings.Split(s, " ") {
		if n := len(out); n > 0 && !strings.Contains(f, "=") {
			out[n-1] += " " + f
			continue
		}
		if f != "" {
			out = append(out, f)
		}
	}
	return out
}

func isSHA256(s string) bool {
	if len(s) != 64 {
		return false
	}
	for _, c := range s {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// diffIdentity lists what differs between two identities, "key a vs b",
// sorted; a key one of them lacks (an older record) is not compared.
func diffIdentity(a, b map[string]string) []string {
	var out []string
	for k, va := range a {
		if vb, ok := b[k]; ok && vb != va {
			out = append(out, fmt.Sprintf("%s %s vs %s", k, orNone(va), orNone(vb)))
		}
	}
	slices.Sort(out)
	return out
}

func orNone(v string) string {
	if v == "" {
		return "(none)"
	}
	return v
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

func (e *IdentityConflictError) Error() string { return e.Words().String() }

// Words is the message of e, naming the settings that keep the datasets
// apart (compare's name, report's split-identities).
func (e *IdentityConflictError) Words() hint.Text {
	return hint.T(fmt.Sprintf("dataset %s in %s is not the dataset %s in %s: %s; merge only records of the same data, read and partitioned the same way (give one of them another name with compare ",
		e.Dataset, e.File, e.Dataset, e.First, strings.Join(e.Diff, "; ")), hint.S("name", ""), ", or pass ", hint.S("split-identities", ""), " to report them as two datasets)")
}

func (e *IdentityConflictError) Unwrap() error { return ErrMixedRuns }

// normalizations are what the default normalisation (auto) meant for the
// datasets of runs whose settings name it "auto" (a run with a sparse
// dataset), by run and dataset name, as the records that say it
// (PairSettings) say it: the records of one run give one name to one
// dataset (the run's fingerprint holds each one's data and normalisation),
// so what one record of a run says of its dataset holds for every record
// of that run and name, those written without it (older versions) too.
type normalizations map[[2]string]string

// learnNormalizations returns what the records of sets say auto meant.
func learnNormalizations(sets ...[]Record) normalizations {
	n := normalizations{}
	for _, rs := range sets {
		for i := range rs {
			r := &rs[i]
			if r.Settings["normalize"] != dataio.Auto {
				continue
			}
			ps := PairSettings(r)
			if v := ps["normalize"]; v != dataio.Auto {
				n[[2]string{r.Run, r.Dataset}] = v
			} else if sparseAuto(r, identityFields(r, ps)) {
				// auto was maxabs: the dataset was sparse (issue 42,
				// item 16: --normalize maxabs is the same run).
				n[[2]string{r.Run, r.Dataset}] = dataio.MaxAbs
			}
		}
	}
	return n
}

// pairSettings is PairSettings of r, with what auto meant for its dataset
// where another record of its run says it.
func (n normalizations) pairSettings(r *Record) map[string]string {
	ps := PairSettings(r)
	if v, ok := n[[2]string{r.Run, r.Dataset}]; ok && ps["normalize"] == dataio.Auto {
		ps["normalize"] = v
	}
	return ps
}

// identityCheck remembers the identities met under each dataset name while
// merging the records of several files.
type identityCheck struct {
	split bool
	seen  map[string][]identitySeen // by the name in the files
	// taken are the names a split may not give (every name in the
	// records, and those given): a user's own "heart#2" is not the
	// name of another identity of heart (issue 42, item 18).
	taken map[string]bool
	// unchecked are notes of what two files' records of one dataset
	// could not be compared on (noteUnchecked), once per (name, file).
	unchecked []string
	noted     map[[2]string]bool
}

// noteUnchecked notes that the records of name in file were merged with
// those of first without comparing fields (one of them does not say them:
// written without provenance).
func (c *identityCheck) noteUnchecked(name, file, first string, fields []string) {
	if c.noted == nil {
		c.noted = map[[2]string]bool{}
	}
	if key := [2]string{name, file}; !c.noted[key] {
		c.noted[key] = true
		c.unchecked = append(c.unchecked, fmt.Sprintf("note: dataset %s of %s merged with that of %s without checking its %s (the records of one of them do not say them: written without provenance)",
			name, file, first, strings.Join(fields, ", ")))
	}
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
	fields map[string]string
	id     Identity
	file   string
	name   string // the name given to the records of this identity
}

// add checks r (from file; ps its pair settings,
// normalizations.pairSettings) against the identities of its name met
// before, and returns the name and identity its records are given: its own
// name for the first identity of a name, "NAME#2", "NAME#3", ... for others
// when split (the first of these no record's name, c.taken) (an *IdentityConflictError otherwise); the identity of the
// first record of its identity, so that the records of one dataset share
// one key where an older record (which lacks some of the fields: those it
// has agree) met a newer one.
//
// Identities are compared as they resolve (canonicalIdentity: a read
// option or normalisation that spells what the default resolved to is the
// default); the identity returned is still the hash of the fields as
// spelled (identityOf), so that no record's identity changes.
//
// A record that lacks some of the fields agrees with those it has; the
// fields of an identity are all its records': a record is checked against
// every field its identity's records gave, so that two records that differ
// in a field are never one dataset because the first of the name lacked it.
func (c *identityCheck) add(r *Record, file string, ps map[string]string) (string, Identity, error) {
	fields := identityFields(r, ps)
	if fields == nil {
		return r.Dataset, r.Identity, nil
	}
	if c.seen == nil {
		c.seen = map[string][]identitySeen{}
	}
	ids := c.seen[r.Dataset]
	canon := canonicalIdentity(r, fields) // compared as they resolve; fields hashed
	for _, s := range ids {
		if len(diffIdentity(s.fields, canon)) == 0 {
			if u := uncheckedIdentity(s.fields, canon); len(u) > 0 {
				c.noteUnchecked(r.Dataset, file, s.file, u)
			}
			for k, v := range canon {
				if _, ok := s.fields[k]; !ok {
					s.fields[k] = v
				}
			}
			return s.name, s.id, nil
		}
	}
	if len(ids) > 0 && !c.split {
		return "", "", &IdentityConflictError{Dataset: r.Dataset, File: file, First: ids[0].file, Diff: diffIdentity(ids[0].fields, canon)}
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
	id := cmp.Or(r.Identity, identityOf(fields))
	c.seen[r.Dataset] = append(ids, identitySeen{canon, id, file, name})
	return name, id, nil
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
	norm := learnNormalizations(rs)
	ic := identityCheck{split: true}
	ic.take(rs)
	for i := range rs {
		name, _, _ := ic.add(&rs[i], "run "+rs[i].Run, norm.pairSettings(&rs[i])) // no error when split
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
// (a record without one, written before identities, has yet to be checked).
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
