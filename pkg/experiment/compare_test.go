package experiment

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

func TestParseShard(t *testing.T) {
	for _, c := range []struct {
		s    string
		i, n int
		ok   bool
	}{
		{"", 0, 0, true}, {"1/1", 1, 1, true}, {"2/3", 2, 3, true},
		{"3/2", 0, 0, false}, {"0/2", 0, 0, false}, {"1", 0, 0, false}, {"a/b", 0, 0, false}, {"1/0", 0, 0, false},
	} {
		i, n, err := ParseShard(c.s)
		if (err == nil) != c.ok || i != c.i || n != c.n {
			t.Errorf("ParseShard(%q) = %d, %d, %v", c.s, i, n, err)
		}
		if err != nil && !errors.Is(err, ErrShard) {
			t.Errorf("ParseShard(%q): %v is not ErrShard", c.s, err)
		}
	}
}

func TestCountFailures(t *testing.T) {
	rs := []Record{{Status: StatusFailure}, {Status: "converged"}, {Status: StatusFailure}}
	if n := CountFailures(rs); n != 2 {
		t.Errorf("CountFailures = %d, want 2", n)
	}
}

// Compare refuses bad settings before any job runs, with errors a caller
// can tell apart.
func TestCompareSettingsErrors(t *testing.T) {
	t.Parallel()
	svm := mustEntries(t, "svm")
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		s    CompareSettings
		ok   func(error) bool
	}{
		{"twice", CompareSettings{Entries: svm, Datasets: FileSpecs([]string{"builtin:heart", "builtin:heart"}, DatasetSettings{Partitions: 1, TrainSize: 50, TestSize: 50})},
			func(err error) bool {
				var e *DuplicateDataError
				return errors.As(err, &e) && e.Path == "builtin:heart"
			}},
		{"entry", CompareSettings{Entries: svm, Base: methods.Common{C: -1}},
			func(err error) bool { var e *EntryError; return errors.As(err, &e) && e.Entry.Method == "svm" }},
		{"laanaya", CompareSettings{Entries: mustEntries(t, "rcsc"), Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 1, TrainSize: 50, TestSize: 50}), LaanayaSelect: true},
			func(err error) bool { return errors.Is(err, ErrNoSVM) }},
		{"predefined", CompareSettings{Entries: svm, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Predefined: true})},
			func(err error) bool { return errors.Is(err, ErrNoRealisations) }},
		{"sizes", CompareSettings{Entries: svm, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{TrainSize: 500, TestSize: 50})},
			func(err error) bool { var e *SourceError; return errors.As(err, &e) && e.Path == "builtin:heart" }},
		{"test file", CompareSettings{Entries: svm, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Test: filepath.Join(dir, "t.csv")})},
			func(err error) bool { return err != nil && strings.Contains(err.Error(), "t.csv") }},
	} {
		_, err := Compare(context.Background(), c.s)
		if !c.ok(err) {
			t.Errorf("%s: err = %v", c.name, err)
		}
	}
}

// With a test file and more partitions than the training file has rows to
// subsample, every partition would train on the whole file and test on the
// same test file: one partition several times over, which the paired tests
// would count as independent samples. Prepare refuses it (issue 42).
func TestCompareTestFileWholeFile(t *testing.T) {
	raw, err := os.ReadFile("../../testdata/libsvm/heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	test := filepath.Join(t.TempDir(), "heart_test")
	lines := strings.SplitAfter(string(raw), "\n")
	if err := os.WriteFile(test, []byte(strings.Join(lines[200:], "")), 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Prepare(context.Background(), CompareSettings{
		Entries: mustEntries(t, "probe1"), Seed: 1, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{
			Test: test, Partitions: 2, PartitionsGiven: true, TrainSize: 500}),
	})
	var se *dataio.SamePartitionsError
	if !errors.As(err, &se) || *se != (dataio.SamePartitionsError{Rows: 270, TrainSize: 500, Partitions: 2}) {
		t.Fatalf("err = %v, want a *dataio.SamePartitionsError of 2 partitions of 270 rows", err)
	}
	// One partition of the whole file is a run.
	p, err := Prepare(context.Background(), CompareSettings{
		Entries: mustEntries(t, "probe1"), Seed: 1, Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{
			Test: test, Partitions: 1, PartitionsGiven: true, TrainSize: 500}),
	})
	if err != nil {
		t.Fatal(err)
	}
	res, err := p.Run(context.Background(), Observer{})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 1 || res.Records[0].TrainSize != 270 || res.Records[0].TestSize != 70 || len(p.Notices) != 0 {
		t.Errorf("records %+v, notices %v", res.Records, p.Notices)
	}
}

