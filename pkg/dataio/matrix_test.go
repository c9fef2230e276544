package dataio

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"
)

func TestReadMatrix(t *testing.T) {
	for _, tc := range []struct {
		name, in string
		want     [][]float64
	}{
		{"spaces", "1 0\n0 2\n", [][]float64{{1, 0}, {0, 2}}},
		{"mixed separators, comments, blank lines", "# Q = 2γI\n\n 0.2, 0 ;0\n0\t0.2  0\r\n\n0;0;0.2\n# end\n",
			[][]float64{{0.2, 0, 0}, {0, 0.2, 0}, {0, 0, 0.2}}},
		{"exponents, signs, no final newline", "1e-3 -2.5\n+4 .5", [][]float64{{0.001, -2.5}, {4, 0.5}}},
		{"not square is the caller's business", "1 2 3\n", [][]float64{{1, 2, 3}}},
	} {
		got, err := ReadMatrix(strings.NewReader(tc.in), "q.txt")
		if err != nil || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, %v; want %v", tc.name, got, err, tc.want)
		}
	}
}

func TestReadMatrixErrors(t *testing.T) {
	for _, tc := range []struct {
		name, in  string
		line, col int
		want      error
		msg       string
	}{
		{"word", "1 0\n0 x\n", 2, 2, ErrNotNumber, `q.txt:2:2: "x" is not a number`},
		{"NaN", "# c\n1 NaN\n", 2, 2, ErrNotFinite, `q.txt:2:2: "NaN" is not a finite number`},
		{"Inf", "-Inf\n", 1, 1, ErrNotFinite, `q.txt:1:1: "-Inf" is not a finite number`},
		{"ragged", "1 0\n\n0\n", 3, 0, ErrRagged, "q.txt:3: 1 numbers, the first row has 2"},
		{"empty", "", 0, 0, ErrEmpty, "q.txt: no matrix rows"},
		{"comments only", "# nothing\n\n", 0, 0, ErrEmpty, "q.txt: no matrix rows"},
	} {
		_, err := ReadMatrix(strings.NewReader(tc.in), "q.txt")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.File != "q.txt" || pe.Line != tc.line || pe.Col != tc.col || !errors.Is(err, tc.want) {
			t.Errorf("%s: error %#v, want a ParseError at q.txt:%d:%d wrapping %v", tc.name, err, tc.line, tc.col, tc.want)
			continue
		}
		if err.Error() != tc.msg {
			t.Errorf("%s: message %q, want %q", tc.name, err, tc.msg)
		}
	}

	// A read error is a ParseError of the whole input that wraps it.
	boom := errors.New("disk on fire")
	_, err := ReadMatrix(iotest.ErrReader(boom), "q.txt")
	var pe *ParseError
	if !errors.As(err, &pe) || pe.Line != 0 || !errors.Is(err, boom) || err.Error() != "q.txt: disk on fire" {
		t.Errorf("read error: %#v", err)
	}
}

func TestFeatureNameMismatch(t *testing.T) {
	for _, tc := range []struct {
		name string
		a, b []string
		want int
	}{
		{"same header", []string{"age", "bp"}, []string{"age", "bp"}, -1},
		{"swapped columns", []string{"age", "bp", "chol"}, []string{"age", "chol", "bp"}, 1},
		{"first differs", []string{"x", "y"}, []string{"y", "x"}, 0},
		{"a has default names", []string{"f1", "f2"}, []string{"age", "bp"}, -1},
		{"b has default names", []string{"age", "bp"}, []string{"f1", "f2"}, -1},
		{"different widths", []string{"age", "bp"}, []string{"age"}, -1},
		{"no features", nil, nil, -1},
	} {
		if got := FeatureNameMismatch(tc.a, tc.b); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		names []string
		want  bool
	}{
		{[]string{"f1", "f2", "f3"}, true},
		{nil, true},
		{[]string{"f1", "f3"}, false},
		{[]string{"f2"}, false},
		{[]string{"F1"}, false},
		{[]string{"f1", "age"}, false},
	} {
		if got := DefaultFeatureNames(tc.names); got != tc.want {
			t.Errorf("DefaultFeatureNames(%q) = %v, want %v", tc.names, got, tc.want)
		}
	}
}

// TestReaderDefaultNames: what the readers name unnamed features is what
// DefaultFeatureNames recognises.
func TestReaderDefaultNames(t *testing.T) {
	d, err := ReadLIBSVM(strings.NewReader("+1 1:1 3:2\n-1 2:1\n"), "x.libsvm", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !DefaultFeatureNames(d.FeatureNames) || len(d.FeatureNames) != 3 {
		t.Errorf("LIBSVM feature names %q", d.FeatureNames)
	}
	d, err = ReadCSV(strings.NewReader("1,2,a\n3,4,b\n"), "x.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !DefaultFeatureNames(d.FeatureNames) || len(d.FeatureNames) != 2 {
		t.Errorf("CSV without header: feature names %q", d.FeatureNames)
	}
}

func TestSplitAt(t *testing.T) {
	d, err := ReadCSV(strings.NewReader("x,y,label\n1,10,a\n2,20,b\n3,30,a\n4,40,b\n5,50,b\n"), "s.csv", ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	head, tail := d.SplitAt(2)
	if head.Len() != 2 || tail.Len() != 3 || head.Dim() != 2 || tail.Dim() != 2 {
		t.Fatalf("SplitAt(2) of 5 rows: %d and %d rows", head.Len(), tail.Len())
	}
	if head.X.At(1, 1) != 20 || tail.X.At(0, 0) != 3 || tail.X.At(2, 1) != 50 {
		t.Errorf("rows: head %v, tail %v", head.X.RawMatrix().Data, tail.X.RawMatrix().Data)
	}
	if !reflect.DeepEqual(head.Y, d.Y[:2]) || !reflect.DeepEqual(tail.Y, d.Y[2:]) {
		t.Errorf("labels: head %v, tail %v, all %v", head.Y, tail.Y, d.Y)
	}
	if tail.Labels != d.Labels || !reflect.DeepEqual(tail.FeatureNames, []string{"x", "y"}) {
		t.Errorf("tail lost the label map or names: %+v %q", tail.Labels, tail.FeatureNames)
	}
	// Copies: changing a part leaves d alone.
	head.X.Set(0, 0, -1)
	if d.X.At(0, 0) != 1 {
		t.Error("SplitAt shares rows with d")
	}
	for _, n := range []int{0, 5} {
		h, tl := d.SplitAt(n)
		if h.Len() != n || tl.Len() != 5-n {
			t.Errorf("SplitAt(%d): %d and %d rows", n, h.Len(), tl.Len())
		}
	}
	defer func() {
		if recover() == nil {
			t.Error("SplitAt(6) of 5 rows did not panic")
		}
	}()
	d.SplitAt(6)
}
