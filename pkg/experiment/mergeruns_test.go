package experiment

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// runTo runs s into a new results file and returns its path.
func runTo(t *testing.T, s CompareSettings) string {
	t.Helper()
	s.Out = filepath.Join(t.TempDir(), "r.jsonl")
	if s.Entries == nil {
		s.Entries = mustEntries(t, "svm")
	}
	if s.Base.Folds == 0 {
		s.Base = methods.Common{Folds: 3, Eps: 1e-3, CacheMB: 10}
	}
	if _, err := Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return s.Out
}

func ds(path, name string) DatasetSettings {
	return DatasetSettings{Path: path, Name: name, Partitions: 2, TrainSize: 40, TestSize: 40}
}

// Runs over different datasets merge, each record keeping its run, under
// the union of their grids; a plain run of one file merges with a study's
// run of the same data and settings, and its records equal the study's.
func TestMergeFilesOfDifferentRuns(t *testing.T) {
	t.Parallel()
	a := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	b := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:diabetes", "pima")}})
	plain := runTo(t, CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 40, TestSize: 40})})
	res, err := MergeFiles(context.Background(), MergeSettings{Files: []string{a, b, plain}})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Runs) != 2 || len(res.Records) != 4 {
		t.Fatalf("runs %v, %d records; want 2 runs, 4 records (the plain run is the study's run of heart)", res.Runs, len(res.Records))
	}
	g := res.Records[0].Grid
	if g == nil || len(g.Datasets) != 2 || g.Datasets[0].Name != "heart" || g.Datasets[1].Name != "pima" || g.Jobs() != 4 {
		t.Errorf("grid %+v", g)
	}
	plainRecs, _ := ReadRecordsFile(plain)
	studyRecs, _ := ReadRecordsFile(a)
	// A file holds the records in the order the jobs finished.
	SortRecords(plainRecs)
	SortRecords(studyRecs)
	if len(plainRecs) != 2 || len(studyRecs) != 2 {
		t.Fatalf("%d and %d records, want 2 and 2", len(plainRecs), len(studyRecs))
	}
	for i := range plainRecs {
		if plainRecs[i].TestAccuracy != studyRecs[i].TestAccuracy || plainRecs[i].NSV != studyRecs[i].NSV || plainRecs[i].Run != studyRecs[i].Run {
			t.Errorf("partition %d: plain %v/%d run %s, study %v/%d run %s", i, plainRecs[i].TestAccuracy, plainRecs[i].NSV, plainRecs[i].Run,
				studyRecs[i].TestAccuracy, studyRecs[i].NSV, studyRecs[i].Run)
		}
	}
}

// A pair run with other settings is an error naming the pair and every
// setting that differs; so is a dataset of the same name with other
// content or other read options.
func TestMergeFilesConflicts(t *testing.T) {
	t.Parallel()
	heart := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	for _, c := range []struct {
		name string
		s    CompareSettings
		want []string
	}{
		{"C", CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}, Base: methods.Common{Folds: 3, Eps: 1e-3, CacheMB: 10, C: 2}},
			[]string{"heart/svm", "--C (default) vs 2"}},
		// The dataset's identity differs: named as such (issue 34).
		{"seed and sizes", CompareSettings{Seed: 5, Datasets: []DatasetSettings{{Path: "builtin:heart", Partitions: 2, TrainSize: 30, TestSize: 40}}},
			[]string{"dataset heart in ", "seed 0 vs 5", "partitions.train_size 40 vs 30"}},
		{"content", CompareSettings{Datasets: []DatasetSettings{ds("builtin:diabetes", "heart")}},
			[]string{"dataset heart in ", "sha256 " + mustSHA(t, "builtin:heart") + " vs " + mustSHA(t, "builtin:diabetes")}},
		{"read", CompareSettings{Datasets: []DatasetSettings{{Path: "builtin:heart", Partitions: 2, TrainSize: 40, TestSize: 40, Read: dataio.ReadOptions{Positive: "-1"}}}},
			[]string{"read.labels.positive 1 vs -1", "read.labels.negative -1 vs 1"}},
	} {
		other := runTo(t, c.s)
		_, err := MergeFiles(context.Background(), MergeSettings{Files: []string{heart, other}})
		var ce *SettingsConflictError
		var ie *IdentityConflictError
		if !(errors.As(err, &ce) || errors.As(err, &ie)) || !errors.Is(err, ErrMixedRuns) {
			t.Errorf("%s: %v, want a SettingsConflictError or IdentityConflictError", c.name, err)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("%s: %q lacks %q", c.name, err, w)
			}
		}
	}
}

