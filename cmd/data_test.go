package cmd

import (
	"errors"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// parseDataFlags returns dataOptions as the flags set them.
func parseDataFlags(t *testing.T, args ...string) *dataOptions {
	t.Helper()
	o := &dataOptions{}
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	o.addReadFlags(fs)
	o.addSplitFlags(fs)
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	return o
}

func colMeanStd(d *dataio.Dataset, j int) (float64, float64) {
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

func TestLoadTrainTestFraction(t *testing.T) {
	o := parseDataFlags(t, "--test-fraction", "0.25")
	train, test, norm, err := o.loadTrainTest("builtin:heart", 1)
	if err != nil {
		t.Fatal(err)
	}
	// round(0.75·270) = 203 training rows, the other 67 test.
	if train.Len() != 203 || test.Len() != 67 {
		t.Fatalf("%d/%d rows", train.Len(), test.Len())
	}
	if norm.Kind != dataio.ZScore || norm.Dim() != 13 {
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
	train2, _, _, _ := o.loadTrainTest("builtin:heart", 1)
	train3, _, _, _ := o.loadTrainTest("builtin:heart", 2)
	if train2.X.At(0, 0) != train.X.At(0, 0) || train2.X.At(5, 3) != train.X.At(5, 3) {
		t.Error("same seed, different split")
	}
	if train3.X.At(0, 0) == train.X.At(0, 0) && train3.X.At(1, 0) == train.X.At(1, 0) && train3.X.At(2, 0) == train.X.At(2, 0) {
		t.Error("seeds 1 and 2 give the same split")
	}
}

func TestLoadTrainTestFile(t *testing.T) {
	dir := t.TempDir()
	heart := filepath.Join(cmdTestdata, "uci/heart.dat")
	// A test file whose only class is "1": mapped with the training labels
	// (+1 = "2"), so its rows are -1.
	one := writeFile(t, dir, "one.dat", "70 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n60 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n")
	o := parseDataFlags(t, "--test", one, "--normalize", "minmax01")
	train, test, norm, err := o.loadTrainTest(heart, 1)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 270 || test.Len() != 2 || test.Y[0] != -1 || test.Labels != train.Labels || norm.Kind != dataio.MinMax01 {
		t.Errorf("train %d test %d y %v labels %v/%v", train.Len(), test.Len(), test.Y, test.Labels, train.Labels)
	}
	// age 70 in heart.dat's range [29, 77] → (70-29)/48.
	if got := test.X.At(0, 0); math.Abs(got-41.0/48) > 1e-12 {
		t.Errorf("test age → %v, want %v", got, 41.0/48)
	}
	// --positive applies to the training file; the test file follows it.
	o = parseDataFlags(t, "--test", one, "--positive", "1")
	_, test, _, err = o.loadTrainTest(heart, 1)
	if err != nil || test.Y[0] != 1 {
		t.Errorf("with --positive 1 the test rows are %v (%v)", test.Y, err)
	}
	// A label the training file does not have is an error naming the line.
	bad := writeFile(t, dir, "bad.dat", "70 1 4 130 322 0 2 109 0 2.4 2 3 3 1\n60 1 4 130 322 0 2 109 0 2.4 2 3 3 3\n")
	o = parseDataFlags(t, "--test", bad)
	_, _, _, err = o.loadTrainTest(heart, 1)
	if !errors.Is(err, dataio.ErrUnknownLabel) || !strings.Contains(err.Error(), "bad.dat:2:") {
		t.Errorf("error %v", err)
	}
	// A different width is an error.
	narrow := writeFile(t, dir, "narrow.dat", "70 1 4 1\n60 1 4 2\n")
	o = parseDataFlags(t, "--test", narrow)
	if _, _, _, err = o.loadTrainTest(heart, 1); err == nil || !strings.Contains(err.Error(), "has 3 features") {
		t.Errorf("error %v", err)
	}
	// LIBSVM: a test file with fewer features takes the training width
	// (a1a: 119); a higher index is an error that names --features.
	a1a := filepath.Join(cmdTestdata, "libsvm/a1a")
	small := writeFile(t, dir, "small.t", "+1 3:1 5:1\n-1 119:1\n")
	o = parseDataFlags(t, "--test", small)
	train, test, _, err = o.loadTrainTest(a1a, 1)
	if err != nil || test.Dim() != 119 || train.Dim() != 119 || test.Y[0] != 1 {
		t.Fatalf("%v", err)
	}
	wide := writeFile(t, dir, "wide.t", "+1 3:1 123:1\n-1 5:1\n")
	o = parseDataFlags(t, "--test", wide)
	if _, _, _, err = o.loadTrainTest(a1a, 1); err == nil || !strings.Contains(err.Error(), "wide.t:1:3") || !strings.Contains(err.Error(), "--features") {
		t.Errorf("error %v", err)
	}
	o = parseDataFlags(t, "--test", wide, "--features", "123")
	if _, test, _, err = o.loadTrainTest(a1a, 1); err != nil || test.Dim() != 123 {
		t.Errorf("--features 123: %v", err)
	}
}

func TestLoadTrainTestIDA(t *testing.T) {
	o := parseDataFlags(t)
	train, test, _, err := o.loadTrainTest(filepath.Join(cmdTestdata, "ida/banana"), 1)
	if err != nil {
		t.Fatal(err)
	}
	if train.Len() != 400 || test.Len() != 4900 || !strings.Contains(strings.Join(train.Notes, "\n"), "realisation 1 of 10") {
		t.Errorf("%d/%d %v", train.Len(), test.Len(), train.Notes)
	}
	// No test part for a plain file.
	train, test, _, err = o.loadTrainTest("builtin:diabetes", 1)
	if err != nil || test != nil || train.Len() != 768 {
		t.Errorf("%v %v", test, err)
	}
}

func TestDataFlagErrors(t *testing.T) {
	for _, args := range [][]string{
		{"--test", "x", "--test-fraction", "0.3"},
		{"--test-fraction", "1.5"},
		{"--normalize", "l2"},
		{"--input-format", "xlsx"},
		{"--missing", "mean"},
		{"--features", "-1"},
		{"--header", "maybe"},
	} {
		o := parseDataFlags(t, args...)
		_, _, _, err := o.loadTrainTest("builtin:heart", 1)
		var fe *flagError
		if !errors.As(err, &fe) {
			t.Errorf("%v: %v is not a usage error", args, err)
		}
	}
}

// TestHeaderFlag: --header overrides the detection, which takes a first row
// of numbers for data and a first row without numbers for names.
func TestHeaderFlag(t *testing.T) {
	dir := t.TempDir()
	// Years as column names: data unless --header yes.
	years := writeFile(t, dir, "years.csv", "1990,2000,label\n1,2,a\n3,4,b\n5,6,a\n")
	if _, err := parseDataFlags(t).load(years); !errors.Is(err, dataio.ErrTooManyClasses) {
		t.Errorf("auto: %v, want three classes (label, a, b)", err)
	}
	d, err := parseDataFlags(t, "--header", "yes").load(years)
	if err != nil {
		t.Fatal(err)
	}
	if d.Len() != 3 || strings.Join(d.FeatureNames, ",") != "1990,2000" || d.X.At(0, 0) != 1 || d.Labels != (dataio.LabelMap{Positive: "b", Negative: "a"}) {
		t.Errorf("--header yes: %d rows, names %v, x11 %v, labels %v", d.Len(), d.FeatureNames, d.X.At(0, 0), d.Labels)
	}
	// A first row with no number is names unless --header no: here a row
	// of missing values and a label, dropped with --missing drop.
	na := writeFile(t, dir, "na.csv", "NA,NA,yes\n1,2,no\n3,4,yes\n")
	d, err = parseDataFlags(t, "--missing", "drop").load(na)
	if err != nil || d.Len() != 2 || d.FeatureNames[0] != "NA" || len(d.Notes) != 0 {
		t.Fatalf("auto: %v %+v", err, d)
	}
	d, err = parseDataFlags(t, "--missing", "drop", "--header", "no").load(na)
	if err != nil || d.Len() != 2 || d.FeatureNames[0] != "f1" || len(d.Notes) != 1 || !strings.Contains(d.Notes[0], "1 row with a missing value was dropped") {
		t.Fatalf("--header no: %v %+v", err, d)
	}
	// "auto" is the default and the same as no flag.
	if ro := parseDataFlags(t, "--header", "auto").readOptions(); ro.Header != "" {
		t.Errorf("--header auto → ReadOptions.Header %q", ro.Header)
	}
	if ro := parseDataFlags(t, "--header", "no").readOptions(); ro.Header != "no" {
		t.Errorf("--header no → ReadOptions.Header %q", ro.Header)
	}
}

// A normaliser that cannot be fitted says on which file.
func TestNormalizeErrorNamesFile(t *testing.T) {
	path := writeFile(t, t.TempDir(), "huge.csv", "a,b,label\n1e308,2,1\n-1e308,4,-1\n5,6,1\n7,1,-1\n")
	_, _, _, err := parseDataFlags(t, "--normalize", "minmax01").loadTrainTest(path, 1)
	if want := path + ": dataio: fit minmax01 normaliser: feature 1 ranges from -1e+308 to 1e+308"; err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v, want it to start %q", err, want)
	}
}
