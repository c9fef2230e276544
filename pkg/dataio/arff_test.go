package dataio

import (
	"errors"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// The real ARFF and nominal files of testdata/arff and testdata/nominal
// (provenance in testdata/PROVENANCE.md) read with their published sizes:
// rows, feature columns, features after one-hot encoding, and every class
// with its count.
func TestCorpusCounts(t *testing.T) {
	codes := ReadOptions{Categorical: "codes", AnyClasses: true}
	drop := ReadOptions{Categorical: "codes", AnyClasses: true, Missing: "drop"}
	cases := []struct {
		file    string
		opts    ReadOptions
		format  string
		rows    int
		feats   int
		nominal int // nominal feature columns
		onehot  int // features after FitOneHot/Apply (categories present)
		classes []ClassCount
	}{
		{"arff/iris.arff", codes, "arff", 150, 4, 0, 4, []ClassCount{{"Iris-setosa", 50}, {"Iris-versicolor", 50}, {"Iris-virginica", 50}}},
		{"arff/weather.nominal.arff", codes, "arff", 14, 4, 4, 10, []ClassCount{{"no", 5}, {"yes", 9}}},
		{"arff/weather.numeric.arff", codes, "arff", 14, 4, 2, 7, []ClassCount{{"no", 5}, {"yes", 9}}},
		{"arff/contact-lenses.arff", codes, "arff", 24, 4, 4, 9, []ClassCount{{"none", 15}, {"soft", 5}, {"hard", 4}}},
		{"arff/diabetes.arff", codes, "arff", 768, 8, 0, 8, []ClassCount{{"tested_positive", 268}, {"tested_negative", 500}}},
		// vote: 435 rows, 203 with a "?"; breast-cancer: 286 rows, 9 with one.
		{"arff/vote.arff", drop, "arff", 232, 16, 16, 32, []ClassCount{{"democrat", 124}, {"republican", 108}}},
		{"arff/breast-cancer.arff", drop, "arff", 277, 9, 9, 41, []ClassCount{{"recurrence-events", 81}, {"no-recurrence-events", 196}}},
		{"arff/heart-sparse.arff", codes, "arff", 270, 13, 0, 13, []ClassCount{{"1", 120}, {"-1", 150}}},
		{"nominal/tennis.csv", codes, "csv", 14, 4, 4, 10, []ClassCount{{"no", 5}, {"yes", 9}}},
		// deg-malig (1, 2, 3) is declared nominal in the ARFF file, but in
		// CSV numbers are numbers.
		{"nominal/breast-cancer.csv", drop, "csv", 277, 9, 8, 39, []ClassCount{{"recurrence-events", 81}, {"no-recurrence-events", 196}}},
		{"nominal/votes.data", ReadOptions{Categorical: "codes", Missing: "drop", LabelCol: "1"}, "csv", 232, 16, 16, 32, []ClassCount{{"democrat", 124}, {"republican", 108}}},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			d, err := Load(filepath.Join(td, c.file), c.opts)
			if err != nil {
				t.Fatal(err)
			}
			if d.Format != c.format || d.Len() != c.rows || d.Dim() != c.feats || len(d.Nominal) != c.nominal {
				t.Errorf("%s %d rows × %d features, %d nominal; want %s %d × %d, %d", d.Format, d.Len(), d.Dim(), len(d.Nominal), c.format, c.rows, c.feats, c.nominal)
			}
			if !reflect.DeepEqual(d.Classes, c.classes) {
				t.Errorf("classes %v, want %v", d.Classes, c.classes)
			}
			enc, err := FitOneHot(d)
			if err != nil {
				t.Fatal(err)
			}
			e := d
			if enc != nil {
				if e, err = enc.Apply(d); err != nil {
					t.Fatal(err)
				}
			}
			if e.Dim() != c.onehot || len(e.FeatureNames) != c.onehot {
				t.Errorf("%d features (%d names) one-hot, want %d", e.Dim(), len(e.FeatureNames), c.onehot)
			}
		})
	}
}

