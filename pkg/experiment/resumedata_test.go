package experiment

import (
	"context"
	"errors"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// A resume with other read options is another run of the same settings
// but for the dataset's identity: it is refused as an *OtherDataError
// naming each field of the identity that differs, before any job runs; the
// same reading resumes.
func TestResumeRefusesAnotherReading(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	files := func(read dataio.ReadOptions) []DatasetSettings {
		return FileSpecs([]string{"../../testdata/libsvm/heart_scale"}, DatasetSettings{Partitions: 2, TrainSize: 50, TestSize: 50, Read: read})
	}
	s := CompareSettings{Entries: mustEntries(t, "probe1"), Datasets: files(dataio.ReadOptions{}), Seed: 1, Out: out, Shard: 1, Shards: 2}
	first, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	s.Resume, s.Shard, s.Shards = true, 0, 0
	s.Datasets = files(dataio.ReadOptions{Positive: "-1", Features: 20})
	p, err := Prepare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	ran := 0
	_, err = p.Run(context.Background(), Observer{Progress: func(done, total int, last *Record) {
		if last != nil {
			ran++
		}
	}})
	var other *OtherDataError
	want := []string{"read.features: 13 → 20", "read.labels.negative: -1 → 1", "read.labels.positive: 1 → -1"}
	if !errors.As(err, &other) || !errors.Is(err, ErrMixedRuns) || other.Dataset != "heart_scale" || !reflect.DeepEqual(other.Diff, want) {
		t.Fatalf("resume with other read options: err = %v, want an *OtherDataError of heart_scale with %q", err, want)
	}
	if ran != 0 {
		t.Errorf("%d jobs ran before the refusal", ran)
	}
	s.Datasets = files(dataio.ReadOptions{})
	all, err := Compare(context.Background(), s)
	if err != nil {
		t.Fatal(err)
	}
	if all.Resumed != 1 || len(all.Records) != 2 || all.Run != first.Run {
		t.Errorf("resume with the same reading: resumed %d, %d records, run %s (first %s)", all.Resumed, len(all.Records), all.Run, first.Run)
	}
}
