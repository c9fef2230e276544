package cmd

import (
	"context"
	"errors"
	"io"
	"path/filepath"
	"reflect"
	"slices"
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

// loadSplit is dataio.LoadSplit (its tests are in pkg/dataio) with the
// notes and errors in the flags' words.
func TestLoadTrainTestFlagWords(t *testing.T) {
	t.Parallel()
	tt, err := loadSplit(context.Background(), io.Discard, "builtin:heart", parseDataFlags(t, "--test-fraction", "0.25").split(1))
	if err != nil {
		t.Fatal(err)
	}
	want := "test part: 67 of 270 rows held out at random (--test-fraction 0.25, --seed 1)"
	if train, test := tt.Train, tt.Test; train.Notes[len(train.Notes)-1] != want || test.Notes[len(test.Notes)-1] != want {
		t.Errorf("notes %q, %q; want the last %q", train.Notes, test.Notes, want)
	}
	wide := writeFile(t, t.TempDir(), "wide.t", "+1 3:1 123:1\n-1 5:1\n")
	_, err = loadSplit(context.Background(), io.Discard, filepath.Join(cmdTestdata, "libsvm/a1a"), parseDataFlags(t, "--test", wide).split(1))
	var we *dataio.TestWidthError
	if !errors.As(err, &we) || !strings.Contains(err.Error(), "test file "+wide+" has 123 features, training file ../testdata/libsvm/a1a has 119") ||
		!strings.Contains(err.Error(), "read both as 123 features with --features 123)") {
		t.Errorf("error %v", err)
	}
	_, err = loadSplit(context.Background(), io.Discard, "builtin:heart", parseDataFlags(t, "--label-col", "2").split(1))
	var fe *flagError
	if !errors.As(err, &fe) || err.Error() != "--label-col 2: builtin:heart is a LIBSVM file, whose label comes first on each line; --label-col is for CSV" {
		t.Errorf("--label-col for LIBSVM: %v", err)
	}
}

func TestDataFlagErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"--test", "x", "--test-fraction", "0.3"},
		{"--test-fraction", "1.5"},
		{"--normalize", "l2"},
		{"--input-format", "xlsx"},
		{"--missing", "mean"},
		{"--features", "-1"},
		{"--header", "maybe"},
	} {
		err := parseDataFlags(t, args...).check()
		var fe *flagError
		if !errors.As(err, &fe) {
			t.Errorf("%v: %v is not a usage error", args, err)
		}
	}
}

