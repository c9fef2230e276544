package study

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// flags is a small stand-in for compare's flag set, with each kind of flag.
func flags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("compare", pflag.ContinueOnError)
	fs.String("methods", "all", "")
	fs.Int("partitions", 30, "")
	fs.Int("train-size", 100, "")
	fs.Float64("train-fraction", 0, "")
	fs.Uint64("seed", 1, "")
	fs.Bool("stratified", false, "")
	fs.String("label-col", "", "")
	fs.StringSlice("classes", nil, "")
	fs.String("study", "", "")
	fs.String("metric", "accuracy", "")
	return fs
}

// load reads the study at p and merges its top-level settings with fs as
// the command line does (cmd's mergeStudy): the flags fs was given win, the
// other flags take the study's values, and the read options the command
// line did not give come back for each dataset's read options.
func load(p string, fs *pflag.FlagSet) (*Study, []Setting, error) {
	st, err := Load(p)
	if err != nil {
		return nil, nil, err
	}
	kinds := map[string]Kind{"bool": Bool, "int": Integer, "uint64": Integer, "float64": Number, "stringSlice": List, "string": String}
	sets, err := st.TopSettings(func(key string) Kind {
		if f := fs.Lookup(key); f != nil {
			return kinds[f.Value.Type()]
		}
		return NoKind
	})
	if err != nil {
		return st, nil, err
	}
	var read []Setting
	for _, s := range sets {
		switch {
		case fs.Changed(s.Key):
		case s.Read:
			read = append(read, s)
		default:
			if err := fs.Set(s.Key, s.Value); err != nil {
				return st, nil, st.SettingError(s, err)
			}
		}
	}
	return st, read, nil
}

// withRead is each with the read settings read applied.
func withRead(each experiment.DatasetSettings, read []Setting) experiment.DatasetSettings {
	for _, r := range read {
		_ = each.Read.SetKey(r.Key, r.Value)
	}
	return each
}

func write(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "s.yaml")
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Every error names the file, the line and the key.
func TestErrorsNameFileLineKey(t *testing.T) {
	cases := []struct{ text, want string }{
		{"seed: 1\nfolds: 3\ndatasets: [{path: a}]\n", ":2: folds: unknown key"},
		{"partitions: many\ndatasets: [{path: a}]\n", `:1: partitions: want an integer, got "many"`},
		{"seed: 1\npartitions: [1, 2]\ndatasets: [{path: a}]\n", ":2: partitions: want an integer, got a list"},
		{"stratified: yes please\ndatasets: [{path: a}]\n", `:1: stratified: want true or false, got "yes please"`},
		{"datasets:\n  - path: a\n    label-colum: 7\n", ":3: label-colum: unknown key of a dataset"},
		{"datasets:\n  - path: a\n    features: 1.5\n", `:3: features: want an integer, got "1.5"`},
		{"datasets:\n  - path: a\n    missing: skip\n", `:3: missing: unknown policy "skip" (want error or drop)`},
		{"datasets:\n  - path: a\n    train-fraction: 1.5\n", ":3: train-fraction: want a fraction in (0, 1), got 1.5"},
		{"datasets:\n  - path: x/heart.dat\n  - path: y/heart.csv\n", `:3: name: dataset name "heart" is also the name of the dataset at line 2`},
		{"datasets:\n  - path: a\n    name: h\n  - path: b\n    name: h\n", `:4: name: dataset name "h" is also the name of the dataset at line 2`},
		{"datasets:\n  - name: h\n", ":2: path: a dataset needs a path"},
		{"datasets:\n  - path: a\n    test: b\n    test-size: 5\n", ":2: test: a given test file is the whole test part"},
		{"datasets:\n  - path: a\n    classes: [x, y]\n    positive: z\n", `:2: positive: "z" is not one of the classes x,y`},
		{"seed: 1\n", ":1: datasets: want a list of datasets"},
		{"study: other.yaml\ndatasets: [{path: a}]\n", ":1: study: is a flag of the command line"},
		{"seed: 1\nseed: 2\ndatasets: [{path: a}]\n", ":2: seed: given twice (first at line 1)"},
		{"seed: [1\n", ":1: not valid YAML"},
		{"seed: 1\nmetric: f1\ndatasets: [{path: a}]\n", `:2: metric: want one of accuracy, balanced_accuracy, macro_f1, auc, got "f1"`},
	}
	for _, c := range cases {
		p := write(t, c.text)
		_, _, err := load(p, flags())
		var se *Error
		if !errors.As(err, &se) || !strings.HasPrefix(err.Error(), p+":") || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: got %v, want %s%s…", c.text, err, p, c.want)
		}
	}
}

