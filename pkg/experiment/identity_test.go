package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// identitiesOf returns the identity of each dataset of the records of file,
// checking that every record carries one, that it hashes the fields the
// record gives (DatasetIdentity), and that it is the one a record written
// before identities were recorded derives from its settings and provenance
// (RecordIdentity of the record without it) — but where the run's settings
// name the normalisation auto and it meant a z-score for this dataset,
// which only the identity says.
func identitiesOf(t *testing.T, file string) map[string]Identity {
	t.Helper()
	rs, err := ReadRecordsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Identity{}
	for _, r := range rs {
		old := r
		old.Identity = ""
		resolved := r.Settings["normalize"] == dataio.Auto && DatasetIdentity(&r)[IDNormalize] == dataio.ZScore
		if r.Identity == "" || identityOf(DatasetIdentity(&r)) != r.Identity || RecordIdentity(&old) != r.Identity && !resolved {
			t.Errorf("%s: %s/%s/%d: identity %q, derived from its settings %q", file, r.Dataset, r.Entry, r.Partition, r.Identity, RecordIdentity(&old))
		}
		if id, ok := out[r.Dataset]; ok && id != r.Identity {
			t.Errorf("%s: %s has identities %s and %s", file, r.Dataset, id, r.Identity)
		}
		out[r.Dataset] = r.Identity
	}
	return out
}

// Every record carries its dataset's identity, the one older records derive
// (so that they resume and merge with newer ones): the same for the same
// data read and partitioned the same way, whether given as files with the
// flags or as a study's dataset, whatever its display name; another for
// other data, reading or partitions.
func TestIdentityIsTheDatasetsNotItsName(t *testing.T) {
	t.Parallel()
	sizes := DatasetSettings{Partitions: 2, TrainSize: 40, TestSize: 40}
	plain := func(path string, d DatasetSettings) string {
		return runTo(t, CompareSettings{Datasets: FileSpecs([]string{path}, d)})
	}
	study := func(d DatasetSettings) string { return runTo(t, CompareSettings{Datasets: []DatasetSettings{d}}) }
	heart := identitiesOf(t, plain("builtin:heart", sizes))["heart"]
	renamed := sizes
	renamed.Name = "cor"
	h2 := sizes
	h2.Path = "builtin:heart"
	if got := identitiesOf(t, plain("builtin:heart", renamed))["cor"]; got != heart {
		t.Errorf("heart named cor: identity %s, heart's %s", got, heart)
	}
	if got := identitiesOf(t, study(h2))["heart"]; got != heart {
		t.Errorf("heart in a study: identity %s, as files %s", got, heart)
	}
	diabetes := sizes
	diabetes.Name = "heart"
	stratified := sizes
	stratified.Stratified = true
	seen := map[Identity]string{heart: "heart"}
	for _, c := range []struct {
		name string
		s    CompareSettings
	}{
		{"other data", CompareSettings{Datasets: FileSpecs([]string{"builtin:diabetes"}, diabetes)}},
		{"stratified", CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, stratified)}},
		{"other seed", CompareSettings{Seed: 3, Datasets: FileSpecs([]string{"builtin:heart"}, sizes)}},
		{"normalize", CompareSettings{Normalize: "none", Datasets: FileSpecs([]string{"builtin:heart"}, sizes)}},
		{"read option", CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 40, TestSize: 40, Read: dataio.ReadOptions{Positive: "-1"}})}},
		// Generated data: the preset and its source's name.
		{"preset", CompareSettings{Preset: PresetRun{Name: "laanaya-weston", Partitions: 1, TrainSize: 40, TestSize: 40}}},
	} {
		id := identitiesOf(t, runTo(t, c.s))
		if len(id) != 1 {
			t.Fatalf("%s: identities %v", c.name, id)
		}
		for _, v := range id {
			if other, dup := seen[v]; v == "" || dup {
				t.Errorf("%s: identity %q, also %s's", c.name, v, other)
			}
			seen[v] = c.name
		}
	}
	// A one-hot encoded, a one-vs-rest multi-class and a given test file's
	// dataset, as files and in a study: one identity each.
	for _, d := range []DatasetSettings{
		{Path: "../../testdata/arff/breast-cancer.arff", Partitions: 1, TrainSize: 40, TestSize: 40, Read: dataio.ReadOptions{Categorical: "codes", Missing: "drop"}},
		{Path: "../../testdata/arff/iris.arff", Partitions: 1, TrainFraction: 0.5, Read: dataio.ReadOptions{Multiclass: dataio.OneVsRest}},
		{Path: "../../testdata/multiclass/dna.scale", Test: "../../testdata/multiclass/dna.scale.t", Partitions: 1, TrainSize: 40, TrainSizeGiven: true,
			Read: dataio.ReadOptions{Positive: "3", Features: 180}},
	} {
		a, b := identitiesOf(t, plain(d.Path, d)), identitiesOf(t, study(d))
		if len(a) != 1 || !maps.Equal(a, b) {
			t.Errorf("%s: as files %v, in a study %v", d.Path, a, b)
		}
	}
}

