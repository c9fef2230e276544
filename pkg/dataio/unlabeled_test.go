package dataio

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// checkUnlabeled asserts the shape of data read without labels and that X
// holds want, row by row.
func checkUnlabeled(t *testing.T, d *Dataset, want [][]float64) {
	t.Helper()
	if d.Labeled() || d.Y != nil || d.Labels != (LabelMap{}) {
		t.Fatalf("labelled: Y %v, labels %+v", d.Y, d.Labels)
	}
	if d.Len() != len(want) || d.Dim() != len(want[0]) || len(d.FeatureNames) != d.Dim() {
		t.Fatalf("%d×%d with %d names, want %d×%d", d.Len(), d.Dim(), len(d.FeatureNames), len(want), len(want[0]))
	}
	for i, row := range want {
		for j, v := range row {
			if got := d.X.At(i, j); got != v {
				t.Errorf("x[%d][%d] = %v, want %v", i+1, j+1, got, v)
			}
		}
	}
	if pos, neg := d.ClassCounts(); pos != 0 || neg != 0 {
		t.Errorf("class counts %d/%d without labels", pos, neg)
	}
}

func TestUnlabeledCSV(t *testing.T) {
	un := ReadOptions{Unlabeled: true}
	d, err := ReadCSV(strings.NewReader("age,chol,bp\n63,233,145\n# a comment\n\n37,250,130.5\n"), "new.csv", un)
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{63, 233, 145}, {37, 250, 130.5}})
	if strings.Join(d.FeatureNames, ",") != "age,chol,bp" || d.Format != "csv" || d.Name != "new" || d.SHA256 == "" {
		t.Errorf("names %v, format %s, name %s, sha %q", d.FeatureNames, d.Format, d.Name, d.SHA256)
	}
	// No header, white space, one column: every field is a feature.
	d, err = ReadCSV(strings.NewReader("1 2\n3 4\n-5 6e-1\n"), "w.dat", un)
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{1, 2}, {3, 4}, {-5, 0.6}})
	if strings.Join(d.FeatureNames, ",") != "f1,f2" {
		t.Errorf("names %v", d.FeatureNames)
	}
	d, err = ReadCSV(strings.NewReader("0.5\n-1\n"), "one.csv", un)
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{0.5}, {-1}})
	// Header forced: a first row of numbers is names.
	d, err = ReadCSV(strings.NewReader("1,2\n3,4\n"), "h.csv", ReadOptions{Unlabeled: true, Header: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{3, 4}})
	if strings.Join(d.FeatureNames, ",") != "1,2" {
		t.Errorf("names %v", d.FeatureNames)
	}
	// Missing values dropped, with the note.
	d, err = ReadCSV(strings.NewReader("1,2\n?,4\n5,6\n"), "m.csv", ReadOptions{Unlabeled: true, Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{1, 2}, {5, 6}})
	if len(d.Notes) != 1 || !strings.Contains(d.Notes[0].String(), "1 row with a missing value was dropped") {
		t.Errorf("notes %v", d.Notes)
	}
}

