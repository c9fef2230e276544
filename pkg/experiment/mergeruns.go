package experiment

// Merging the records of different runs: allowed when no (dataset, method)
// pair was run with different settings.

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// PairSettings returns the settings of r's run that bear on its (dataset,
// entry) pair: the shared ones (seed, normalisation, the methods' shared
// settings, the protocol), its entry's own settings ("entry", "entry.Rho",
// ...) and its dataset's ("source": name, partitions and SHA-256 of the
// data; "dataset": the read options and partition sizes of a study's
// dataset; "read": the read options the provenance records), but not the
// other datasets and entries of the run, nor the data files' paths: a
// dataset is identified by its content and how it was read. It returns nil
// for a record without settings (written before they were recorded).
//
// "normalize" is what the run's normalisation meant for r's dataset. The
// run's settings name it once for the run (Config.fingerprintNormalize:
// the default, auto, is "zscore" when none of the run's datasets is
// sparse, "auto" otherwise), but auto fits a z-score on a dense dataset
// whatever else the run holds: a dense dataset of a run with a sparse one
// says "zscore", as the run of it alone does. The settings cannot say
// which datasets were dense, so the record's identity does: Config.identities
// hashes the normalisation each dataset's run alone would name, and a record
// whose identity is that of "zscore" is given "zscore". A record without an
// identity, or written before the identity said it (its identity hashes
// "auto"), keeps "auto": nothing in it says what auto meant (MergeFiles
// learns it from the run's other records, normalizations).
func PairSettings(r *Record) map[string]string {
	ps := runPairSettings(r)
	if ps["normalize"] == dataio.Auto && r.Identity != "" {
		z := maps.Clone(ps)
		z["normalize"] = dataio.ZScore
		if identityOf(identityFields(r, z)) == r.Identity {
			return z
		}
	}
	return ps
}

// runPairSettings is PairSettings with the run's normalisation as its
// settings name it.
func runPairSettings(r *Record) map[string]string {
	if r.Settings == nil {
		return nil
	}
	out := map[string]string{}
	index := func(k, prefix string) (int, string, bool) {
		rest, ok := strings.CutPrefix(k, prefix)
		if !ok {
			return 0, "", false
		}
		num, field, _ := strings.Cut(rest, ".")
		i, err := strconv.Atoi(num)
		return i, field, err == nil
	}
	for k, v := range r.Settings {
		if i, field, ok := index(k, "entry."); ok {
			if r.Grid != nil && i < len(r.Grid.Entries) && r.Grid.Entries[i] == r.Entry {
				out[strings.TrimSuffix("entry."+field, ".")] = v
			}
			continue
		}
		if i, _, ok := index(k, "source."); ok {
			if r.Grid != nil && i < len(r.Grid.Datasets) && r.Grid.Datasets[i].Name == r.Dataset {
				out["source"] = v
			}
			continue
		}
		if i, _, ok := index(k, "describe.dataset."); ok {
			if r.Grid != nil && i < len(r.Grid.Datasets) && r.Grid.Datasets[i].Name == r.Dataset {
				out["dataset"] = v
			}
			continue
		}
		if k == "describe.data" || strings.HasPrefix(k, "describe.baseline:") && k != "describe.baseline:"+r.Dataset {
			continue // the paths of the files; other datasets' baselines
		}
		out[k] = v
	}
	if r.Provenance != nil && r.Provenance.Data != nil {
		read := r.Provenance.Data.Read
		out["read"] = dataio.ReadKey(read)
		if ds, ok := plainDataset(out); ok {
			// A run of DATA files with the flags: its partition settings
			// in a study dataset's form, so that it merges with a study.
			delete(out, "describe.partitions")
			delete(out, "describe.test")
			delete(out, "describe.name")
			out["dataset"] = ds.KeyWith(read)
		}
	}
	return out
}

// plainDataset reads the partition settings of a run without a study
// (describe.partitions "random/K/TRAIN/TEST/FRACTION/STRATIFIED",
// describe.test "PATH/PARTITIONS-GIVEN/TRAIN-SIZE-GIVEN") as a study
// dataset's.
func plainDataset(kv map[string]string) (DatasetSettings, bool) {
	var (
		d      DatasetSettings
		splits string
	)
	p, ok := kv["describe.partitions"]
	if !ok {
		return d, false
	}
	f := strings.Split(p, "/")
	if len(f) != 6 {
		return d, false
	}
	splits = f[0]
	_, err := fmt.Sscan(strings.Join(f[1:], " "), &d.Partitions, &d.TrainSize, &d.TestSize, &d.TrainFraction, &d.Stratified)
	if err != nil || splits != "random" {
		return d, false
	}
	if t, ok := kv["describe.test"]; ok {
		f := strings.Split(t, "/")
		if len(f) < 3 {
			return d, false
		}
		d.Test = "given"
		d.PartitionsGiven, d.TrainSizeGiven = f[len(f)-2] == "true", f[len(f)-1] == "true"
		d.TrainFraction = 0
	}
	return d, true
}

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
// the names a user knows (the flag's field without "base." or "describe.").
func diffPair(a, b map[string]string) []hint.Text {
	var out []hint.Text
	for _, k := range keysOfBoth(a, b) {
		va, oka := a[k]
		vb, okb := b[k]
		if oka && okb && va == vb {
			continue
		}
		out = append(out, hint.T(settingName(k), fmt.Sprintf(" %s vs %s", orDefault(va, oka), orDefault(vb, okb))))
	}
	return out
}

