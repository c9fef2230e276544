package dataio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// heartSHA256 is the SHA-256 of testdata/libsvm/heart_scale, the bytes of
// the embedded builtin:heart too.
const heartSHA256 = "5defa0a4c4c5bdaf3f55ae3828310252e8565c13ee37ce279e0b86d82e7f4ce9"

func open(t *testing.T, spec DatasetSpec, seed uint64) *Partitioned {
	t.Helper()
	p, err := OpenDataset(context.Background(), spec, seed, nil)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// partitionRows returns the rows of every partition's training and test
// parts.
func partitionRows(t *testing.T, p *Partitioned) (train, test []int) {
	t.Helper()
	for k := range p.Len() {
		tr, te, err := p.Partition(k)
		if err != nil {
			t.Fatal(err)
		}
		train, test = append(train, tr.Len()), append(test, te.Len())
	}
	return train, test
}

// Random partitions: Partitions of TrainSize + TestSize rows, drawn from
// the seed as Partitions draws them (the same rows for the same seed as
// every earlier version: the first rows pinned), described and identified.
func TestOpenDatasetRandomPartitions(t *testing.T) {
	spec := DatasetSpec{Path: "builtin:heart", Partitions: 3, TrainSize: 100, TestSize: 50}
	p := open(t, spec, 1)
	if p.Name() != "heart" || p.Len() != 3 || p.OneHot || p.Test != nil || p.Notes != nil {
		t.Fatalf("name %q, %d partitions, one-hot %v, test %v, notes %v", p.Name(), p.Len(), p.OneHot, p.Test, p.Notes)
	}
	train, test := partitionRows(t, p)
	if !slices.Equal(train, []int{100, 100, 100}) || !slices.Equal(test, []int{50, 50, 50}) {
		t.Errorf("training rows %v, test rows %v, want 3 × 100 and 3 × 50", train, test)
	}
	want, err := Partitions(p.Data.Strata(), PartitionOptions{K: 3, TrainSize: 100, TestSize: 50}, 1)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(p.Splits, want) {
		t.Error("the splits are not Partitions' of the same seed")
	}
	if got := p.Splits[0].Train[:6]; !slices.Equal(got, []int{1, 4, 6, 9, 10, 12}) {
		t.Errorf("partition 0 trains on rows %v..., want 1 4 6 9 10 12...", got)
	}
	if got := p.Splits[2].Test[:6]; !slices.Equal(got, []int{2, 3, 6, 7, 11, 31}) {
		t.Errorf("partition 2 tests on rows %v..., want 2 3 6 7 11 31...", got)
	}
	if other := open(t, spec, 2); reflect.DeepEqual(other.Splits, p.Splits) {
		t.Error("seed 2 drew seed 1's partitions")
	}
	a, _, _ := p.Partition(1)
	b, _, _ := p.Partition(1)
	if !mat.Equal(a.X, b.X) {
		t.Error("partition 1 differs between two calls")
	}

	pv := p.Provenance()
	if pv.Name != "heart" || pv.Path != "builtin:heart" || pv.SHA256 != heartSHA256 || pv.Format != "libsvm" || pv.Read != nil ||
		pv.RowsRead != 270 || pv.RowsUsed != 270 || pv.FeaturesRead != 13 || pv.Features != 13 ||
		pv.Partitions != 3 || pv.TrainSize != 100 || pv.TestSize != 50 || pv.Labels != (LabelMap{Positive: "1", Negative: "-1"}) {
		t.Errorf("provenance %+v", *pv)
	}
	if !slices.Equal(pv.Classes, []ClassCount{{"1", 120}, {"-1", 150}}) {
		t.Errorf("classes %v, want 120 of 1 and 150 of -1", pv.Classes)
	}
}

// A name given replaces the file's in the partitions too; the data opened
// is not changed by a later Rename.
func TestOpenDatasetNamed(t *testing.T) {
	p := open(t, DatasetSpec{Path: "builtin:heart", Name: "cor", Partitions: 1, TrainSize: 10, TestSize: 10}, 0)
	tr, te, err := p.Partition(0)
	if err != nil {
		t.Fatal(err)
	}
	if p.Name() != "cor" || tr.Name != "cor" || te.Name != "cor" || p.Provenance().Name != "cor" {
		t.Errorf("names %q, %q, %q", p.Name(), tr.Name, te.Name)
	}
	before := p.Data
	p.Rename("x/heart")
	if p.Name() != "x/heart" || before.Name != "cor" {
		t.Errorf("renamed %q, the data before %q", p.Name(), before.Name)
	}
}

// The provenance's SHA-256 is the file's bytes'.
func TestOpenDatasetProvenanceHashesTheFile(t *testing.T) {
	path := td + "/libsvm/heart_scale"
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(raw)
	p := open(t, DatasetSpec{Path: path, Partitions: 2, TrainSize: 200, TestSize: 70}, 5)
	if pv := p.Provenance(); pv.SHA256 != hex.EncodeToString(sum[:]) || pv.SHA256 != heartSHA256 || pv.Path != path {
		t.Errorf("sha256 %s of %s, the file's %x", pv.SHA256, pv.Path, sum)
	}
	if train, test := partitionRows(t, p); !slices.Equal(train, []int{200, 200}) || !slices.Equal(test, []int{70, 70}) {
		t.Errorf("training rows %v, test rows %v", train, test)
	}
}

// Small data: sizes that do not fit say which settings do; a training
// fraction fits.
func TestOpenDatasetSmallData(t *testing.T) {
	path := td + "/arff/iris.arff"
	_, err := OpenDataset(context.Background(), DatasetSpec{Path: path, Partitions: 2, TrainSize: 100, TestSize: 100}, 0, nil)
	var de *DatasetError
	if !errors.As(err, &de) || de.Path != path || !strings.Contains(err.Error(), "iris has 150 rows: give a training fraction (--train-fraction 0.5") {
		t.Errorf("err = %v", err)
	}
	p := open(t, DatasetSpec{Path: path, Partitions: 2, TrainFraction: 0.6}, 0)
	if train, test := partitionRows(t, p); !slices.Equal(train, []int{90, 90}) || !slices.Equal(test, []int{60, 60}) {
		t.Errorf("training rows %v, test rows %v, want 90 and 60", train, test)
	}
}

// Predefined: the dataset's own first Partitions realisations, or an
// ErrNoRealisations naming a dataset without any.
func TestOpenDatasetPredefined(t *testing.T) {
	spec := DatasetSpec{Path: td + "/ida/breast-cancer", Partitions: 4, Predefined: true}
	p := open(t, spec, 0)
	if p.Len() != 4 || !reflect.DeepEqual(p.Splits, p.Data.Splits[:4]) {
		t.Fatalf("%d partitions, want the first 4 of the set's %d", p.Len(), len(p.Data.Splits))
	}
	if train, test := partitionRows(t, p); !slices.Equal(train, []int{200, 200, 200, 200}) || !slices.Equal(test, []int{77, 77, 77, 77}) {
		t.Errorf("training rows %v, test rows %v, want 4 × 200 and 4 × 77", train, test)
	}
	if got := p.Splits[3].Train[:5]; !slices.Equal(got, []int{248, 95, 250, 236, 34}) {
		t.Errorf("realisation 4 trains on rows %v...", got)
	}
	_, err := OpenDataset(context.Background(), DatasetSpec{Path: "builtin:heart", Predefined: true}, 0, nil)
	var de *DatasetError
	if !errors.Is(err, ErrNoRealisations) || !errors.As(err, &de) || de.Path != "builtin:heart" {
		t.Errorf("err = %v", err)
	}
}

// Nominal features: each partition one-hot encoded on its training part;
// the provenance counts the columns after encoding on all rows.
func TestOpenDatasetOneHot(t *testing.T) {
	p := open(t, DatasetSpec{Path: td + "/arff/breast-cancer.arff", Partitions: 2, TrainSize: 100, TestSize: 50,
		Read: ReadOptions{Categorical: "codes", Missing: "drop"}}, 1)
	if !p.OneHot || p.Data.Dim() != 9 {
		t.Fatalf("one-hot %v, %d columns read", p.OneHot, p.Data.Dim())
	}
	tr, te, err := p.Partition(1)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 100 || te.Len() != 50 || tr.Dim() != 37 || te.Dim() != 37 || tr.Nominal != nil {
		t.Errorf("partition 1: %d × %d training, %d × %d test rows, nominal %v", tr.Len(), tr.Dim(), te.Len(), te.Dim(), tr.Nominal)
	}
	pv := p.Provenance()
	if pv.FeaturesRead != 9 || pv.Features != 41 || pv.RowsRead != 286 || pv.RowsUsed != 277 ||
		!slices.Equal(pv.Dropped, []DroppedRows{{9, "missing values"}}) || !maps.Equal(pv.Read, map[string]string{"categorical": "onehot", "missing": "drop"}) {
		t.Errorf("provenance %+v", *pv)
	}
}

// A given test file: the whole training file once; with PartitionsGiven
// TrainSize random rows of it (a note when that size is the default) or,
// with no more rows than TrainSize, the whole file each time (a note);
// with TrainSizeGiven one subsample. Every partition tests on the whole
// test file.
func TestOpenDatasetTestFile(t *testing.T) {
	const (
		train, test = td + "/multiclass/dna.scale", td + "/multiclass/dna.scale.t"
		testSHA     = "d2eeed170e4e38ae2aba6aa4cd27a8ca4ecceb01a7751e8e509bb4e1a6bcef39"
	)
	read := ReadOptions{Positive: "3"}
	for _, c := range []struct {
		name  string
		spec  DatasetSpec
		rows  []int
		notes []PartitionNote
	}{
		{"whole file", DatasetSpec{Partitions: 3, TrainSize: 100},
			[]int{2000}, nil},
		{"default train size", DatasetSpec{Partitions: 3, PartitionsGiven: true, TrainSize: 100},
			[]int{100, 100, 100}, []PartitionNote{{NoteDefaultTrainSize, train, 2000, 100, 0, 3}}},
		{"no more rows than the train size, one partition", DatasetSpec{Partitions: 1, PartitionsGiven: true, TrainSize: 3000},
			[]int{2000}, nil},
		{"train size given", DatasetSpec{TrainSize: 300, TrainSizeGiven: true},
			[]int{300}, nil},
		// A given test file replaces the training fraction.
		{"and a fraction", DatasetSpec{TrainSize: 300, TrainSizeGiven: true, TrainFraction: 0.5},
			[]int{300}, nil},
	} {
		spec := c.spec
		spec.Path, spec.Test, spec.Read = train, test, read
		p := open(t, spec, 7)
		rows, tests := partitionRows(t, p)
		if !slices.Equal(rows, c.rows) || slices.ContainsFunc(tests, func(n int) bool { return n != 1186 }) {
			t.Errorf("%s: training rows %v, test rows %v, want %v and 1186 each", c.name, rows, tests, c.rows)
		}
		if !slices.Equal(p.Notes, c.notes) {
			t.Errorf("%s: notes %v, want %v", c.name, p.Notes, c.notes)
		}
		pv := p.Provenance()
		if pv.Test != test || pv.TestSHA256 != testSHA || pv.TestRows != 1186 || pv.TrainSize != c.rows[0] || pv.TestSize != 1186 {
			t.Errorf("%s: provenance %+v", c.name, *pv)
		}
	}
}

// A cancelled context ends OpenDataset before it reads anything.
func TestOpenDatasetCancelled(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	p, err := OpenDataset(ctx, DatasetSpec{Path: "builtin:heart", Partitions: 2, TrainSize: 100, TestSize: 100}, 1, nil)
	if !errors.Is(err, context.Canceled) || p != nil {
		t.Errorf("OpenDataset on a cancelled context: %v, %v; want context.Canceled", p, err)
	}
}

// More partitions than one of a training file no larger than the training
// size would be one partition several times over: refused (issue 42).
func TestOpenDatasetSamePartitions(t *testing.T) {
	spec := DatasetSpec{Path: td + "/libsvm/heart_scale", Test: "builtin:heart", Partitions: 5, PartitionsGiven: true, TrainSize: 1000, TrainSizeGiven: true}
	_, err := OpenDataset(context.Background(), spec, 1, nil)
	if !errors.Is(err, ErrTestIsTraining) {
		t.Fatalf("builtin:heart as heart_scale's test file: err = %v, want ErrTestIsTraining (the same bytes)", err)
	}
	raw, err := os.ReadFile(spec.Path)
	if err != nil {
		t.Fatal(err)
	}
	spec.Test = filepath.Join(t.TempDir(), "test")
	if err := os.WriteFile(spec.Test, raw[:len(raw)/2], 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = OpenDataset(context.Background(), spec, 1, nil)
	var se *SamePartitionsError
	if !errors.As(err, &se) || *se != (SamePartitionsError{Rows: 270, TrainSize: 1000, Partitions: 5}) {
		t.Fatalf("err = %v, want a *SamePartitionsError", err)
	}
	if want := "5 partitions of a training file of 270 rows, not more than the training size 1000"; !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), spec.Path) {
		t.Errorf("err = %q, want the file and %q", err, want)
	}
}