// The top level sets the flags the command line did not give; each dataset
// overrides them, with paths relative to the study file.
func TestTopLevelAndOverrides(t *testing.T) {
	p := write(t, `name: two
seed: 7
partitions: 4
train-size: 50
train-fraction: 0.3
label-col: "1"
methods: [svm, gi]
datasets:
  - path: data/a.csv
    name: first
    train-size: 20
    test-size: 30
  - path: /abs/b.csv
    label-col: "2"
    classes: [x, "y"]
    categorical: onehot
    missing: drop
  - path: builtin:heart
    test: t.txt
`)
	fs := flags()
	if err := fs.Parse([]string{"--partitions", "9"}); err != nil {
		t.Fatal(err)
	}
	st, read, err := load(p, fs)
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := fs.GetUint64("seed")
	parts, _ := fs.GetInt("partitions")
	methods, _ := fs.GetString("methods")
	if seed != 7 || parts != 9 || methods != "svm,gi" || st.Name != "two" || len(st.SHA256) != 64 {
		t.Errorf("seed %d partitions %d (the flag's 9 wins) methods %q name %q", seed, parts, methods, st.Name)
	}
	var s experiment.CompareSettings
	Configure(&s, st, withRead(experiment.DatasetSettings{Read: dataio.ReadOptions{LabelCol: "1"}, Partitions: 9, TrainSize: 50, TestSize: 100, TrainFraction: 0.3}, read))
	ds := s.Datasets
	if len(ds) != 3 {
		t.Fatalf("%d datasets", len(ds))
	}
	dir := filepath.Dir(p)
	if ds[0].Path != filepath.Join(dir, "data/a.csv") || ds[0].Name != "first" || ds[0].TrainSize != 20 || ds[0].TestSize != 30 || ds[0].TrainFraction != 0 || ds[0].Read.LabelCol != "1" || ds[0].Partitions != 9 {
		t.Errorf("dataset 1: %+v", ds[0])
	}
	if ds[1].Path != "/abs/b.csv" || ds[1].Read.LabelCol != "2" || strings.Join(ds[1].Read.Classes, ",") != "x,y" || ds[1].Read.Categorical != "codes" || ds[1].Read.Missing != "drop" || ds[1].TrainFraction != 0.3 {
		t.Errorf("dataset 2: %+v", ds[1])
	}
	if ds[2].Path != "builtin:heart" || ds[2].Test != filepath.Join(dir, "t.txt") || ds[2].TrainFraction != 0 {
		t.Errorf("dataset 3: %+v", ds[2])
	}
	if s.Provenance.Study != p || s.Provenance.StudySHA256 != st.SHA256 || s.Provenance.StudyName != "two" {
		t.Errorf("provenance %+v", s.Provenance)
	}
	if ds[0].Where != p+":9" {
		t.Errorf("where %q", ds[0].Where)
	}
}

