package cmd

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

func TestInfoTable(t *testing.T) {
	t.Parallel()
	cases := []struct {
		args []string
		want []string
	}{
		{[]string{"builtin:heart"}, []string{"heart — builtin:heart", "│ rows              │ 270", "│ features          │ 13 ", `+1 = "1"`, "120 (44.4%)", "150 (55.6%)", "value range       │ [-1, 1]", "note: +1 = heart disease present"}},
		{[]string{filepath.Join(cmdTestdata, "uci/heart.dat")}, []string{`+1 = "2"`, "120 (44.4%)", `-1 = "1"`, "format            │ csv"}},
		{[]string{filepath.Join(cmdTestdata, "uci/bupa.data"), "--label-col", "7", "--positive", "1"}, []string{`+1 = "1"`, "145 (42.0%)", "duplicate rows    │ 4 "}},
		{[]string{"builtin:breast-wisconsin"}, []string{"683", "duplicate rows    │ 8 ", "note: feature 1 is the scaled UCI sample code number (a patient ID)"}},
		{[]string{filepath.Join(cmdTestdata, "ida/breast-cancer")}, []string{"duplicate rows    │ 20 ", "6 feature vectors on 13 rows", "10 realisations of 200 train / 77 test"}},
		{[]string{filepath.Join(cmdTestdata, "libsvm/a1a"), "--features", "123"}, []string{"features          │ 123", "constant features │ 10: 12, 60, 89, 96, 111, 116, 120, 121, 122, 123", "14 feature vectors"}},
		{[]string{"builtin:diabetes", "--feature-stats"}, []string{"features of diabetes", "│ 8 │ f8   │"}},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, append([]string{"info"}, c.args...)...)
		if code != 0 {
			t.Errorf("%v: exit %d: %s", c.args, code, errOut)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("%v: output lacks %q:\n%s", c.args, w, out)
			}
		}
	}
}

func TestInfoJSON(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLI(t, "info", "--format", "json", filepath.Join(cmdTestdata, "ida/breast-cancer_labels.asc"))
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var s dataio.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if s.Rows != 277 || s.Features != 9 || s.Positive != 81 || s.Negative != 196 || s.DuplicateRows != 20 || s.ConflictingVectors != 6 || len(s.Splits) != 10 || s.Splits[0] != (dataio.SplitSize{Train: 200, Test: 77}) || len(s.Stats) != 9 {
		t.Errorf("summary %+v", s)
	}
	// Several DATA give an array.
	out, _, code = runCLI(t, "info", "--format", "json", "builtin:heart", "builtin:diabetes")
	var ss []dataio.Summary
	if err := json.Unmarshal([]byte(out), &ss); err != nil || code != 0 || len(ss) != 2 || ss[1].Rows != 768 {
		t.Errorf("exit %d, %v: %d summaries", code, err, len(ss))
	}
}

