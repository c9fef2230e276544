package experiment

import (
	"bytes"
	"context"
	"encoding/json"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// identify makes a dataset's identity from what its options resolved to:
// a default spelled out is the default; a given test file's partitions
// are the whole training file or a subsample of it, whatever else the
// spec says; predefined realisations are the dataset's own; nominal
// features encoded say so; auto is what it meant for the data.
func TestIdentifyResolvesTheOptions(t *testing.T) {
	t.Parallel()
	open := func(spec DatasetSettings) DatasetIdentity {
		t.Helper()
		p, err := dataio.OpenDataset(context.Background(), spec, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		return identify(p, 1, dataio.Auto, "")
	}
	const heart = "../../testdata/libsvm/heart_scale"
	plain := open(DatasetSettings{Path: heart, Partitions: 2, TrainSize: 50, TestSize: 50})
	spelled := open(DatasetSettings{Path: heart, Partitions: 3, TrainSize: 50, TestSize: 50,
		Read: dataio.ReadOptions{Format: "libsvm", Features: 13, Positive: "1", Missing: "drop", Categorical: "codes"}})
	if plain.ID() != spelled.ID() {
		t.Errorf("defaults spelled out (and another count of partitions): %+v, plain %+v", spelled, plain)
	}
	if r := plain.Read; r == nil || r.Format != "libsvm" || r.Features != 13 || r.Labels != (dataio.LabelMap{Positive: "1", Negative: "-1"}) || plain.Normalize != dataio.ZScore {
		t.Errorf("heart_scale: %+v, read %+v", plain, plain.Read)
	}
	const dna, dnaTest = "../../testdata/multiclass/dna.scale", "../../testdata/multiclass/dna.scale.t"
	read := dataio.ReadOptions{Positive: "3"}
	for _, c := range []struct {
		name string
		spec DatasetSettings
		want PartitionScheme
	}{
		{"whole file", DatasetSettings{Partitions: 1, TrainSize: 100}, PartitionScheme{Kind: PartitionsTestFile}},
		{"subsamples", DatasetSettings{Partitions: 3, PartitionsGiven: true, TrainSize: 100, Stratified: true}, PartitionScheme{Kind: PartitionsTestFile, TrainSize: 100, Stratified: true}},
		{"no more rows than the train size", DatasetSettings{Partitions: 1, PartitionsGiven: true, TrainSize: 3000, Stratified: true}, PartitionScheme{Kind: PartitionsTestFile}},
		{"train size and a fraction", DatasetSettings{TrainSize: 300, TrainSizeGiven: true, TrainFraction: 0.5, TestSize: 9}, PartitionScheme{Kind: PartitionsTestFile, TrainSize: 300}},
	} {
		s := c.spec
		s.Path, s.Test, s.Read = dna, dnaTest, read
		id := open(s)
		if id.Partitions == nil || *id.Partitions != c.want || id.TestSHA256 == "" || id.Normalize != dataio.MaxAbs {
			t.Errorf("%s: %+v, partitions %+v; want %+v, a test file's hash, maxabs", c.name, id, id.Partitions, c.want)
		}
	}
	ida := open(DatasetSettings{Path: "../../testdata/ida/breast-cancer", Partitions: 2, TrainSize: 100, TestSize: 77, Predefined: true})
	if *ida.Partitions != (PartitionScheme{Kind: PartitionsPredefined}) {
		t.Errorf("predefined: %+v", ida.Partitions)
	}
	enc := open(DatasetSettings{Path: "../../testdata/arff/breast-cancer.arff", Partitions: 1, TrainSize: 40, TestSize: 40,
		Read: dataio.ReadOptions{Categorical: "codes", Missing: "drop"}})
	if enc.Read.Encoding != "one-hot" || enc.Read.Features != 9 {
		t.Errorf("nominal features: read %+v", enc.Read)
	}
}

// Storage enters a dataset's identity only as "sparse": a file held dense
// (by the rule, or --storage dense) keeps the identity it had before
// sparse storage; the same file held sparse is another dataset of the
// records (its kernel sums run in another order), and auto resolves to
// maxabs on data that sparse.
func TestIdentifyStorage(t *testing.T) {
	t.Parallel()
	open := func(path string, storage string) DatasetIdentity {
		t.Helper()
		p, err := dataio.OpenDataset(context.Background(), DatasetSettings{Path: path, Partitions: 1, TrainSize: 50, TestSize: 50,
			Read: dataio.ReadOptions{Storage: storage}}, 1, nil)
		if err != nil {
			t.Fatal(err)
		}
		return identify(p, 1, dataio.Auto, "")
	}
	const heart = "../../testdata/libsvm/heart_scale"
	plain, dense, held := open(heart, ""), open(heart, dataio.StorageDense), open(heart, dataio.StorageSparse)
	if plain.ID() != dense.ID() || plain.Read.Storage != "" || strings.Contains(string(mustJSON(t, plain)), "storage") {
		t.Errorf("dense: %+v, storage dense %+v", plain.Read, dense.Read)
	}
	if held.ID() == plain.ID() || held.Read.Storage != dataio.StorageSparse || held.Normalize != dataio.ZScore {
		t.Errorf("heart_scale held sparse: %+v, read %+v", held, held.Read)
	}
	var b bytes.Buffer
	if err := dataio.WriteLIBSVM(&b, dataio.TextLike(120, 2000, 10, rand.New(rand.NewPCG(1, 2)))); err != nil {
		t.Fatal(err)
	}
	text := filepath.Join(t.TempDir(), "text.svm")
	if err := os.WriteFile(text, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	if id := open(text, ""); id.Read.Storage != dataio.StorageSparse || id.Normalize != dataio.MaxAbs || id.Read.Features != 2000 {
		t.Errorf("text: %+v, read %+v", id, id.Read)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