// heart.dat without its label column reads as the labelled file's features.
func TestUnlabeledMatchesLabeled(t *testing.T) {
	lab, err := Load(filepath.Join(td, "uci/heart.dat"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	for i := 0; i < lab.Len(); i++ {
		for j := 0; j < lab.Dim(); j++ {
			if j > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(formatFloat(lab.X.At(i, j)))
		}
		b.WriteByte('\n')
	}
	path := filepath.Join(t.TempDir(), "heart_features.dat")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	un, err := Load(path, ReadOptions{Unlabeled: true})
	if err != nil {
		t.Fatal(err)
	}
	if un.Len() != 270 || un.Dim() != 13 || un.Labeled() || un.Format != "csv" {
		t.Fatalf("%d×%d labelled %v format %s", un.Len(), un.Dim(), un.Labeled(), un.Format)
	}
	for i := 0; i < 270; i++ {
		for j := 0; j < 13; j++ {
			if un.X.At(i, j) != lab.X.At(i, j) {
				t.Fatalf("x[%d][%d] = %v, want %v", i+1, j+1, un.X.At(i, j), lab.X.At(i, j))
			}
		}
	}
	// Auto: 13 columns for 13 expected features is unlabelled; the
	// labelled file (14 columns) keeps its labels.
	auto, err := Load(path, ReadOptions{AutoUnlabeled: 13})
	if err != nil || auto.Labeled() || auto.Dim() != 13 {
		t.Errorf("auto on 13 columns: %v", err)
	}
	auto, err = Load(filepath.Join(td, "uci/heart.dat"), ReadOptions{AutoUnlabeled: 13})
	if err != nil || !auto.Labeled() || auto.Dim() != 13 || auto.Labels != lab.Labels {
		t.Errorf("auto on 14 columns: %v", err)
	}
}

func TestUnlabeledLIBSVM(t *testing.T) {
	in := "1:0.5 3:-1\n# comment\n2:2\r\n1:1e-3 2:0 4:7  \n"
	d, err := ReadLIBSVM(strings.NewReader(in), "new.libsvm", ReadOptions{Unlabeled: true})
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{0.5, 0, -1, 0}, {0, 2, 0, 0}, {0.001, 0, 0, 7}})
	if d.Format != "libsvm" || d.FeatureNames[3] != "f4" {
		t.Errorf("format %s names %v", d.Format, d.FeatureNames)
	}
	// Features pads the width.
	d, err = ReadLIBSVM(strings.NewReader(in), "new.libsvm", ReadOptions{Unlabeled: true, Features: 6})
	if err != nil || d.Dim() != 6 || d.X.At(2, 3) != 7 || d.X.At(2, 5) != 0 {
		t.Fatalf("Features 6: %v", err)
	}
	// Detected as LIBSVM without an extension, also with one token a line.
	for _, text := range []string{in, "3:1\n1:2\n"} {
		if f := DetectFormat("points", []byte(text)); f != "libsvm" {
			t.Errorf("DetectFormat(%q) = %s", text, f)
		}
	}
	path := filepath.Join(t.TempDir(), "points")
	if err := os.WriteFile(path, []byte("3:1\n1:2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	d, err = Load(path, ReadOptions{Unlabeled: true})
	if err != nil {
		t.Fatal(err)
	}
	checkUnlabeled(t, d, [][]float64{{0, 0, 1}, {2, 0, 0}})
	// Auto: a first token index:value means no labels; a label means labels.
	d, err = ReadLIBSVM(strings.NewReader(in), "a", ReadOptions{AutoUnlabeled: 4})
	if err != nil || d.Labeled() || d.Dim() != 4 {
		t.Errorf("auto, no labels: %v", err)
	}
	d, err = ReadLIBSVM(strings.NewReader("+1 1:1\n-1 2:1\n"), "b", ReadOptions{AutoUnlabeled: 4})
	if err != nil || !d.Labeled() || d.Y[0] != 1 || d.Y[1] != -1 {
		t.Errorf("auto, labels: %v", err)
	}
}

// Errors of unlabelled reading name the file, line and column.
func TestUnlabeledErrors(t *testing.T) {
	un := ReadOptions{Unlabeled: true}
	cases := []struct {
		name, in, format string
		opts             ReadOptions
		want             error
		msg              string
	}{
		{"csv ragged", "1,2\n3,4\n5\n", "csv", un, ErrRagged, "x:3: 1 fields, want 2 as on line 1"},
		{"csv text label", "1,2,a\n3,4,b\n", "csv", un, ErrNotNumber, `x:1:3: "a" is not a number`},
		{"csv text label hint", "x,y,z\n1,2,a\n3,4,b\n", "csv", un, ErrNotNumber, `x:2:3: "a" is not a number (the data are read without labels, so every column is a feature: is column 3 a label?)`},
		{"csv missing", "1,2\n3,NA\n", "csv", un, ErrMissing, "x:2:2: missing value"},
		// A header read as data on request: the hint is the header, not a label.
		{"csv header=no", "x1,x2\n1,2\n", "csv", ReadOptions{Unlabeled: true, Header: "no"}, ErrNotNumber, `x:1:1: "x1" is not a number (line 1 is read as data because header=no: is it a header?)`},
		{"csv inf", "1,2\n3,4\n5,inf\n", "csv", un, ErrNotFinite, "x:3:2:"},
		{"csv empty", "# nothing\n", "csv", un, ErrEmpty, "x: no data rows"},
		{"csv header only", "a,b\n", "csv", un, ErrEmpty, "x:1: no data rows after the header"},
		{"libsvm label", "1:1\n2:1\n+1 3:1\n", "libsvm", un, ErrIndex, `x:3:1: token "+1" is not index:value (the data are read without labels: is it a label?)`},
		{"libsvm order", "1:1 3:1 2:1\n", "libsvm", un, ErrIndex, "x:1:3: feature index 2 after 3"},
		{"libsvm zero index", "2:1\n0:1\n", "libsvm", un, ErrIndex, "x:2:1: feature index 0"},
		{"libsvm value", "1:1 2:abc\n", "libsvm", un, ErrNotNumber, `x:1:2: "abc" is not a number`},
		{"libsvm features", "1:1 7:1\n", "libsvm", ReadOptions{Unlabeled: true, Features: 5}, ErrIndex, "x:1:2: feature index 7 exceeds the 5 features set"},
		{"libsvm empty", "\n\n", "libsvm", un, ErrEmpty, "x: no data rows"},
		// Read with labels, a file without them says so.
		{"libsvm labelled read", "1:1 2:1\n", "libsvm", ReadOptions{}, ErrNotNumber, `x:1:1: label: the line starts with "1:1", not a label`},
		// Auto: the first line decides; a later line with a label is an error.
		{"libsvm auto mixed", "1:1\n-1 2:1\n", "libsvm", ReadOptions{AutoUnlabeled: 2}, ErrIndex, `x:2:1: token "-1" is not index:value`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			c.opts.Format = c.format
			_, err := LoadReader(strings.NewReader(c.in), "x", c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			var pe *ParseError
			if !errors.As(err, &pe) || pe.File != "x" {
				t.Errorf("%v is not a ParseError naming the file", err)
			}
			if !errors.Is(err, c.want) {
				t.Errorf("error %v is not %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Errorf("error %q does not contain %q", err, c.msg)
			}
		})
	}
}

func TestUnlabeledOptionErrors(t *testing.T) {
	for _, c := range []struct {
		path string
		opts ReadOptions
		msg  string
	}{
		{"x.csv", ReadOptions{Unlabeled: true, LabelCol: "2"}, `label column "2" given for data read without labels`},
		{"x.csv", ReadOptions{Unlabeled: true, Positive: "1"}, `positive class "1" given`},
		{"x.csv", ReadOptions{Unlabeled: true, Labels: &LabelMap{Positive: "1", Negative: "-1"}}, "label mapping given"},
		{"x.csv", ReadOptions{AutoUnlabeled: -1}, "negative number of features -1"},
		{"builtin:heart", ReadOptions{Unlabeled: true}, "builtin heart is labelled"},
		{filepath.Join(td, "ida/banana"), ReadOptions{Unlabeled: true}, "banana is labelled"},
	} {
		_, err := Load(c.path, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.msg) || strings.HasPrefix(err.Error(), "dataio: ") {
			t.Errorf("%s %+v: error %v, want %q", c.path, c.opts, err, c.msg)
		}
	}
	// AutoUnlabeled leaves builtin data and IDA sets labelled.
	for _, p := range []string{"builtin:heart", filepath.Join(td, "ida/banana")} {
		d, err := Load(p, ReadOptions{AutoUnlabeled: 13})
		if err != nil || !d.Labeled() {
			t.Errorf("%s with AutoUnlabeled: %v", p, err)
		}
	}
	// LabelCol says the file is labelled whatever its width.
	d, err := ReadCSV(strings.NewReader("1,2,3\n4,5,6\n"), "x", ReadOptions{AutoUnlabeled: 3, LabelCol: "1"})
	if err != nil || !d.Labeled() || d.Dim() != 2 || d.Labels != (LabelMap{Positive: "4", Negative: "1"}) {
		t.Errorf("AutoUnlabeled with LabelCol: %v", err)
	}
}

// Every Dataset method and the helpers that take a Dataset work without
// labels.
func TestUnlabeledDatasetMethods(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("a,b\n1,10\n2,20\n3,30\n1,10\n0,0\n"), "m.csv", ReadOptions{Unlabeled: true})
	if err != nil {
		t.Fatal(err)
	}
	s := d.Subset([]int{4, 1, 1})
	checkUnlabeled(t, s, [][]float64{{0, 0}, {2, 20}, {2, 20}})
	if s.Name != "m" || s.FeatureNames[1] != "b" {
		t.Errorf("subset name %q names %v", s.Name, s.FeatureNames)
	}
	if e := d.Subset(nil); e.Len() != 0 || e.Labeled() {
		t.Errorf("empty subset: %d rows, labelled %v", e.Len(), e.Labeled())
	}
	// A labelled data set keeps its labels in an empty subset.
	lab, _ := ReadCSV(strings.NewReader("1,a\n2,b\n"), "l.csv", ReadOptions{})
	if e := lab.Subset(nil); !e.Labeled() || e.Len() != 0 {
		t.Errorf("empty subset of labelled data: labelled %v", e.Labeled())
	}

	sum := Describe(d)
	if !sum.Unlabeled || sum.Rows != 5 || sum.Features != 2 || sum.Positive != 0 || sum.Negative != 0 ||
		sum.DuplicateRows != 1 || sum.ConflictingVectors != 0 || sum.Stats[1].Max != 30 || sum.Stats[0].Mean != 7.0/5 {
		t.Errorf("summary %+v", sum)
	}
	if Describe(lab).Unlabeled {
		t.Error("labelled data described as unlabelled")
	}

	nz, err := FitNormalizer(MinMax01, d.X)
	if err != nil {
		t.Fatal(err)
	}
	z := nz.ApplyDataset(d)
	checkUnlabeled(t, z, [][]float64{{1.0 / 3, 1.0 / 3}, {2.0 / 3, 2.0 / 3}, {1, 1}, {1.0 / 3, 1.0 / 3}, {0, 0}})
	lab2, _ := ReadCSV(strings.NewReader("1,2,a\n2,3,b\n"), "l.csv", ReadOptions{})
	if e := nz.ApplyDataset(lab2.Subset(nil)); !e.Labeled() || e.Len() != 0 {
		t.Error("normalising an empty labelled set dropped its labels")
	}

	if _, err := Partitions(d.Y, PartitionOptions{TrainFraction: 0.5}, 1); err == nil {
		t.Error("partitions of no labels")
	}

	// Written and read back without labels, both formats; the all-zero row
	// survives LIBSVM as "1:0".
	var b bytes.Buffer
	if err := WriteCSV(&b, d); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "a,b\n1,10\n2,20\n3,30\n1,10\n0,0\n" {
		t.Errorf("CSV:\n%s", got)
	}
	back, err := ReadCSV(&b, "back", ReadOptions{Unlabeled: true})
	if err != nil || !equalData(d, back) || back.FeatureNames[0] != "a" {
		t.Errorf("CSV round trip: %v", err)
	}
	b.Reset()
	if err := WriteLIBSVM(&b, d); err != nil {
		t.Fatal(err)
	}
	if got := b.String(); got != "1:1 2:10\n1:2 2:20\n1:3 2:30\n1:1 2:10\n1:0\n" {
		t.Errorf("LIBSVM:\n%s", got)
	}
	back, err = ReadLIBSVM(&b, "back", ReadOptions{Unlabeled: true})
	if err != nil || !equalData(d, back) {
		t.Errorf("LIBSVM round trip: %v", err)
	}
}