// settingKeys are the names (a study file's keys, the command line's
// flags) of the methods' settings the fingerprint names by their Go field
// (methods.Common's, the entries' own).
var settingKeys = map[string]string{
	"C": "C", "Folds": "folds", "Eps": "eps", "CacheMB": "cache-mb", "GridRows": "grid-rows",
	"Budget": "budget", "MaxIter": "max-iter", "Workers": "workers", "Seed": "seed",
	"Log2C": "log2c", "Log2Gamma": "log2g",
	"WeightPos": "weight-pos", "WeightNeg": "weight-neg", "ClassWeight": "class-weight",
}

// settingName is the name a user knows of the setting key k: the setting
// (hint.Setting) of a method setting that has one ("entry.Budget" and
// "base.Budget" are budget), else the key without "base." or "describe.".
func settingName(k string) any {
	field := strings.TrimPrefix(strings.TrimPrefix(k, "base."), "entry.")
	if key, ok := settingKeys[field]; ok && field != k {
		return hint.S(key, "")
	}
	return strings.TrimPrefix(strings.TrimPrefix(k, "base."), "describe.")
}

// pairCheck remembers the settings of each (dataset, entry) pair met while
// merging the records of several runs.
type pairCheck struct {
	seen map[[2]string]pairSeen
}

type pairSeen struct {
	settings map[string]string
	file     string
}

// add checks r (from file; ps its pair settings,
// normalizations.pairSettings) against the records of its pair met before.
func (c *pairCheck) add(r *Record, file string, ps map[string]string) error {
	if c.seen == nil {
		c.seen = map[[2]string]pairSeen{}
	}
	ps = resolvedData(r, dataSettings(ps))
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

// dataSettings returns pair settings ps as they resolve, not as a run
// spelled them (issue 42, items 9 and 16): grid.py's grid given as
// --log2c -5,15,2 --log2g 3,-15,-2 is no grid given; and as they bear on
// the data, not on how the run named it or how many partitions it drew: the "source" of a dataset with a hash (NAME/K/SHA256...) without
// its name and number of partitions, since its identity (MergeFiles: one
// identity is one dataset, under its first name) is its data, and
// partition k is drawn from the seed and k alone, so that a run of more
// partitions adds partitions to the same jobs. A run's own count is in its
// grid (unionGrid keeps the largest). ps is not changed.
func dataSettings(ps map[string]string) map[string]string {
	out := maps.Clone(ps)
	for _, k := range []string{"entry.Log2C", "entry.Log2Gamma", "base.Log2C", "base.Log2Gamma"} {
		// grid.py's grid spelled out (--log2c -5,15,2): the default.
		if v, ok := out[k]; ok && methods.DefaultGrid(v, strings.HasSuffix(k, "Gamma")) {
			delete(out, k)
		}
	}
	src, ok := out["source"]
	if !ok {
		return out
	}
	f := strings.Split(src, "/")
	if len(f) < 3 || !isSHA256(f[2]) {
		return out // a source given in Go: its name is its identity
	}
	out["source"] = strings.Join(f[2:], "/")
	if ds, ok := out["dataset"]; ok { // a study dataset's key: "partitions=K ..."
		out["dataset"] = strings.Join(slices.DeleteFunc(splitKV(ds), func(kv string) bool { return strings.HasPrefix(kv, "partitions=") }), " ")
	}
	if dp, ok := out["describe.partitions"]; ok { // "SPLITS/K/TRAIN/TEST/FRACTION/STRATIFIED"
		if f := strings.Split(dp, "/"); len(f) > 1 {
			out["describe.partitions"] = strings.Join(slices.Delete(f, 1, 2), "/")
		}
	}
	return out
}

// resolvedData returns r's pair settings ps (dataSettings's) with what
// concerns the data as it resolves (issue 42, item 16): how it was read
// and partitioned left out ("read", a study dataset's key, a run of files'
// "describe.partitions" and "describe.test"), since identityCheck compares
// them as they resolve (canonicalIdentity: a spelled default, a record
// written without provenance) before any pair is checked, and a
// normalisation auto that meant maxabs named maxabs. ps is changed.
func resolvedData(r *Record, ps map[string]string) map[string]string {
	if ps["normalize"] == dataio.Auto && sparseAuto(r, identityFields(r, ps)) {
		ps["normalize"] = dataio.MaxAbs
	}
	for _, k := range []string{"read", "dataset", "describe.partitions", "describe.test"} {
		delete(ps, k)
	}
	return ps
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
				// is the same in each (dataSettings).
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