// Every supplied data file reads with info.
func TestInfoEverySuppliedFile(t *testing.T) {
	t.Parallel()
	paths, _ := filepath.Glob(filepath.Join(cmdTestdata, "libsvm", "*"))
	uci, _ := filepath.Glob(filepath.Join(cmdTestdata, "uci", "*"))
	paths = append(paths, uci...)
	paths = append(paths, filepath.Join(cmdTestdata, "ida/banana"), filepath.Join(cmdTestdata, "ida/breast-cancer"))
	if len(paths) != 9 {
		t.Fatalf("%d files", len(paths))
	}
	out, errOut, code := runCLI(t, append([]string{"info"}, paths...)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	if n := strings.Count(out, "│ rows "); n != 9 {
		t.Errorf("%d tables, want 9", n)
	}
}

func TestInfoErrors(t *testing.T) {
	t.Parallel()
	bad := filepath.Join(cmdTestdata, "bad")
	cases := []struct {
		args []string
		code int
		want string
	}{
		{[]string{filepath.Join(bad, "unsorted.libsvm")}, 1, "unsorted.libsvm:2:4: feature index 2 after 3"},
		{[]string{"--classes", "a,b", filepath.Join(bad, "..", "multiclass", "three_classes.csv"), filepath.Join(bad, "text_in_numeric.csv")}, 1, `text_in_numeric.csv: class "a" is not in the file`},
		{[]string{filepath.Join(bad, "missing_question.csv")}, 1, `missing_question.csv: only one class: "1" (1 row)`}, // its other row has a "?"
		{[]string{"no/such/file.csv"}, 1, "no such file"},
		{[]string{"builtin:nope"}, 1, "known: breast-wisconsin, diabetes, heart"},
		{[]string{filepath.Join(cmdTestdata, "ida")}, 1, "is a directory; give a file or an IDA set in it: ../testdata/ida/banana, ../testdata/ida/breast-cancer"},
		{[]string{"builtin:heart", filepath.Join(bad, "nan.csv")}, 1, "1 of 2 data sets could not be read"},
		{[]string{"--format", "xml", "builtin:heart"}, 2, `unknown format "xml"`},
		{[]string{"--input-format", "xlsx", "builtin:heart"}, 2, "--input-format"},
		{[]string{"--input-format", "arff", "builtin:heart"}, 1, "builtin heart is a LIBSVM file, not arff"},
		{[]string{"--categorical", "ordinal", "builtin:heart"}, 2, `--categorical: unknown setting "ordinal"`},
		{[]string{"--classes", "a", "builtin:heart"}, 2, `--classes: want two different classes A,B, got "a"`},
		{[]string{"--classes", "a,b", "--positive", "c", "builtin:heart"}, 2, `--positive: "c" is not one of the classes a,b`},
		{[]string{"--missing", "impute", "builtin:heart"}, 2, "--missing"},
		{[]string{"--features", "-3", "builtin:heart"}, 2, "--features"},
		{[]string{"--bogus"}, 2, "unknown flag"},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, append([]string{"info"}, c.args...)...)
		if code != c.code || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", c.args, code, errOut, c.code, c.want)
		}
		if c.code == 1 && len(c.args) == 2 && !strings.Contains(out, "heart") {
			t.Errorf("%v: the readable set was not described", c.args)
		}
	}
	// Dropping rows with missing values reads the file.
	out, errOut, code := runCLI(t, "info", "--missing", "drop", filepath.Join(bad, "missing_empty.csv"))
	if code != 0 || !strings.Contains(out, "note: 1 row with a missing value was dropped") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
}

func TestInfoStdinAndList(t *testing.T) {
	t.Parallel()
	out, errOut, code := runCLIStdin(t, "a,b,y\n1,2,yes\n3,4,no\n5,6,yes\n", "info", "-")
	if code != 0 || !strings.Contains(out, `+1 = "yes"`) || !strings.Contains(out, "2 (66.7%)") {
		t.Errorf("exit %d %s\n%s", code, errOut, out)
	}
	out, _, code = runCLI(t, "info")
	for _, n := range dataio.BuiltinNames() {
		if !strings.Contains(out, "builtin:"+n) {
			t.Errorf("list lacks %s:\n%s", n, out)
		}
	}
	if code != 0 {
		t.Errorf("exit %d", code)
	}
}

func TestInfoGolden(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		args []string
	}{
		{"info_heart.golden", []string{"info", "builtin:heart"}},
		{"info_builtins.golden", []string{"info"}},
		{"info_ida_markdown.golden", []string{"info", "--format", "markdown", filepath.Join(cmdTestdata, "ida/breast-cancer")}},
		{"info_bupa_stats.golden", []string{"info", "--feature-stats", "--label-col", "7", filepath.Join(cmdTestdata, "uci/bupa.data")}},
	}
	for _, c := range cases {
		out, errOut, code := runCLI(t, c.args...)
		if code != 0 {
			t.Fatalf("%v: exit %d: %s", c.args, code, errOut)
		}
		golden(t, c.name, out)
	}
}