func mustSHA(t *testing.T, path string) string {
	d, err := dataio.LoadArg(path, nil, dataio.ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return d.SHA256
}

// Every record carries the provenance of its dataset.
func TestRecordsCarryProvenance(t *testing.T) {
	f := runTo(t, CompareSettings{Provenance: Provenance{Version: "v9", Command: "kerneltune compare x"},
		Datasets: []DatasetSettings{{Path: "../../testdata/arff/breast-cancer.arff", Partitions: 1, TrainSize: 40, TestSize: 40,
			Read: dataio.ReadOptions{Categorical: "codes", Missing: "drop"}}}})
	rs, err := ReadRecordsFile(f)
	if err != nil || len(rs) != 1 || rs[0].Provenance == nil || rs[0].Provenance.Data == nil {
		t.Fatalf("%v: %+v", err, rs)
	}
	p := rs[0].Provenance
	d := p.Data
	if p.Version != "v9" || p.Command != "kerneltune compare x" || d.Format != "arff" || d.RowsRead != 286 || d.RowsUsed != 277 ||
		!slices.Equal(d.Dropped, []dataio.DroppedRows{{Rows: 9, Why: "missing values"}}) || d.FeaturesRead != 9 || d.Features != 41 ||
		d.Read["categorical"] != "onehot" || d.Read["missing"] != "drop" || d.Labels.Positive != "recurrence-events" ||
		len(d.Classes) != 2 || d.Classes[0].Rows+d.Classes[1].Rows != 277 || d.TrainSize != 40 || d.TestSize != 40 || len(d.SHA256) != 64 {
		t.Errorf("provenance %+v, data %+v", p, d)
	}
}

// A job present in two runs of the same settings must hold the same result
// in both: a plain run of heart and a study run of it merge, but not after
// one of the plain run's records was edited (its first record kept
// silently before), and the error names both files.
func TestMergeFilesOfDifferentRunsRefusesAnEditedDuplicate(t *testing.T) {
	t.Parallel()
	a := runTo(t, CompareSettings{Datasets: []DatasetSettings{ds("builtin:heart", "")}})
	plain := runTo(t, CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 40, TestSize: 40})})
	if _, err := MergeFiles(context.Background(), MergeSettings{Files: []string{a, plain}}); err != nil {
		t.Fatalf("the unedited runs: %v", err)
	}
	recs, err := ReadRecordsFile(plain)
	if err != nil {
		t.Fatal(err)
	}
	recs[0].TestAccuracy = 0.5 // not an accuracy of 40 test rows heart gives here
	// Without the confusion matrix, which would contradict it.
	recs[0].TestConfusion, recs[0].TestAUC = nil, nil
	var b bytes.Buffer
	for i := range recs {
		line, err := json.Marshal(&recs[i])
		if err != nil {
			t.Fatal(err)
		}
		b.Write(append(line, '\n'))
	}
	if err := os.WriteFile(plain, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = MergeFiles(context.Background(), MergeSettings{Files: []string{a, plain}})
	var de *DuplicateJobError
	if !errors.As(err, &de) || de.First != a || de.Then != plain || de.Key != recs[0].Key() {
		t.Fatalf("err = %v, want a *DuplicateJobError naming %s and %s", err, a, plain)
	}
}

// Runs that share no (dataset, method) pair but give one name to different
// data, seeds, sizes or normalisations are refused naming what differs; with
// SplitIdentities they are two datasets, NAME and NAME#2, each under its own
// grid; another number of partitions of the same identity merges (partition
// k is drawn from the seed and k alone).
func TestMergeFilesRefusesOtherIdentityUnderOneName(t *testing.T) {
	t.Parallel()
	svm := runTo(t, CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 40, TestSize: 40})})
	spd := mustEntries(t, "spd")
	for _, c := range []struct {
		name string
		s    CompareSettings
		d    DatasetSettings
		want string
	}{
		{"other data", CompareSettings{}, DatasetSettings{Path: "builtin:diabetes", Name: "heart"}, "sha256 "},
		{"other seed", CompareSettings{Seed: 9}, DatasetSettings{}, "seed 0 vs 9"},
		{"other sizes", CompareSettings{}, DatasetSettings{TrainSize: 30}, "partitions.train_size 40 vs 30"},
		{"stratified", CompareSettings{}, DatasetSettings{Stratified: true}, "partitions.stratified (default) vs true"},
		{"normalize none", CompareSettings{Normalize: "none"}, DatasetSettings{}, "normalize zscore vs none"},
	} {
		s, d := c.s, c.d
		d.Partitions, d.TestSize = 2, 40
		if d.TrainSize == 0 {
			d.TrainSize = 40
		}
		s.Entries, s.Datasets = spd, FileSpecs([]string{cmp.Or(d.Path, "builtin:heart")}, d)
		other := runTo(t, s)
		_, err := MergeFiles(context.Background(), MergeSettings{Files: []string{svm, other}})
		var ie *IdentityConflictError
		if !errors.As(err, &ie) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "--split-identities") {
			t.Errorf("%s: %v; want an IdentityConflictError with %q", c.name, err, c.want)
			continue
		}
		res, err := MergeFiles(context.Background(), MergeSettings{Files: []string{svm, other}, SplitIdentities: true})
		if err != nil {
			t.Fatalf("%s: split: %v", c.name, err)
		}
		if !slices.Equal(res.Datasets, []string{"heart", "heart#2"}) || len(res.Renamed) != 1 || !strings.HasPrefix(res.Renamed[0], "heart#2 is dataset heart of "+other) {
			t.Errorf("%s: split: datasets %v, renamed %q", c.name, res.Datasets, res.Renamed)
		}
		for _, r := range res.Records {
			if (r.Dataset == "heart") != (r.Entry == "svm") {
				t.Errorf("%s: split: %s/%s", c.name, r.Dataset, r.Entry)
			}
		}
	}
	more := runTo(t, CompareSettings{Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 3, TrainSize: 40, TestSize: 40}), Entries: spd})
	if res, err := MergeFiles(context.Background(), MergeSettings{Files: []string{svm, more}}); err != nil || !slices.Equal(res.Datasets, []string{"heart"}) {
		t.Errorf("3 partitions of the same identity: %v", err)
	}
}
