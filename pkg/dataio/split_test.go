package dataio

import (
	"context"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

func colMeanStd(d *Dataset, j int) (float64, float64) {
	n := d.Len()
	m, s := 0.0, 0.0
	for i := 0; i < n; i++ {
		m += d.X.At(i, j)
	}
	m /= float64(n)
	for i := 0; i < n; i++ {
		r := d.X.At(i, j) - m
		s += r * r
	}
	return m, math.Sqrt(s / float64(n))
}

func splitFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// loadSplit is LoadSplit's parts, or its error.
func loadSplit(path string, s SplitSettings) (train, test *Dataset, norm *Normalizer, err error) {
	tt, err := LoadSplit(context.Background(), path, s)
	if err != nil {
		return nil, nil, nil, err
	}
	return tt.Train, tt.Test, tt.Norm, nil
}

func TestLoadSplitFraction(t *testing.T) {
	s := SplitSettings{TestFraction: 0.25, Seed: 1}
	train, test, norm, err := loadSplit("builtin:heart", s)
	if err != nil {
		t.Fatal(err)
	}
	// round(0.75·270) = 203 training rows, the other 67 test.
	if train.Len() != 203 || test.Len() != 67 {
		t.Fatalf("%d/%d rows", train.Len(), test.Len())
	}
	if norm.Kind != ZScore || norm.Dim() != 13 {
		t.Errorf("normaliser %+v", norm)
	}
	// Fitted on the training part only: there mean 0 and std 1 exactly, on
	// the test part not.
	for j := 0; j < 13; j++ {
		m, s := colMeanStd(train, j)
		if math.Abs(m) > 1e-12 || math.Abs(s-1) > 1e-12 {
			t.Errorf("train feature %d: mean %g std %g", j+1, m, s)
		}
	}
	if m, _ := colMeanStd(test, 0); m == 0 {
		t.Error("test part normalised with its own statistics")
	}
	// Deterministic from the seed, and the seed matters.
	train2, _, _, _ := loadSplit("builtin:heart", s)
	s.Seed = 2
	train3, _, _, _ := loadSplit("builtin:heart", s)
	if train2.X.At(0, 0) != train.X.At(0, 0) || train2.X.At(5, 3) != train.X.At(5, 3) {
		t.Error("same seed, different split")
	}
	if train3.X.At(0, 0) == train.X.At(0, 0) && train3.X.At(1, 0) == train.X.At(1, 0) && train3.X.At(2, 0) == train.X.At(2, 0) {
		t.Error("seeds 1 and 2 give the same split")
	}
	if got := train.Notes[len(train.Notes)-1]; got.String() != "test part: 67 of 270 rows held out at random (test-fraction=0.25, seed=1)" {
		t.Errorf("note %q", got)
	}
}

func TestLoadSplitFile(t *testing.T) {
	dir := t.TempDir()
	heart := filepath.Join(td, "uci/heart.dat")
	// A test file whose only class is "1": mapped with the training labels
	// (+1 = "2"), so its rows are -1.
	one := splitFile(t, dir, "one.dat", "70 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n60 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n")
	train, test, norm, err := loadSplit(heart, SplitSettings{Test: one, Normalize: MinMax01})
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 270 || test.Len() != 2 || test.Y[0] != -1 || test.Labels != train.Labels || norm.Kind != MinMax01 {
		t.Errorf("train %d test %d y %v labels %v/%v", train.Len(), test.Len(), test.Y, test.Labels, train.Labels)
	}
	// age 70 in heart.dat's range [29, 77] → (70-29)/48.
	if got := test.X.At(0, 0); math.Abs(got-41.0/48) > 1e-12 {
		t.Errorf("test age → %v, want %v", got, 41.0/48)
	}
	// Positive applies to the training file; the test file follows it.
	_, test, _, err = loadSplit(heart, SplitSettings{Test: one, Read: ReadOptions{Positive: "1"}})
	if err != nil || test.Y[0] != 1 {
		t.Errorf("with positive 1 the test rows are %v (%v)", test.Y, err)
	}
	// A label the training file does not have is an error naming the line.
	bad := splitFile(t, dir, "bad.dat", "70 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n60 1 4 130 322 0 2 109 0 2.4 2 3 3 3\n")
	_, _, _, err = loadSplit(heart, SplitSettings{Test: bad})
	if !errors.Is(err, ErrUnknownLabel) || !strings.Contains(err.Error(), "bad.dat:2:") {
		t.Errorf("error %v", err)
	}
	// A different width is an error.
	narrow := splitFile(t, dir, "narrow.dat", "70 1 4 1\n60 1 4 2\n")
	if _, _, _, err = loadSplit(heart, SplitSettings{Test: narrow}); err == nil || !strings.Contains(err.Error(), "has 3 features") {
		t.Errorf("error %v", err)
	}
	// LIBSVM: a test file is read at its own width; of the training
	// file's (a1a: 119) it is read, of another it is a *TestWidthError
	// that names the Features option, which reads both at one width.
	a1a := filepath.Join(td, "libsvm/a1a")
	small := splitFile(t, dir, "small.t", "+1 3:1 5:1\n-1 119:1\n")
	train, test, _, err = loadSplit(a1a, SplitSettings{Test: small})
	if err != nil || test.Dim() != 119 || train.Dim() != 119 || test.Y[0] != 1 {
		t.Fatalf("%v", err)
	}
	wide := splitFile(t, dir, "wide.t", "+1 3:1 123:1\n-1 5:1\n")
	var we *TestWidthError
	if _, _, _, err = loadSplit(a1a, SplitSettings{Test: wide}); !errors.As(err, &we) || we.TestFeatures != 123 || we.TrainFeatures != 119 || !we.LIBSVM ||
		!strings.Contains(err.Error(), "features=123") {
		t.Errorf("error %v", err)
	}
	narrower := splitFile(t, dir, "narrower.t", "+1 3:1 5:1\n-1 7:1\n")
	if _, _, _, err = loadSplit(a1a, SplitSettings{Test: narrower}); !errors.As(err, &we) || we.TestFeatures != 7 || we.TrainFeatures != 119 {
		t.Errorf("narrower test file: %v", err)
	}
	if _, test, _, err = loadSplit(a1a, SplitSettings{Test: narrower, Read: ReadOptions{Features: 123}}); err != nil || test.Dim() != 123 || test.X.At(1, 6) != 1 {
		t.Errorf("narrower, Features 123: %v", err)
	}
	if _, test, _, err = loadSplit(a1a, SplitSettings{Test: wide, Read: ReadOptions{Features: 123}}); err != nil || test.Dim() != 123 {
		t.Errorf("Features 123: %v", err)
	}
	// A label column for a LIBSVM file is refused.
	var lce *LabelColError
	if _, _, _, err = loadSplit(a1a, SplitSettings{Read: ReadOptions{LabelCol: "2"}}); !errors.As(err, &lce) || lce.LabelCol != "2" || lce.Source != a1a {
		t.Errorf("label column for LIBSVM: %v", err)
	}
}

func TestLoadSplitIDA(t *testing.T) {
	train, test, _, err := loadSplit(filepath.Join(td, "ida/banana"), SplitSettings{})
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 400 || test.Len() != 4900 || !strings.Contains(strings.Join(hint.Strings(train.Notes), "\n"), "realisation 1 of 10") {
		t.Errorf("%d/%d %v", train.Len(), test.Len(), train.Notes)
	}
	// No test part for a plain file.
	train, test, _, err = loadSplit("builtin:diabetes", SplitSettings{})
	if err != nil || test != nil || train.Len() != 768 {
		t.Errorf("%v %v", test, err)
	}
}

// A normaliser that cannot be fitted says on which file.
func TestLoadSplitNormalizeErrorNamesFile(t *testing.T) {
	path := splitFile(t, t.TempDir(), "huge.csv", "a,b,label\n1e308,2,1\n-1e308,4,-1\n5,6,1\n7,1,-1\n")
	_, _, _, err := loadSplit(path, SplitSettings{Normalize: MinMax01})
	if want := path + ": fit minmax01 normaliser: feature 1 ranges from -1e+308 to 1e+308"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to start %q", err, want)
	}
}