// info describes a file with missing values without --missing drop: it counts
// them per column (breast-cancer.arff: node-caps "?" on 8 rows, breast-quad
// on 1, as awk counts them) and leaves those rows out; the other commands
// still refuse them.
func TestInfoCountsMissingValues(t *testing.T) {
	t.Parallel()
	arff := filepath.Join(cmdTestdata, "arff/breast-cancer.arff")
	out, errOut, code := runCLI(t, "info", arff)
	for _, w := range []string{
		"│ rows                        │ 277 ",
		"│ missing values              │ 9 rows: node-caps 8, breast-quad 1 ",
		"note: the 9 rows with missing values are left out of the description above; train, tune and compare refuse them unless --missing drop",
	} {
		if code != 0 || !strings.Contains(out, w) {
			t.Errorf("exit %d %s: output lacks %q:\n%s", code, errOut, w, out)
		}
	}
	out, _, code = runCLI(t, "info", "--missing", "drop", arff)
	if code != 0 || !strings.Contains(out, "9 rows: node-caps 8, breast-quad 1") || !strings.Contains(out, "note: 9 rows with missing values were dropped") || strings.Contains(out, "left out of the description") {
		t.Errorf("--missing drop: exit %d\n%s", code, out)
	}
	_, errOut, code = runCLI(t, "tune", "--method", "svm", "--categorical", "onehot", arff)
	if code != 1 || !strings.Contains(errOut, `missing value "?" of attribute "node-caps"`) {
		t.Errorf("tune without --missing drop: exit %d, stderr %q", code, errOut)
	}
	// CSV: "?", "NA" and empty fields, per column with the header's names.
	out, errOut, code = runCLIStdin(t, "a,b,y\n1,?,x\n2,3,y\n4,NA,x\n?,5,y\n6,7,x\n,8,y\n", "info", "--format", "json", "-")
	var s dataio.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || code != 0 {
		t.Fatalf("exit %d %s %v\n%s", code, errOut, err, out)
	}
	want := dataio.MissingValues{Rows: 4, Columns: []dataio.MissingColumn{{Column: 1, Name: "a", Rows: 2}, {Column: 2, Name: "b", Rows: 2}}}
	if s.Rows != 2 || s.Missing == nil || fmt.Sprint(*s.Missing) != fmt.Sprint(want) {
		t.Errorf("rows %d, missing %+v; want 2 and %+v", s.Rows, s.Missing, want)
	}
}

// info's one-hot count is the one train builds from the same rows (the
// categories that occur: 41 for breast-cancer.arff), with the count of every
// declared ARFF category beside it when it differs (51).
func TestInfoOneHotCountMatchesTrain(t *testing.T) {
	t.Parallel()
	arff := filepath.Join(cmdTestdata, "arff/breast-cancer.arff")
	out, errOut, code := runCLI(t, "info", arff)
	want := "│ nominal features            │ 9 of 9 (41 features one-hot, with --categorical onehot; 51 with every declared category) │"
	if code != 0 || !strings.Contains(out, want) {
		t.Errorf("exit %d %s: output lacks %q:\n%s", code, errOut, want, out)
	}
	out, errOut, code = runCLI(t, "train", "--categorical", "onehot", "--missing", "drop", arff)
	if code != 0 || !strings.Contains(out+errOut, "277 training rows, 41 features") {
		t.Errorf("train: exit %d\n%s%s", code, out, errOut)
	}
	out, _, _ = runCLI(t, "info", "--format", "json", arff)
	var s dataio.Summary
	if err := json.Unmarshal([]byte(out), &s); err != nil || s.OneHotFeatures != 41 || s.OneHotDeclared != 51 {
		t.Errorf("%v: onehot %d, declared %d; want 41 and 51", err, s.OneHotFeatures, s.OneHotDeclared)
	}
}