// TestHeaderFlag: --header overrides the detection, which takes a first row
// of numbers for data and a first row without numbers for names.
func TestHeaderFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Years as column names: data unless --header yes.
	years := writeFile(t, dir, "years.csv", "1990,2000,label\n1,2,a\n3,4,b\n5,6,a\n")
	if d, err := parseDataFlags(t).load(years); err != nil || !slices.Equal(d.ClassLabels, []string{"label", "a", "b"}) {
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

// The read flags are dataio.ReadKeys, parsed by dataio's parser as a study
// file's keys are: the same text gives the same options and the same
// reason, which the command line words as the flag's.
func TestReadFlagsAreReadKeys(t *testing.T) {
	t.Parallel()
	var flags []string
	fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
	new(dataOptions).addReadFlags(fs)
	fs.VisitAll(func(f *pflag.Flag) { flags = append(flags, f.Name) })
	if !slices.Equal(flags, slices.Sorted(slices.Values(dataio.ReadKeys))) {
		t.Errorf("read flags %v, dataio.ReadKeys %v", flags, dataio.ReadKeys)
	}
	args := []string{"--input-format", "csv", "--header", "no", "--label-col", "2", "--positive", "b", "--classes", "a,b", "--categorical", "onehot", "--features", "7", "--missing", "drop", "--multiclass", "ovr"}
	var want dataio.ReadOptions
	for i := 0; i < len(args); i += 2 {
		if err := want.SetKey(strings.TrimPrefix(args[i], "--"), args[i+1]); err != nil {
			t.Fatal(err)
		}
	}
	if got := parseDataFlags(t, args...).readOptions(); !reflect.DeepEqual(got, want) {
		t.Errorf("flags %+v, keys %+v", got, want)
	}
	for _, kv := range [][2]string{{"input-format", "xml"}, {"header", "1"}, {"classes", "a"}, {"categorical", "x"}, {"features", "-2"}, {"missing", "skip"}, {"multiclass", "ova"}} {
		err := new(dataio.ReadOptions).SetKey(kv[0], kv[1])
		var ke *dataio.ReadKeyError
		if !errors.As(err, &ke) {
			t.Fatalf("%s %q: %v", kv[0], kv[1], err)
		}
		got := parseDataFlags(t, "--"+kv[0], kv[1]).check()
		if fe := (*flagError)(nil); !errors.As(got, &fe) || got.Error() != "--"+kv[0]+": "+ke.Reason {
			t.Errorf("--%s %s: %v, want a usage error --%s: %s", kv[0], kv[1], got, kv[0], ke.Reason)
		}
	}
}

// load reads one data set with the read flags (the tests' shortcut; the
// commands read through dataio.LoadSplit or OpenDataset).
func (o *dataOptions) load(path string) (*dataio.Dataset, error) {
	if err := o.check(); err != nil {
		return nil, err
	}
	d, err := dataio.LoadArg(path, o.stdinReader(), o.readOptions())
	return d, flagHint(err)
}

// A quoted CSV field may hold the delimiter and line breaks (issue 43,
// item 6): the hand-written splitter read one line at a time and refused
// the file ("unterminated quoted field 3" on line 1). Read with
// encoding/csv, the file trains the model the same file of plain labels
// trains, with its label as written, and a later error names the line the
// record starts on.
func TestCSVQuotedFieldSpansLines(t *testing.T) {
	dir := t.TempDir()
	rows := [][3]string{{"1", "2", "+"}, {"3", "4", "-"}, {"5", "6", "+"}, {"7", "8", "-"}, {"1.5", "2.5", "+"}, {"7.5", "8.5", "-"}}
	var quoted, plain strings.Builder
	quoted.WriteString("x1,x2,\"the\nclass\"\n")
	plain.WriteString("x1,x2,class\n")
	for _, r := range rows {
		label := map[string]string{"+": "\"good, really\ngood\"", "-": "bad"}[r[2]]
		quoted.WriteString(r[0] + "," + r[1] + "," + label + "\n")
		plain.WriteString(r[0] + "," + r[1] + "," + map[string]string{"+": "good", "-": "bad"}[r[2]] + "\n")
	}
	q := trainJSON(t, writeFile(t, dir, "quoted.csv", quoted.String()), "-q")
	p := trainJSON(t, writeFile(t, dir, "plain.csv", plain.String()), "-q")
	if q.NTrain != 6 || q.Labels.Positive != "good, really\ngood" || q.Labels.Negative != "bad" {
		t.Errorf("quoted.csv: %d rows, labels %q/%q; want 6 rows, +1 = %q, -1 = \"bad\"", q.NTrain, q.Labels.Positive, q.Labels.Negative, "good, really\ngood")
	}
	if q.NSV != p.NSV || q.Obj != p.Obj || q.TrainAccuracy != p.TrainAccuracy || q.NSV != 6 {
		t.Errorf("quoted.csv trained %d SVs, objective %v, accuracy %v; plain.csv %d, %v, %v; want the same (6 SVs)", q.NSV, q.Obj, q.TrainAccuracy, p.NSV, p.Obj, p.TrainAccuracy)
	}
	// Lines 1-2 the header, 3-4 the first row: "abc" is on line 6.
	bad := writeFile(t, dir, "bad.csv", "x1,x2,\"the\nclass\"\n1,2,\"good,\nreally\"\n3,4,bad\nabc,6,bad\n")
	_, stderr, code := runCLI(t, "train", bad, "-q")
	if want := "kerneltune: " + bad + ":6:1: \"abc\" is not a number"; code != ExitError || !strings.HasPrefix(stderr, want) {
		t.Errorf("bad.csv: exit %d, %q; want exit %d, %q", code, stderr, ExitError, want)
	}
	// A quote left open names the line it opened on.
	open := writeFile(t, dir, "open.csv", "x1,x2,y\n1,2,a\n3,4,\"b\n5,6,a\n")
	_, stderr, code = runCLI(t, "train", open, "-q")
	if want := "kerneltune: " + open + ":3: unterminated quoted field: the quote opened on line 3 is not closed before the end of the file"; code != ExitError || strings.TrimSpace(stderr) != want {
		t.Errorf("open.csv: exit %d, %q; want exit %d, %q", code, stderr, ExitError, want)
	}
}