// EncodeOneHot fits on the training rows only: "blue" is only in the test
// part and encodes as all zeros.
func TestEncodeOneHotTrainOnly(t *testing.T) {
	d, err := LoadReader(strings.NewReader("c,x,y\nred,1,a\ngreen,2,b\nred,3,a\nblue,4,b\n"), "s.csv", ReadOptions{Categorical: "codes"})
	if err != nil {
		t.Fatal(err)
	}
	tr, te, err := EncodeOneHot(d.Subset([]int{0, 1, 2}), d.Subset([]int{3}))
	if err != nil {
		t.Fatal(err)
	}
	if tr.Dim() != 3 || te.Dim() != 3 || te.X.At(0, 0) != 0 || te.X.At(0, 1) != 0 || te.X.At(0, 2) != 4 {
		t.Errorf("train %d features, test row %v; want 3 and [0 0 4]", tr.Dim(), te.X.RawRowView(0))
	}
}

// TestLoadSplitInPlaceMatchesApply: LoadSplit normalises its own parts in
// place (applyOwned) and leaves them as read under "none"; the numbers are
// exactly those of the copying ApplyDataset on the same parts.
func TestLoadSplitInPlaceMatchesApply(t *testing.T) {
	heart := filepath.Join(td, "uci/heart.dat")
	raw, err := Load(heart, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range NormalizerKinds {
		train, test, norm, err := loadSplit(heart, SplitSettings{Normalize: kind, TestFraction: 0.3, Seed: 4})
		if err != nil {
			t.Fatal(err)
		}
		sp, err := Partitions(raw.Y, PartitionOptions{TrainFraction: 0.7}, 4)
		if err != nil {
			t.Fatal(err)
		}
		rawTrain, rawTest := raw.Subset(sp[0].Train), raw.Subset(sp[0].Test)
		want, err := FitNormalizer(kind, rawTrain.X)
		if err != nil {
			t.Fatal(err)
		}
		if norm.Identity() != (kind == NoScale) {
			t.Errorf("%s: Identity() = %v", kind, norm.Identity())
		}
		for _, p := range []struct {
			name    string
			got, in *Dataset
		}{{"train", train, rawTrain}, {"test", test, rawTest}} {
			w := want.ApplyDataset(p.in)
			r, c := w.X.Dims()
			if gr, gc := p.got.X.Dims(); gr != r || gc != c {
				t.Fatalf("%s %s: %d×%d, want %d×%d", kind, p.name, gr, gc, r, c)
			}
			changed := false
			for i := 0; i < r; i++ {
				for j := 0; j < c; j++ {
					if g, e := p.got.X.At(i, j), w.X.At(i, j); g != e {
						t.Fatalf("%s %s (%d, %d): %v, want %v", kind, p.name, i, j, g, e)
					}
					changed = changed || p.in.X.At(i, j) != w.X.At(i, j)
				}
			}
			if changed == (kind == NoScale) {
				t.Errorf("%s %s: values changed = %v", kind, p.name, changed)
			}
		}
	}
	// Load itself is not normalised in place by anything LoadSplit does.
	again, _ := Load(heart, ReadOptions{})
	if again.X.At(0, 0) != raw.X.At(0, 0) || raw.X.At(0, 0) != 70 {
		t.Errorf("heart row 1 age %v / %v, want 70", raw.X.At(0, 0), again.X.At(0, 0))
	}
}
