package dataio

import (
	"errors"
	"math"
	"strings"
	"testing"
)

// TestParseFloatDecimalOnly: Go's literal syntax (digit separators, hex
// floats) is not a number in a data file; decimal forms are.
func TestParseFloatDecimalOnly(t *testing.T) {
	for _, s := range []string{"1_000", "0x1p3", "-0X1P3", "+0x10", "1_0.5"} {
		if v, err := ParseFloat(s, 64); err == nil {
			t.Errorf("ParseFloat(%q) = %v, want a syntax error", s, v)
		}
	}
	for s, want := range map[string]float64{"1e3": 1000, "+2.5": 2.5, "-.5": -0.5, "0": 0, "007": 7, "0.1e-2": 0.001} {
		if v, err := ParseFloat(s, 64); err != nil || v != want {
			t.Errorf("ParseFloat(%q) = %v, %v; want %v", s, v, err, want)
		}
	}
}

// TestGoNumberSyntaxIsNotData: in a LIBSVM file 1:0x1p3 is an error; in a
// CSV column 1_000 is text (the column is nominal), not 1000.
func TestGoNumberSyntaxIsNotData(t *testing.T) {
	_, err := ReadLIBSVM(strings.NewReader("+1 1:0x1p3\n-1 1:2\n"), "x", ReadOptions{})
	if err == nil || err.Error() != `x:1:2: "0x1p3" is not a number` {
		t.Errorf("LIBSVM 1:0x1p3: err = %v", err)
	}
	d, err := ReadCSV(strings.NewReader("a,b,y\n1_000,2,1\n3,3,-1\n4,5,1\n6,7,-1\n"), "x", ReadOptions{Categorical: "codes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nominal) != 1 || d.Nominal[0].Index != 0 || !strings.Contains(strings.Join(d.Nominal[0].Levels, ","), "1_000") {
		t.Errorf("nominal features %+v, want column a with the level 1_000", d.Nominal)
	}
}

// TestSparseARFFOmittedClass: a Weka sparse row that omits the nominal class
// has its first declared value, as every omitted nominal value.
func TestSparseARFFOmittedClass(t *testing.T) {
	src := "@relation s\n@attribute a numeric\n@attribute b numeric\n@attribute class {neg,pos}\n@data\n" +
		"{0 1, 1 2}\n{0 -1, 2 pos}\n{1 3}\n{0 2, 1 -2, 2 pos}\n"
	d, err := ReadARFF(strings.NewReader(src), "s.arff", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := []float64{-1, 1, -1, 1}
	for i, y := range d.Y {
		if y != want[i] {
			t.Fatalf("labels %v, want %v (+1 = %s)", d.Y, want, d.Labels.Positive)
		}
	}
	if d.Labels.Positive != "pos" || d.X.At(2, 0) != 0 || d.X.At(2, 1) != 3 {
		t.Errorf("labels %+v, row 3 = (%v, %v)", d.Labels, d.X.At(2, 0), d.X.At(2, 1))
	}
}

// TestHugeTokenCutInErrors: a malformed token of megabytes is quoted cut,
// with its length, not whole.
func TestHugeTokenCutInErrors(t *testing.T) {
	tok := strings.Repeat("9", 10) + strings.Repeat("é", 1_500_000)
	for _, tc := range []struct {
		name, text string
		read       func(string) error
	}{
		{"libsvm value", "+1 1:" + tok + "\n-1 1:2\n", func(s string) error { _, err := ReadLIBSVM(strings.NewReader(s), "x", ReadOptions{}); return err }},
		{"libsvm token", "+1 " + tok + "\n", func(s string) error { _, err := ReadLIBSVM(strings.NewReader(s), "x", ReadOptions{}); return err }},
		{"arff value", "@relation s\n@attribute a numeric\n@attribute c {n,p}\n@data\n" + tok + ",p\n1,n\n", func(s string) error { _, err := ReadARFF(strings.NewReader(s), "x", ReadOptions{}); return err }},
	} {
		err := tc.read(tc.text)
		if err == nil || len(err.Error()) > 300 || !strings.Contains(err.Error(), "… (3000010 bytes)") {
			t.Errorf("%s: error of %d bytes: %.300s", tc.name, len(err.Error()), err)
		}
		if !errors.Is(err, ErrNotNumber) && !errors.Is(err, ErrIndex) {
			t.Errorf("%s: %v is neither ErrNotNumber nor ErrIndex", tc.name, err)
		}
	}
}

// Issue 34, item 6: sizes near MaxInt are refused, not summed into a
// negative number that passed the check and panicked in the slicing.
func TestPartitionSizesOverflow(t *testing.T) {
	y := make([]float64, 120)
	for i := range y {
		y[i] = float64(i%2*2 - 1)
	}
	for _, o := range []PartitionOptions{
		{K: 2, TrainSize: math.MaxInt, TestSize: 100},
		{K: 2, TrainSize: 100, TestSize: math.MaxInt},
		{K: 2, TrainSize: math.MaxInt, TestSize: math.MaxInt},
		{K: 2, TrainSize: math.MaxInt, TestSize: 100, Stratified: true},
	} {
		if _, err := Partitions(y, o, 1); err == nil || !strings.Contains(err.Error(), "do not fit in 120 rows") {
			t.Errorf("%+v: %v, want a refusal", o, err)
		}
	}
}

// Issue 34, item 6: an input without end is read up to the limit, then
// refused naming it.
func TestReadLimited(t *testing.T) {
	if _, err := ReadAllLimited(strings.NewReader(strings.Repeat("x", 11)), "in", 10); err == nil || err.Error() != "in is larger than 10 bytes, the most kerneltune reads of one input (is it the right file?)" {
		t.Errorf("11 bytes, limit 10: %v", err)
	}
	if b, err := ReadAllLimited(strings.NewReader(strings.Repeat("x", 10)), "in", 10); err != nil || len(b) != 10 {
		t.Errorf("10 bytes, limit 10: %d, %v", len(b), err)
	}
}