// A resumed run skips the recorded jobs and refuses a file of other settings.
func TestCompareResume(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	s := CompareSettings{Entries: mustEntries(t, "probe1,probe2"), Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{
		Partitions: 2, TrainSize: 60, TestSize: 60}), Seed: 1, Out: out, Shard: 1, Shards: 2}
	first, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if first.Jobs != 2 || len(first.Records) != 2 || first.Grid.Jobs() != 4 {
		t.Fatalf("shard 1: %d jobs, %d records, grid %d", first.Jobs, len(first.Records), first.Grid.Jobs())
	}
	var exist *ResultsExistError
	if _, err := Compare(context.Background(), s); !errors.As(err, &exist) {
		t.Errorf("rerun without Resume: %v", err)
	}
	s.Resume, s.Shard, s.Shards = true, 0, 0
	all, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if all.Resumed != 2 || len(all.Records) != 4 || all.Run != first.Run {
		t.Errorf("resumed %d, %d records, run %s (first %s)", all.Resumed, len(all.Records), all.Run, first.Run)
	}
	s.Seed = 2
	var other *OtherRunError
	if _, err := Compare(context.Background(), s); !errors.As(err, &other) || !errors.Is(err, ErrMixedRuns) {
		t.Errorf("resume with another seed: %v", err)
	}
}