// A caller's own Partitioned with OneHot encodes each partition fitted on
// its training rows only: "blue" is only in the test part, so it encodes
// as all zeros (as the normaliser is fitted on the training part).
func TestPartitionOneHotFitsTrainingPart(t *testing.T) {
	d, err := LoadReader(strings.NewReader("c,x,y\nred,1,a\ngreen,2,b\nred,3,a\nblue,4,b\n"), "s.csv", ReadOptions{Categorical: "codes"})
	if err != nil {
		t.Fatal(err)
	}
	p := &Partitioned{Data: d, Splits: []Split{{Train: []int{0, 1, 2}, Test: []int{3}}}, OneHot: true}
	tr, te, err := p.Partition(0)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dim() != 3 || te.Dim() != 3 || te.X.At(0, 0) != 0 || te.X.At(0, 1) != 0 || te.X.At(0, 2) != 4 {
		t.Errorf("partition: train %d features, test row %v; want 3 and [0 0 4]", tr.Dim(), te.X.RawRowView(0))
	}
	// Without OneHot the codes are the features.
	p.OneHot = false
	if tr, _, err = p.Partition(0); err != nil || tr.Dim() != 2 {
		t.Errorf("partition without OneHot: %v features, %v; want the 2 columns as read", tr.Dim(), err)
	}
}

// The parsers stop with the context of the reading (loadContext): a file
// read whole whose parsing is under way when Ctrl-C comes ends with the
// context's error, not after its last row.
func TestParseStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for name, data := range map[string]string{
		"d.csv":    "1,2,0\n3,4,1\n",
		"d.libsvm": "+1 1:0.5\n-1 2:1\n",
		"d.arff":   "@relation r\n@attribute x numeric\n@attribute c {a,b}\n@data\n1,a\n2,b\n",
	} {
		if d, err := loadReader(ctx, strings.NewReader(data), name, ReadOptions{}); !errors.Is(err, context.Canceled) {
			t.Errorf("%s parsed under a cancelled context: %v, %v; want context.Canceled", name, d, err)
		}
		if d, err := loadReader(context.Background(), strings.NewReader(data), name, ReadOptions{}); err != nil || d.Len() != 2 {
			t.Errorf("%s: %v; want 2 rows", name, err)
		}
	}
}