// The identity of a dataset Compare opens (dataio.Partitioned.Identity)
// is the one its records derive (identitiesOf checks it) for the kinds of
// partitions whose descriptions differ between a list of files and a
// study: predefined realisations, a list's test file with a training
// fraction, two files of one name told apart by their paths.
func TestOpenedIdentityIsWhatRecordsDerive(t *testing.T) {
	t.Parallel()
	ida := DatasetSettings{Path: "../../testdata/ida/breast-cancer", Partitions: 2, Predefined: true}
	test := DatasetSettings{Path: "../../testdata/multiclass/dna.scale", Test: "../../testdata/multiclass/dna.scale.t", Partitions: 1,
		TrainSize: 40, TrainSizeGiven: true, TrainFraction: 0.5, Read: dataio.ReadOptions{Positive: "3", Features: 180}}
	dir := t.TempDir()
	heart, err := os.ReadFile("../../testdata/uci/heart.dat")
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(heart), "\n")
	for i, sub := range []string{"a", "b"} {
		if err := os.MkdirAll(filepath.Join(dir, sub), 0o755); err != nil {
			t.Fatal(err)
		}
		text := strings.Join(lines[:len(lines)-i*100], "") // b: other data
		if err := os.WriteFile(filepath.Join(dir, sub, "heart.dat"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	two := []string{filepath.Join(dir, "a", "heart.dat"), filepath.Join(dir, "b", "heart.dat")}
	for _, c := range []struct {
		name string
		s    CompareSettings
		n    int // identities
	}{
		{"predefined as files", CompareSettings{Datasets: FileSpecs([]string{ida.Path}, ida)}, 1},
		{"predefined in a study", CompareSettings{Datasets: []DatasetSettings{ida}}, 1},
		{"test file as files", CompareSettings{Datasets: FileSpecs([]string{test.Path}, test)}, 1},
		{"two files of one name", CompareSettings{Datasets: FileSpecs(two, ds("", ""))}, 2},
	} {
		if id := identitiesOf(t, runTo(t, c.s)); len(id) != c.n {
			t.Errorf("%s: identities %v", c.name, id)
		}
	}
}

// Two datasets of one name are two datasets: a file holding the records of
// two runs that both name their data heart (one of them diabetes) is read
// as two datasets' jobs (before the identity: the same job twice with
// different results), merged only as heart and heart#2 — each with its own
// records, never averaged in one row — and otherwise refused.
func TestTwoIdentitiesOfOneNameAreNeverOneDataset(t *testing.T) {
	t.Parallel()
	heart := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	other := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:diabetes", "heart")}})
	both := filepath.Join(t.TempDir(), "both.jsonl")
	var b []byte
	for _, f := range []string{heart, other} {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		b = append(b, data...)
	}
	if err := os.WriteFile(both, b, 0o644); err != nil {
		t.Fatal(err)
	}
	rs, err := ReadRecordsFile(both)
	if err != nil || len(rs) != 4 {
		t.Fatalf("%d records, %v; want 4 (2 partitions of 2 datasets)", len(rs), err)
	}
	var ie *IdentityConflictError
	if _, err := MergeFiles(context.Background(), MergeSettings{Files: []string{both}}); !errors.As(err, &ie) {
		t.Errorf("merge without split: %v, want an *IdentityConflictError", err)
	}
	want := map[string][]float64{"heart": accuracies(t, heart), "heart#2": accuracies(t, other)}
	for _, files := range [][]string{{both}, {heart, other}} {
		res, err := MergeFiles(context.Background(), MergeSettings{Files: files, SplitIdentities: true})
		if err != nil {
			t.Fatal(err)
		}
		got := map[string][]float64{}
		ids := map[string]Identity{}
		for _, r := range res.Records {
			got[r.Dataset] = append(got[r.Dataset], r.TestAccuracy)
			ids[r.Dataset] = r.Identity
		}
		if len(got) != 2 || !slices.Equal(got["heart"], want["heart"]) || !slices.Equal(got["heart#2"], want["heart#2"]) || ids["heart"] == ids["heart#2"] {
			t.Errorf("%v: accuracies %v, want %v; identities %v", files, got, want, ids)
		}
	}
}

// accuracies returns the test accuracies of file's records by partition.
func accuracies(t *testing.T, file string) []float64 {
	rs, err := ReadRecordsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	SortRecords(rs)
	var out []float64
	for _, r := range rs {
		out = append(out, r.TestAccuracy)
	}
	return out
}

// A file written before identities were recorded (records without one)
// resumes: its jobs are skipped as the run's own, the new records carry
// the identity, and the file reads and merges whole.
func TestResumeRecordsWithoutIdentity(t *testing.T) {
	t.Parallel()
	s := CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}}
	full := runTo(t, s)
	rs, err := ReadRecordsFile(full)
	if err != nil {
		t.Fatal(err)
	}
	SortRecords(rs)
	id := rs[0].Identity
	old := rs[0]
	old.Identity = ""
	line, err := json.Marshal(&old)
	if err != nil {
		t.Fatal(err)
	}
	s.Out = filepath.Join(t.TempDir(), "old.jsonl")
	if err := os.WriteFile(s.Out, append(line, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
	s.Resume, s.Entries = true, mustEntries(t, "svm")
	s.Base.Folds, s.Base.Eps, s.Base.CacheMB = 3, 1e-3, 10
	res, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if res.Resumed != 1 || len(res.Records) != 2 {
		t.Fatalf("resumed %d, %d records; want 1 and 2", res.Resumed, len(res.Records))
	}
	for i, r := range res.Records {
		if r.Identity != id || r.TestAccuracy != rs[i].TestAccuracy {
			t.Errorf("partition %d: identity %s accuracy %v, the fresh run's %s %v", r.Partition, r.Identity, r.TestAccuracy, id, rs[i].TestAccuracy)
		}
	}
	m, err := MergeFiles(context.Background(), MergeSettings{Files: []string{s.Out, full}})
	if err != nil || len(m.Records) != 2 {
		t.Errorf("merge the resumed file with the fresh run's: %v", err)
	}
}

// Merge (the shards of one run) counts a job once when one shard was
// written before identities were recorded, and leaves the caller's
// records as they are.
func TestMergeShardsWithAndWithoutIdentity(t *testing.T) {
	t.Parallel()
	rs, err := ReadRecordsFile(runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}}))
	if err != nil {
		t.Fatal(err)
	}
	old := slices.Clone(rs)
	for i := range old {
		old[i].Identity = ""
	}
	out, err := Merge(old, rs)
	if err != nil || len(out) != len(rs) {
		t.Fatalf("%d records, %v; want %d", len(out), err, len(rs))
	}
	for _, r := range out {
		if r.Identity != rs[0].Identity {
			t.Errorf("%s/%d: identity %q, want %s", r.Dataset, r.Partition, r.Identity, rs[0].Identity)
		}
	}
	if old[0].Identity != "" {
		t.Error("Merge changed the caller's records")
	}
}