// A preset gives the sources, its entries unless Entries is set, and its
// own partition count unless Partitions is set.
func TestComparePreset(t *testing.T) {
	res, err := Compare(context.Background(), CompareSettings{
		Preset: PresetRun{Name: "laanaya-weston", Partitions: 2, TrainSize: 20, TestSize: 10}, Entries: mustEntries(t, "probe1"), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Records) != 2 || res.Records[0].Dataset != "weston" || res.Records[0].TrainSize != 20 || res.Records[0].TestSize != 10 {
		t.Errorf("records %+v", res.Records)
	}
	if _, err := Compare(context.Background(), CompareSettings{Preset: PresetRun{Name: "nosuch"}}); err == nil {
		t.Error("an unknown preset ran")
	}
}

// Two datasets with the same name (a/heart_scale, b/heart_scale) are named
// by their paths, so that the second one's records do not replace the
// first's.
func TestCompareSameNames(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile("../../testdata/libsvm/heart_scale")
	if err != nil {
		t.Fatal(err)
	}
	var paths []string
	for i, d := range []string{"a", "b"} {
		dir := filepath.Join(t.TempDir(), d)
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, filepath.Join(dir, "heart_scale"))
		// Two datasets of one name, not one dataset twice (that is a
		// *SameDatasetError): b's lacks the first row.
		body := data
		if i == 1 {
			body = data[bytes.IndexByte(data, '\n')+1:]
		}
		if err := os.WriteFile(paths[len(paths)-1], body, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	res, err := Compare(context.Background(), CompareSettings{
		Entries: mustEntries(t, "probe1"), Datasets: FileSpecs(paths, DatasetSettings{Partitions: 1, TrainSize: 50, TestSize: 50}), Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	// The grid (and so the tables) and the records name both by their paths.
	var names, recorded []string
	for _, d := range res.Grid.Datasets {
		names = append(names, d.Name)
	}
	for _, r := range res.Records {
		if !slices.Contains(recorded, r.Dataset) {
			recorded = append(recorded, r.Dataset)
		}
	}
	if !reflect.DeepEqual(names, paths) || !reflect.DeepEqual(recorded, paths) {
		t.Errorf("grid %q, records %q, want %q", names, recorded, paths)
	}
}

// TestReadRecordsRefusesOtherSchemaVersions: a results file of records
// without a schema_version (a pre-release kerneltune's, such as those of
// the flat-options version, 3f182cd) or of another version is refused,
// naming its file and line and what to do, by report's reading and by a
// resume alike; nothing is appended to it.
func TestReadRecordsRefusesOtherSchemaVersions(t *testing.T) {
	t.Parallel()
	const old = `{"dataset":"heart","entry":"svm","method":"svm","partition":0,"run":"b665878e4c3e","seed":1,"status":"converged","test_accuracy":0.78,"nsv":55,"train_size":60,"test_size":100,"iterations":1,"svm_solves":551,"seconds":0.2}` + "\n"
	for _, c := range []struct{ line, want string }{
		{old, ":2: a record without a schema_version, written by a pre-release kerneltune: this version reads records of schema version 1 only; rerun the comparison to write them anew"},
		{`{"schema_version":2,` + old[1:], ":2: a record of schema_version 2: this kerneltune reads schema version 1 only"},
	} {
		good := strings.Replace(old, `{"dataset"`, `{"schema_version":1,"dataset"`, 1)
		out := filepath.Join(t.TempDir(), "r.jsonl")
		if err := os.WriteFile(out, []byte(good+c.line), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := ReadRecordsFile(out); err == nil || err.Error() != out+c.want && !strings.HasPrefix(err.Error(), out+c.want) {
			t.Errorf("read: %v, want %s%s", err, out, c.want)
		}
		s := CompareSettings{Entries: mustEntries(t, "probe1"), Datasets: []DatasetSettings{ds("builtin:heart", "")}, Out: out, Resume: true}
		if _, err := Compare(context.Background(), s); err == nil || !strings.HasPrefix(err.Error(), out+c.want) {
			t.Errorf("resume: %v, want %s%s", err, out, c.want)
		}
		if b, _ := os.ReadFile(out); string(b) != good+c.line {
			t.Error("the refused file was changed")
		}
	}
}

// TestResumeNamesTheSettingThatDiffers: records of this version carry their
// run's settings, so a resume with another setting names it.
func TestResumeNamesTheSettingThatDiffers(t *testing.T) {
	out := filepath.Join(t.TempDir(), "run.jsonl")
	s := CompareSettings{Entries: mustEntries(t, "probe1"), Datasets: FileSpecs([]string{"builtin:heart"}, DatasetSettings{Partitions: 2, TrainSize: 50, TestSize: 50}),
		Seed: 1, Base: methods.Common{Folds: 5}, Out: out}
	if _, err := Compare(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	s.Resume, s.Base.Folds, s.Seed = true, 3, 2
	_, err := Compare(context.Background(), s)
	var other *OtherRunError
	if !errors.As(err, &other) || !reflect.DeepEqual(other.Diff, []string{"common.folds: 5 → 3", "seed: 1 → 2"}) {
		t.Fatalf("err = %v (diff %q)", err, other.Diff)
	}
	if !strings.Contains(err.Error(), "common.folds: 5 → 3; seed: 1 → 2") {
		t.Errorf("message %q does not name the settings", err)
	}
}

// Prepare stops at a cancelled context before it reads the next dataset:
// Ctrl-C during a study's reading ends it there, as an interruption.
func TestPrepareCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds := []DatasetSettings{{Path: "builtin:heart", Partitions: 2, TrainSize: 100, TestSize: 100},
		{Path: "builtin:diabetes", Partitions: 2, TrainSize: 100, TestSize: 100}}
	p, err := Prepare(ctx, CompareSettings{Entries: mustEntries(t, "probe1"), Datasets: ds})
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Errorf("Prepare on a cancelled context: %v, %v; want context.Canceled", p, err)
	}
}
