package experiment

import (
	"context"
	"encoding/json"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// identitiesOf returns the identity of each dataset of the records of file,
// checking that every record carries one, that it is the hash of the
// dataset identity it carries, and that the records of a name share it.
func identitiesOf(t *testing.T, file string) map[string]Identity {
	t.Helper()
	rs, err := ReadRecordsFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]Identity{}
	for _, r := range rs {
		if r.Identity == "" || r.DatasetIdentity == nil || r.DatasetIdentity.ID() != r.Identity {
			t.Errorf("%s: %s/%s/%d: identity %q, dataset identity %+v", file, r.Dataset, r.Entry, r.Partition, r.Identity, r.DatasetIdentity)
		}
		if id, ok := out[r.Dataset]; ok && id != r.Identity {
			t.Errorf("%s: %s has identities %s and %s", file, r.Dataset, id, r.Identity)
		}
		out[r.Dataset] = r.Identity
	}
	return out
}

// Every record carries its dataset's identity: the same for the same
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

// The default normalisation (auto) fits a z-score on dense data and maxabs
// on sparse data; a dataset's identity names what it resolved to for that
// dataset: heart run beside a sparse dataset (dna) is the heart run alone,
// the two runs merge (their shared heart/svm jobs once), and dna with
// --normalize maxabs is dna with auto.
func TestAutoNormalizationIsWhatItMeantForTheDataset(t *testing.T) {
	t.Parallel()
	dna := DatasetSettings{Path: "../../testdata/multiclass/dna.scale", Name: "dna", Partitions: 2, TrainSize: 40, TestSize: 40,
		Read: dataio.ReadOptions{Positive: "3", Features: 180}}
	alone := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	mixed := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", ""), dna}})
	sparse := runTo(t, CompareSettings{Datasets: []DatasetSettings{dna}})
	maxabs := runTo(t, CompareSettings{Normalize: dataio.MaxAbs, Datasets: []DatasetSettings{dna}})
	idAlone, idMixed, idSparse, idMaxAbs := identitiesOf(t, alone), identitiesOf(t, mixed), identitiesOf(t, sparse), identitiesOf(t, maxabs)
	if idMixed["heart"] != idAlone["heart"] || idMixed["dna"] != idSparse["dna"] || idAlone["heart"] == idSparse["dna"] || idMaxAbs["dna"] != idSparse["dna"] {
		t.Errorf("identities: heart alone %s, beside dna %s; dna alone %s, beside heart %s, with maxabs %s", idAlone["heart"], idMixed["heart"], idSparse["dna"], idMixed["dna"], idMaxAbs["dna"])
	}
	rs, err := ReadRecordsFile(mixed)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rs {
		if want := map[string]string{"heart": dataio.ZScore, "dna": dataio.MaxAbs}[r.Dataset]; r.DatasetIdentity.Normalize != want {
			t.Errorf("%s: normalize %s, want %s", r.Dataset, r.DatasetIdentity.Normalize, want)
		}
	}
	for _, files := range [][]string{{alone, mixed}, {mixed, alone}, {sparse, mixed}} {
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