// labor.arff has a "?" in all but one of its 57 rows: an error at the first,
// and with missing=drop one row of one class is left. heart-sparse.arff is
// heart_scale in sparse ARFF rows: the same numbers and labels.
func TestCorpusMissingAndSparse(t *testing.T) {
	labor := filepath.Join(td, "arff/labor.arff")
	_, err := Load(labor, ReadOptions{Categorical: "codes"})
	var pe *ParseError
	if !errors.As(err, &pe) || !errors.Is(err, ErrMissing) || pe.Line != 105 || pe.Col != 3 {
		t.Errorf("labor: %v, want a missing value at line 105 column 3", err)
	}
	_, err = Load(labor, ReadOptions{Categorical: "codes", Missing: "drop"})
	if !errors.Is(err, ErrOneClass) || !strings.Contains(err.Error(), `only one class: "bad" (1 row)`) {
		t.Errorf("labor, missing=drop: %v", err)
	}
	sparse, err := Load(filepath.Join(td, "arff/heart-sparse.arff"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dense, err := Load(filepath.Join(td, "libsvm/heart_scale"), ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !equalData(sparse, dense) {
		t.Errorf("heart-sparse.arff reads differently from heart_scale")
	}
}

// The details of the ARFF reader on one small file: case-insensitive
// keywords, % comments, quoted names and values with escapes and commas,
// integer/real types, nominal codes in declared order, a class that is not
// last (label-col), and a sparse row whose omitted nominal value is the
// first category.
func TestARFFDetails(t *testing.T) {
	src := `% a comment
@RELATION 'test relation'

@Attribute 'outlook kind' {sunny, 'over, cast', "rain\'y"}
@attribute temp INTEGER
@ATTRIBUTE class {yes,no}
@attribute humidity Real
% between the header and the data
@DATA
sunny,85,no,85.5
'over, cast' , 80 , yes , 90
"rain'y",70,yes,?
{1 64, 2 yes, 3 65}
`
	d, err := readBytes([]byte(src), "t.arff", ReadOptions{Categorical: "codes", LabelCol: "class", Missing: "drop"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Format != "arff" || d.Len() != 3 || d.Dim() != 3 {
		t.Fatalf("%s %d×%d, want arff 3×3", d.Format, d.Len(), d.Dim())
	}
	if want := []string{"outlook kind", "temp", "humidity"}; !reflect.DeepEqual(d.FeatureNames, want) {
		t.Errorf("names %q, want %q", d.FeatureNames, want)
	}
	if want := []NominalFeature{{0, "outlook kind", []string{"sunny", "over, cast", "rain'y"}}}; !reflect.DeepEqual(d.Nominal, want) {
		t.Errorf("nominal %+v, want %+v", d.Nominal, want)
	}
	wantX := [][]float64{{0, 85, 85.5}, {1, 80, 90}, {0, 64, 65}}
	for i, row := range wantX {
		for j, v := range row {
			if got := d.X.At(i, j); got != v {
				t.Errorf("X[%d][%d] = %v, want %v", i, j, got, v)
			}
		}
	}
	// "yes" is later in byte order than "no": +1.
	if want := []float64{-1, 1, 1}; !reflect.DeepEqual(d.Y, want) || d.Labels != (LabelMap{Positive: "yes", Negative: "no"}) {
		t.Errorf("y %v %+v", d.Y, d.Labels)
	}
	if len(d.Notes) != 1 || d.Notes[0].String() != "1 row with a missing value was dropped" {
		t.Errorf("notes %q", d.Notes)
	}
	// Detected by content without the extension.
	if got := DetectFormat("weather.txt", []byte("% c\n\n@relation w\n@attribute x numeric\n")); got != "arff" {
		t.Errorf("detected %q, want arff", got)
	}
	if got := DetectFormat("x.arff", []byte("1,2,3\n")); got != "arff" {
		t.Errorf("detected %q from .arff, want arff", got)
	}
}

// Errors of the ARFF reader that the bad files do not show.
func TestARFFErrors(t *testing.T) {
	head := "@relation r\n@attribute c {red,green}\n@attribute x numeric\n@attribute class {a,b}\n@data\n"
	cases := []struct {
		name, src string
		opts      ReadOptions
		want      error
		msg       string
	}{
		{"undeclared value", head + "red,1,a\nblue,2,b\n", ReadOptions{Categorical: "codes"}, ErrNotNumber,
			`t.arff:7:1: "blue" is not one of the declared values {red,green} of attribute "c"`},
		{"nominal refused", head + "red,1,a\n", ReadOptions{}, ErrNominal,
			`t.arff:2: features must be numbers; a nominal (text) attribute: 1 (c) {red,green}; encode them with categorical=onehot`},
		{"label-col by number", head + "red,1,a\ngreen,2,b\n", ReadOptions{LabelCol: "2"}, ErrNominal,
			`t.arff:2: features must be numbers; 2 nominal (text) attributes: 1 (c) {red,green}; 3 (class) {a,b}; encode them with categorical=onehot`},
		{"no such class attribute", head + "red,1,a\n", ReadOptions{LabelCol: "kind"}, nil,
			`read t.arff: no column named "kind" (columns: c, x, class)`},
		{"weights", head + "red,1,a,{2}\n", ReadOptions{Categorical: "codes"}, nil,
			`t.arff:6: instance weights ({w} after a row) are not supported`},
		{"text before @data", "@relation r\nx,y\n", ReadOptions{}, nil,
			`t.arff:2: "x,y" before @data: want @relation, @attribute or @data`},
		{"relational", "@relation r\n@attribute bag relational\n", ReadOptions{}, nil,
			`t.arff:2: attribute "bag" is relational`},
		{"date feature", "@relation r\n@attribute when date \"yyyy-MM-dd\"\n@attribute class {a,b}\n@data\n2020-01-01,a\n", ReadOptions{}, nil,
			`t.arff:2: attribute 1 "when" is a date attribute`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := readBytes([]byte(c.src), "t.arff", c.opts)
			if err == nil {
				t.Fatal("no error")
			}
			if c.want != nil && !errors.Is(err, c.want) {
				t.Errorf("%v is not %v", err, c.want)
			}
			if !strings.HasPrefix(err.Error(), c.msg) {
				t.Errorf("error\n%q\ndoes not start with\n%q", err, c.msg)
			}
		})
	}
	// A string attribute is fine as the class.
	d, err := readBytes([]byte("@relation r\n@attribute x numeric\n@attribute who string\n@data\n1,'a b'\n2,c\n"), "t.arff", ReadOptions{})
	if err != nil || d.Labels != (LabelMap{Positive: "c", Negative: "a b"}) {
		t.Errorf("string class: %v %+v", err, d)
	}
}

// A CSV file whose every field is a letter (UCI's mushroom and house-votes
// layout) has no header: its first row is data like the others. A file of
// letters under a row of names has one; so has the classic names-over-
// numbers file. Nominal columns are read as codes of their sorted values.
func TestNominalCSV(t *testing.T) {
	letters := "p,x,s,n\ne,x,y,y\ne,b,s,w\np,x,y,w\n"
	d, err := readBytes([]byte(letters), "m.csv", ReadOptions{Categorical: "codes", LabelCol: "1"})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 4 || d.Dim() != 3 || d.FeatureNames[0] != "f1" {
		t.Fatalf("%d×%d %q: the first row was taken for a header", d.Len(), d.Dim(), d.FeatureNames)
	}
	want := []NominalFeature{{0, "f1", []string{"b", "x"}}, {1, "f2", []string{"s", "y"}}, {2, "f3", []string{"n", "w", "y"}}}
	if !reflect.DeepEqual(d.Nominal, want) {
		t.Errorf("nominal %+v, want %+v", d.Nominal, want)
	}
	if got := d.X.RawRowView(0); !reflect.DeepEqual(got, []float64{1, 0, 0}) {
		t.Errorf("row 1 codes %v, want [1 0 0]", got)
	}
	if d.Labels != (LabelMap{Positive: "p", Negative: "e"}) {
		t.Errorf("labels %+v", d.Labels)
	}

	named := "class,cap,odor\np,x,n\ne,x,y\ne,b,y\np,x,n\n"
	d, err = readBytes([]byte(named), "m.csv", ReadOptions{Categorical: "codes", LabelCol: "class"})
	if err != nil || d.Len() != 4 || !reflect.DeepEqual(d.FeatureNames, []string{"cap", "odor"}) {
		t.Fatalf("header over letters: %v %+v", err, d)
	}

	// Without codes the error names every nominal column and the option.
	_, err = readBytes([]byte(letters), "m.csv", ReadOptions{})
	if !errors.Is(err, ErrNominal) || !errors.Is(err, ErrNotNumber) {
		t.Fatalf("%v is not ErrNominal", err)
	}
	if want := `m.csv:1:1: "p" is not a number; 3 nominal (text) columns: 1 (f1) {e,p}; 2 (f2) {b,x}; 3 (f3) {s,y}; encode them with categorical=onehot`; err.Error() != want {
		t.Errorf("error\n%s\nwant\n%s", err, want)
	}
	// A mixed column (car's doors: 2, 3, 4, 5more) is nominal as a whole.
	d, err = readBytes([]byte("doors,c\n2,a\n5more,b\n4,a\n"), "car.csv", ReadOptions{Categorical: "codes"})
	if err != nil || !reflect.DeepEqual(d.Nominal, []NominalFeature{{0, "doors", []string{"2", "4", "5more"}}}) {
		t.Errorf("mixed column: %v %+v", err, d.Nominal)
	}
}

// The encoder is fitted on the training rows only: a category the test
// part alone has encodes as all zeros; names are "column=category"; a test
// file's column read as numbers is matched by text; a model's encoder
// refuses data of another width.
func TestOneHot(t *testing.T) {
	src := "colour,size,w,y\nred,1,0.5,a\ngreen,2,1.5,b\nred,2,2.5,a\nblue,1,3.5,b\n"
	d, err := readBytes([]byte(src), "c.csv", ReadOptions{Categorical: "codes", Header: "yes"})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Nominal) != 1 || d.Nominal[0].Name != "colour" {
		t.Fatalf("nominal %+v", d.Nominal)
	}
	train, test := d.Subset([]int{0, 1, 2}), d.Subset([]int{3})
	enc, err := FitOneHot(train)
	if err != nil {
		t.Fatal(err)
	}
	// Levels in byte order, only those in the training part: no "blue".
	if want := []OneHotColumn{{Feature: 0, Name: "colour", Levels: []string{"green", "red"}}}; !reflect.DeepEqual(enc.Columns, want) {
		t.Errorf("columns %+v, want %+v", enc.Columns, want)
	}
	tr, err := enc.Apply(train)
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"colour=green", "colour=red", "size", "w"}; !reflect.DeepEqual(tr.FeatureNames, want) {
		t.Errorf("names %q, want %q", tr.FeatureNames, want)
	}
	wantTr := [][]float64{{0, 1, 1, 0.5}, {1, 0, 2, 1.5}, {0, 1, 2, 2.5}}
	for i, row := range wantTr {
		if got := tr.X.RawRowView(i); !reflect.DeepEqual(got, row) {
			t.Errorf("train row %d = %v, want %v", i, got, row)
		}
	}
	te, err := enc.Apply(test)
	if err != nil {
		t.Fatal(err)
	}
	if got := te.X.RawRowView(0); !reflect.DeepEqual(got, []float64{0, 0, 1, 3.5}) {
		t.Errorf("unseen category: %v, want [0 0 1 3.5]", got)
	}
	if tr.Encoder != enc || tr.Nominal != nil || te.Y[0] != d.Y[3] {
		t.Errorf("encoded data: encoder %p nominal %v", tr.Encoder, tr.Nominal)
	}
	// A file where "colour" holds numbers only: matched by their text.
	num, err := readBytes([]byte("colour,size,w,y\n7,1,0,a\n"), "n.csv", ReadOptions{Categorical: "codes", Labels: &d.Labels})
	if err != nil {
		t.Fatal(err)
	}
	enc2 := &OneHot{InputFeatures: 3, InputNames: []string{"colour", "size", "w"}, Columns: []OneHotColumn{{0, "colour", []string{"7", "x"}}}}
	e2, err := enc2.Apply(num)
	if err != nil || !reflect.DeepEqual(e2.X.RawRowView(0), []float64{1, 0, 1, 0}) {
		t.Errorf("numeric column matched by text: %v %v", err, e2)
	}
	if _, err := enc.Apply(d.Subset(nil)); err != nil {
		t.Errorf("no rows: %v", err)
	}
	wide, _ := readBytes([]byte("a,b,c,d,y\nred,1,2,3,a\n"), "w.csv", ReadOptions{Categorical: "codes", Labels: &d.Labels})
	if _, err := enc.Apply(wide); err == nil || !strings.Contains(err.Error(), "has 4 feature columns, the one-hot encoding was fitted on 3") {
		t.Errorf("wrong width: %v", err)
	}
	if d2, _ := readBytes([]byte("1,2,a\n3,4,b\n"), "n.csv", ReadOptions{}); d2 != nil {
		if e, err := FitOneHot(d2); e != nil || err != nil {
			t.Errorf("numeric data: encoder %v %v, want none", e, err)
		}
	}
}

// More than two classes: Positive makes one against the rest, Classes keeps
// two (dropping the others, with a note), neither is an error naming the
// classes with their counts; a one-vs-rest mapping reads a test file with
// any other class as -1.
func TestMultiClass(t *testing.T) {
	src := "1,a\n2,b\n3,c\n4,a\n5,c\n6,c\n"
	d, err := readBytes([]byte(src), "m.csv", ReadOptions{Positive: "c"})
	if err != nil {
		t.Fatal(err)
	}
	if want := []float64{-1, -1, 1, -1, 1, 1}; !reflect.DeepEqual(d.Y, want) {
		t.Errorf("one-vs-rest y %v, want %v", d.Y, want)
	}
	if d.Labels != (LabelMap{Positive: "c", Negative: "not c", OneVsRest: true}) {
		t.Errorf("labels %+v", d.Labels)
	}
	d, err = readBytes([]byte(src), "m.csv", ReadOptions{Classes: []string{"a", "c"}})
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 5 || d.X.At(1, 0) != 3 || d.Labels != (LabelMap{Positive: "c", Negative: "a"}) {
		t.Errorf("classes a,c: %d rows, x %v, labels %+v", d.Len(), d.X.RawMatrix().Data, d.Labels)
	}
	if want := `classes "c" and "a" kept: 1 rows of the other classes dropped`; len(d.Notes) != 1 || d.Notes[0].String() != want {
		t.Errorf("notes %q", d.Notes)
	}
	d, err = readBytes([]byte(src), "m.csv", ReadOptions{Classes: []string{"a", "c"}, Positive: "a"})
	if err != nil || d.Labels.Positive != "a" || d.Y[0] != 1 {
		t.Errorf("classes with positive: %v %+v", err, d)
	}
	// Neither Positive nor Classes: multi-class, the classes in the order
	// the file first shows them.
	d, err = readBytes([]byte(src), "m.csv", ReadOptions{})
	if err != nil || !d.MultiClass() || d.Y != nil || !slices.Equal(d.ClassLabels, []string{"a", "b", "c"}) ||
		!slices.Equal(d.Class, []int{0, 1, 2, 0, 2, 2}) || !slices.Equal(d.ClassSizes(), []int{2, 1, 3}) {
		t.Errorf("multi-class: %v %+v", err, d)
	}
	_, err = readBytes([]byte(src), "m.csv", ReadOptions{Positive: "z"})
	if err == nil || !strings.Contains(err.Error(), `positive class "z" is not one of the 3 classes "a" (2 rows), "b" (1 row), "c" (3 rows)`) {
		t.Errorf("unknown positive: %v", err)
	}
	_, err = readBytes([]byte(src), "m.csv", ReadOptions{Classes: []string{"a", "z"}})
	if !errors.Is(err, ErrUnknownLabel) {
		t.Errorf("unknown class: %v", err)
	}
	// A test file read with a one-vs-rest mapping: "d" is also "not c".
	lm := LabelMap{Positive: "c", Negative: "not c", OneVsRest: true}
	d, err = readBytes([]byte("1,c\n2,d\n3,a\n"), "t.csv", ReadOptions{Labels: &lm})
	if err != nil || !reflect.DeepEqual(d.Y, []float64{1, -1, -1}) {
		t.Errorf("one-vs-rest test file: %v %v", err, d)
	}
	// Numeric labels match however the user spells them.
	d, err = readBytes([]byte("1,1\n2,2\n3,3\n"), "n.csv", ReadOptions{Positive: "2.0"})
	if err != nil || !reflect.DeepEqual(d.Y, []float64{-1, 1, -1}) {
		t.Errorf("numeric one-vs-rest: %v %v", err, d)
	}
	// AnyClasses (info) reads without a mapping.
	d, err = readBytes([]byte(src), "m.csv", ReadOptions{AnyClasses: true})
	if err != nil || d.Labeled() || d.Len() != 6 || len(d.Classes) != 3 || d.Classes[2] != (ClassCount{"c", 3}) {
		t.Errorf("any classes: %v %+v", err, d)
	}
}
