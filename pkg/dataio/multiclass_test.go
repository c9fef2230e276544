package dataio

import (
	"bytes"
	"context"
	"path/filepath"
	"slices"
	"testing"
)

// The LIBSVM multi-class sets read as multi-class with no option: their rows,
// classes in LIBSVM's label order (first appearance in the file) and the
// rows of each class, as the data's PROVENANCE.md lists them.
func TestReadMultiClassSets(t *testing.T) {
	cases := []struct {
		file    string
		rows, d int
		labels  []string
		sizes   []int
	}{
		{"iris.scale", 150, 4, []string{"1", "2", "3"}, []int{50, 50, 50}},
		{"wine.scale", 178, 13, []string{"1", "2", "3"}, []int{59, 71, 48}},
		{"svmguide2", 391, 20, []string{"1", "2", "3"}, []int{221, 117, 53}},
		{"dna.scale", 2000, 180, []string{"3", "1", "2"}, []int{1051, 464, 485}},
		{"three_classes.csv", 4, 2, []string{"a", "b", "c"}, []int{2, 1, 1}},
		{"three_classes.libsvm", 4, 2, []string{"1", "2", "3"}, []int{2, 1, 1}},
		{"arff_three_classes.arff", 3, 1, []string{"a", "b", "c"}, []int{1, 1, 1}},
	}
	for _, c := range cases {
		d, err := Load(filepath.Join(td, "multiclass", c.file), ReadOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if d.Len() != c.rows || d.Dim() != c.d || !d.MultiClass() || !d.Labeled() || d.NumClasses() != len(c.labels) ||
			!slices.Equal(d.ClassLabels, c.labels) || !slices.Equal(d.ClassSizes(), c.sizes) || d.Y != nil {
			t.Errorf("%s: %d×%d, classes %q, sizes %v, want %d×%d %q %v", c.file, d.Len(), d.Dim(), d.ClassLabels, d.ClassSizes(), c.rows, c.d, c.labels, c.sizes)
		}
	}
}

// A test file keeps the training file's class order (dna.scale.t shows 3, 2,
// 1 first; dna.scale 3, 1, 2), and the one-vs-one pair of classes a, b is
// class a's rows then class b's, a = +1.
func TestMultiClassTestFileAndPair(t *testing.T) {
	tt, err := LoadSplit(context.Background(), filepath.Join(td, "multiclass", "dna.scale"), SplitSettings{
		Test: filepath.Join(td, "multiclass", "dna.scale.t"), Normalize: NoScale})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(tt.Test.ClassLabels, []string{"3", "1", "2"}) || !slices.Equal(tt.Test.ClassSizes(), []int{603, 303, 280}) || tt.Test.Len() != 1186 {
		t.Errorf("test part: classes %q sizes %v rows %d", tt.Test.ClassLabels, tt.Test.ClassSizes(), tt.Test.Len())
	}
	p := tt.Train.Pair(1, 2) // classes "1" (464 rows) and "2" (485)
	pos, neg := p.ClassCounts()
	if p.Len() != 949 || pos != 464 || neg != 485 || p.MultiClass() || p.Labels != (LabelMap{Positive: "1", Negative: "2"}) {
		t.Errorf("pair: %d rows, %d/%d, labels %+v", p.Len(), pos, neg, p.Labels)
	}
	rows := tt.Train.PairRows(1, 2)
	if tt.Train.Class[rows[0]] != 1 || tt.Train.Class[rows[463]] != 1 || tt.Train.Class[rows[464]] != 2 || !slices.IsSorted(rows[:464]) || !slices.IsSorted(rows[464:]) {
		t.Errorf("pair rows not class 1 then class 2 in file order")
	}
	for k, i := range rows {
		if !slices.Equal(p.X.RawRowView(k), tt.Train.X.RawRowView(i)) {
			t.Fatalf("pair row %d is not data row %d", k, i)
		}
	}
	// A held-out fraction of multi-class data keeps the class of each row.
	tf, err := LoadSplit(context.Background(), filepath.Join(td, "multiclass", "iris.scale"), SplitSettings{TestFraction: 0.3, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if tf.Train.Len() != 105 || tf.Test.Len() != 45 || !tf.Test.MultiClass() || sum(tf.Train.ClassSizes())+sum(tf.Test.ClassSizes()) != 150 {
		t.Errorf("test fraction: %d + %d rows", tf.Train.Len(), tf.Test.Len())
	}
}

func sum(v []int) int {
	s := 0
	for _, x := range v {
		s += x
	}
	return s
}

// Blobs: k classes in turn (row i is class i mod k), labels 1..k, the same
// data from the same seed and other data from another.
func TestGenerateBlobs(t *testing.T) {
	g, err := Generate(context.Background(), GenerateSettings{Kind: GenBlobs, N: 602, Classes: 6, Dim: 3, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Data
	if d.Len() != 602 || d.Dim() != 3 || !slices.Equal(d.ClassLabels, []string{"1", "2", "3", "4", "5", "6"}) ||
		!slices.Equal(d.ClassSizes(), []int{101, 101, 100, 100, 100, 100}) || d.Class[7] != 1 || d.Classes[0].Rows != 101 {
		t.Errorf("blobs: %d×%d, classes %q, sizes %v", d.Len(), d.Dim(), d.ClassLabels, d.ClassSizes())
	}
	again, _ := Generate(context.Background(), GenerateSettings{Kind: GenBlobs, N: 602, Classes: 6, Dim: 3, Seed: 7})
	other, _ := Generate(context.Background(), GenerateSettings{Kind: GenBlobs, N: 602, Classes: 6, Dim: 3, Seed: 8})
	if !slices.Equal(d.X.RawMatrix().Data, again.Data.X.RawMatrix().Data) || slices.Equal(d.X.RawMatrix().Data, other.Data.X.RawMatrix().Data) {
		t.Error("blobs are not a function of the seed")
	}
	// Written and read back as LIBSVM: multi-class with the same classes.
	var buf bytes.Buffer
	if err := WriteLIBSVM(&buf, d); err != nil {
		t.Fatal(err)
	}
	back, err := parseLIBSVM(buf.Bytes(), "b", ReadOptions{})
	if err != nil || !slices.Equal(back.Class, d.Class) || !slices.Equal(back.ClassLabels, d.ClassLabels) {
		t.Errorf("round trip: %v", err)
	}
	if _, err := Generate(context.Background(), GenerateSettings{Kind: GenBlobs, N: 3, Classes: 4}); err == nil {
		t.Error("3 rows of 4 classes: no error")
	}
}

// InLIBSVMOrder: the classes in the order the training part first shows
// them, the test part renumbered alike; already in that order, nothing is
// copied.
func TestInLIBSVMOrder(t *testing.T) {
	d := &Dataset{Class: []int{2, 0, 2, 1}, ClassLabels: []string{"a", "b", "c"}}
	te := &Dataset{Class: []int{0, 1, 2}, ClassLabels: []string{"a", "b", "c"}}
	d2, te2 := InLIBSVMOrder(d, te)
	if !slices.Equal(d2.ClassLabels, []string{"c", "a", "b"}) || !slices.Equal(d2.Class, []int{0, 1, 0, 2}) || !slices.Equal(te2.Class, []int{1, 2, 0}) ||
		!slices.Equal(d.Class, []int{2, 0, 2, 1}) || !slices.Equal(d.ClassLabels, []string{"a", "b", "c"}) {
		t.Errorf("reordered: %q %v, test %v; the original %q %v", d2.ClassLabels, d2.Class, te2.Class, d.ClassLabels, d.Class)
	}
	if d3, te3 := InLIBSVMOrder(d2, te2); d3 != d2 || te3 != te2 {
		t.Error("data already in order were copied")
	}
	// A class without a training row goes last.
	d4, _ := InLIBSVMOrder(&Dataset{Class: []int{1, 1}, ClassLabels: []string{"a", "b", "c"}}, nil)
	if !slices.Equal(d4.ClassLabels, []string{"b", "a", "c"}) || !slices.Equal(d4.Class, []int{0, 0}) {
		t.Errorf("missing class: %q %v", d4.ClassLabels, d4.Class)
	}
}

// TestPairRowsOneArray: PairRows gives class a's rows then class b's, each
// in file order, in one array of the pair's size (appending grew two by
// doubling and joined them: on letter's 325 pairs 56 MB of garbage for 3
// MB of rows).
func TestPairRowsOneArray(t *testing.T) {
	d := &Dataset{Class: make([]int, 3000), ClassLabels: []string{"a", "b", "c", "d"}}
	for i := range d.Class {
		d.Class[i] = (i * 7 / 3) % 4
	}
	for _, ab := range [][2]int{{0, 1}, {2, 0}, {3, 3}, {1, 3}} {
		var want []int
		for _, c := range []int{ab[0], ab[1]} {
			for i, k := range d.Class {
				if k == c {
					want = append(want, i)
				}
			}
			if ab[0] == ab[1] {
				break
			}
		}
		got := d.PairRows(ab[0], ab[1])
		if !slices.Equal(got, want) {
			t.Fatalf("PairRows(%d, %d) = %d rows, not the %d of class %d then %d", ab[0], ab[1], len(got), len(want), ab[0], ab[1])
		}
		if a := testing.AllocsPerRun(5, func() { d.PairRows(ab[0], ab[1]) }); a != 1 {
			t.Errorf("PairRows(%d, %d) makes %v allocations, want 1", ab[0], ab[1], a)
		}
	}
}