// The default normalisation (auto) fits a z-score on dense data and maxabs
// on sparse data. The run's settings name it once for the run ("zscore"
// when none of its datasets is sparse, so that runs from before auto keep
// their fingerprint; "auto" otherwise), but a dataset's identity names what
// it meant for that dataset: heart run beside a sparse dataset (dna) is
// the heart run alone, and the two runs merge — their shared heart/svm jobs
// once — where they were refused for "normalize auto vs zscore". So do the
// records of the mixed run as an older kerneltune wrote them (its identity
// hashing "auto"; none at all), learning what auto meant from the run's
// newer records; the sparse dataset keeps "auto" and its identity.
func TestAutoNormalizationIsWhatItMeantForTheDataset(t *testing.T) {
	t.Parallel()
	dna := DatasetSettings{Path: "../../testdata/multiclass/dna.scale", Name: "dna", Partitions: 2, TrainSize: 40, TestSize: 40,
		Read: dataio.ReadOptions{Positive: "3", Features: 180}}
	alone := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	mixed := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", ""), dna}})
	sparse := runTo(t, CompareSettings{Datasets: []DatasetSettings{dna}})
	idAlone, idMixed, idSparse := identitiesOf(t, alone), identitiesOf(t, mixed), identitiesOf(t, sparse)
	if idMixed["heart"] != idAlone["heart"] || idMixed["dna"] != idSparse["dna"] || idAlone["heart"] == idSparse["dna"] {
		t.Errorf("identities: heart alone %s, beside dna %s; dna alone %s, beside heart %s", idAlone["heart"], idMixed["heart"], idSparse["dna"], idMixed["dna"])
	}
	rs, err := ReadRecordsFile(mixed)
	if err != nil {
		t.Fatal(err)
	}
	if rs[0].Settings["normalize"] != dataio.Auto {
		t.Fatalf("the mixed run's normalisation %q, want auto (the fingerprint's name)", rs[0].Settings["normalize"])
	}
	if got := DatasetIdentity(&rs[0])[IDNormalize]; got != map[string]string{"heart": dataio.ZScore, "dna": dataio.Auto}[rs[0].Dataset] {
		t.Errorf("%s: normalize %s", rs[0].Dataset, got)
	}
	// The mixed run's file as older versions wrote it: heart's identity
	// hashes the run's "auto" (or there is none).
	older := func(keep bool) string {
		out := slices.Clone(rs)
		for i := range out {
			old := out[i]
			old.Identity = ""
			out[i].Identity = ""
			if keep {
				out[i].Identity = RecordIdentity(&old) // "auto" hashed: nothing else says what it meant
			}
		}
		return writeRecords(t, out)
	}
	for _, files := range [][]string{{alone, mixed}, {mixed, alone}, {older(true), alone, mixed}, {older(false), alone, mixed}, {older(true), sparse, mixed}} {
		res, err := MergeFiles(context.Background(), MergeSettings{Files: files})
		if err != nil {
			t.Errorf("merge %v: %v", files, err)
			continue
		}
		if len(res.Records) != 4 || len(res.Renamed) != 0 {
			t.Errorf("merge %v: %d records, renamed %q; want 4 (2 partitions of heart and of dna, each job once)", files, len(res.Records), res.Renamed)
		}
	}
}