// A study of more datasets than MaxDatasets is refused before any is read,
// naming the file, the line and the count (issue 34, item 6).
func TestTooManyDatasets(t *testing.T) {
	var b strings.Builder
	b.WriteString("seed: 1\ndatasets:\n")
	for i := range MaxDatasets + 1 {
		fmt.Fprintf(&b, "  - path: d%d.csv\n", i)
	}
	p := write(t, b.String())
	_, _, err := load(p, flags())
	var se *Error
	want := fmt.Sprintf(":3: datasets: %d datasets, more than %d", MaxDatasets+1, MaxDatasets)
	if !errors.As(err, &se) || !strings.Contains(err.Error(), want) {
		t.Errorf("got %v, want …%s", err, want)
	}
}

// The top level's read options are parsed by dataio's parser, as the
// command line's, and reach the settings through Configure, not through the
// flag set; a read flag given on the command line still overrides the
// file.
func TestTopLevelReadOptions(t *testing.T) {
	t.Parallel()
	p := write(t, "label-col: \"3\"\nmissing: drop\nclasses: [x, y]\nmulticlass: ovr\ndatasets:\n  - path: a.csv\n  - path: b.csv\n    label-col: \"2\"\n")
	fs := flags()
	if err := fs.Parse([]string{"--classes", "p,q"}); err != nil {
		t.Fatal(err)
	}
	st, read, err := load(p, fs)
	if err != nil {
		t.Fatal(err)
	}
	if lc, _ := fs.GetString("label-col"); lc != "" || fs.Changed("label-col") {
		t.Errorf("the study wrote label-col %q into the flags", lc)
	}
	var s experiment.CompareSettings
	Configure(&s, st, withRead(experiment.DatasetSettings{Read: dataio.ReadOptions{Classes: []string{"p", "q"}}}, read))
	want := dataio.ReadOptions{LabelCol: "3", Missing: "drop", Classes: []string{"p", "q"}, Multiclass: dataio.OneVsRest}
	if !reflect.DeepEqual(s.Datasets[0].Read, want) {
		t.Errorf("dataset 1 %+v; want %+v", s.Datasets[0].Read, want)
	}
	if want.LabelCol = "2"; !reflect.DeepEqual(s.Datasets[1].Read, want) {
		t.Errorf("dataset 2 %+v, want %+v", s.Datasets[1].Read, want)
	}
	bad := write(t, "header: sometimes\ndatasets: [{path: a}]\n")
	if _, _, err := load(bad, flags()); err == nil || err.Error() != bad+`:1: header: unknown setting "sometimes" (want auto, yes or no)` {
		t.Errorf("header: sometimes: %v", err)
	}
}

// The study's top level comes back as typed settings, in file order, for
// its caller to merge: nothing is written into a flag set (issue 43).
func TestTopSettingsTyped(t *testing.T) {
	t.Parallel()
	p := write(t, "seed: 7\nmethods: [svm, gi]\nstratified: true\nlabel-col: \"3\"\ntrain-fraction: 0.5\ndatasets: [{path: a}]\n")
	st, err := Load(p)
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]Kind{"seed": Integer, "methods": String, "stratified": Bool, "label-col": String, "train-fraction": Number}
	got, err := st.TopSettings(func(key string) Kind { return kinds[key] })
	if err != nil {
		t.Fatal(err)
	}
	want := []Setting{
		{Key: "seed", Kind: Integer, Value: "7", Line: 1},
		{Key: "methods", Kind: List, Value: "svm,gi", Line: 2},
		{Key: "stratified", Kind: Bool, Value: "true", Line: 3},
		{Key: "label-col", Kind: String, Value: "3", Line: 4, Read: true},
		{Key: "train-fraction", Kind: Number, Value: "0.5", Line: 5},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings\n%+v\nwant\n%+v", got, want)
	}
	// A key the caller has no setting of is the study's error, at its line.
	delete(kinds, "stratified")
	if _, err := st.TopSettings(func(key string) Kind { return kinds[key] }); err == nil || err.Error() != p+":3: stratified: unknown key: a study's keys are compare's flag names (see kerneltune compare --help), name and datasets" {
		t.Errorf("unknown key: %v", err)
	}
}