// writeRecords writes rs as a results file and returns its path.
func writeRecords(t *testing.T, rs []Record) string {
	t.Helper()
	var b []byte
	for i := range rs {
		line, err := json.Marshal(&rs[i])
		if err != nil {
			t.Fatal(err)
		}
		b = append(append(b, line...), '\n')
	}
	path := filepath.Join(t.TempDir(), "r.jsonl")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// A record that lacks a field of the identity (written before it was
// recorded) agrees with any value of it, but does not make two records
// that differ in it one dataset: heart read with --positive 1 and with
// --positive -1 are two datasets, whichever file comes first (each record
// of another method: no pair's settings are compared).
func TestIdentityFieldsAreEveryRecordsOfTheName(t *testing.T) {
	t.Parallel()
	rec := func(method string, read map[string]string) string {
		r := Record{Dataset: "heart", Entry: method, Method: method, Run: method, Status: "converged", TestAccuracy: 0.8,
			Settings: map[string]string{"seed": "1", "normalize": "zscore", "entry.0": method}}
		if read != nil {
			r.Provenance = &Provenance{Data: &DataProvenance{Name: "heart", Read: read}}
		}
		return writeRecords(t, []Record{r})
	}
	older, pos, neg := rec("svm", nil), rec("spd", map[string]string{"positive": "1"}), rec("gi", map[string]string{"positive": "-1"})
	for _, files := range [][]string{{older, pos, neg}, {older, neg, pos}, {pos, older, neg}} {
		var ie *IdentityConflictError
		if _, err := MergeFiles(context.Background(), MergeSettings{Files: files}); !errors.As(err, &ie) || len(ie.Diff) != 1 {
			t.Errorf("merge %v: %v, want an *IdentityConflictError on the read options", files, err)
		}
	}
	if res, err := MergeFiles(context.Background(), MergeSettings{Files: []string{older, pos}}); err != nil || len(res.Records) != 2 {
		t.Errorf("merge the older record with one reading: %v", err)
	}
}

// A study's dataset with the IDA realisations (--splits predefined) is
// another run, and another dataset, than the same study with random
// partitions of the same sizes: the two used to share their run id and
// identity, so that one's records resumed and merged into the other's.
func TestPredefinedStudyIsAnotherRun(t *testing.T) {
	t.Parallel()
	plan := func(predefined bool) (string, Identity) {
		ds := DatasetSettings{Path: "../../testdata/ida/breast-cancer", Partitions: 2, TrainSize: 100, TestSize: 77, Predefined: predefined}
		s := CompareSettings{Entries: mustEntries(t, "probe1"), Seed: 1, Datasets: []DatasetSettings{ds}}
		res, err := Compare(context.Background(), s)
		if err != nil {
			t.Fatal(err)
		}
		return res.Run, res.Records[0].Identity
	}
	runR, idR := plan(false)
	runP, idP := plan(true)
	if runR == runP || idR == idP {
		t.Errorf("random and predefined partitions: runs %s and %s, identities %s and %s; want both different", runR, runP, idR, idP)
	}
}
