package cmd

// The helpers every cmd test file shares: running kerneltune in process,
// decoding its JSON, golden files and the masks of wall times in them, and
// test files.

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/model"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// Paths of the repository's test data, as seen from cmd/.
const (
	cmdTestdata = "../testdata"
	heartScale  = cmdTestdata + "/libsvm/heart_scale"
)

// runCLIContext runs kerneltune with ctx, standard input stdin and args and
// returns stdout, stderr and the exit code.
func runCLIContext(ctx context.Context, t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(ctx, args, strings.NewReader(stdin), &out, &errOut)
	return out.String(), errOut.String(), code
}

// runCLI runs kerneltune with args and an empty standard input.
func runCLI(t *testing.T, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIContext(context.Background(), t, "", args...)
}

// runCLIStdin runs kerneltune with args, reading stdin as standard input.
func runCLIStdin(t *testing.T, stdin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	return runCLIContext(context.Background(), t, stdin, args...)
}

// mustRun runs kerneltune and fails the test unless it exits with 0; it
// returns stdout.
func mustRun(t *testing.T, args ...string) string {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != 0 {
		t.Fatalf("kerneltune %s: exit %d\n%s", strings.Join(args, " "), code, errOut)
	}
	return out
}

// runJSON runs `kerneltune command args... --format json`, decodes its
// output into a T and returns it with the raw output.
func runJSON[T any](t *testing.T, command string, args ...string) (T, []byte) {
	t.Helper()
	out := mustRun(t, append(append([]string{command}, args...), "--format", "json")...)
	var r T
	if err := json.Unmarshal([]byte(out), &r); err != nil {
		t.Fatalf("%s JSON does not parse: %v\n%s", command, err, out)
	}
	return r, []byte(out)
}

// trainJSON runs train with --format json and decodes the result.
func trainJSON(t *testing.T, args ...string) model.TrainResult {
	t.Helper()
	r, _ := runJSON[model.TrainResult](t, "train", args...)
	return r
}

// tuneJSON runs tune with --format json and decodes the result.
func tuneJSON(t *testing.T, args ...string) experiment.TuneResult {
	t.Helper()
	r, _ := runJSON[experiment.TuneResult](t, "tune", args...)
	return r
}

// predictJSON runs predict with --format json and decodes the result, also
// as a map to see which keys are present.
func predictJSON(t *testing.T, args ...string) (model.Predictions, map[string]any) {
	t.Helper()
	r, out := runJSON[model.Predictions](t, "predict", args...)
	var raw map[string]any
	if err := json.Unmarshal(out, &raw); err != nil {
		t.Fatal(err)
	}
	return r, raw
}

// golden compares got with testdata/golden/name, rewriting the file first
// under -update.
func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join(cmdTestdata, "golden", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./cmd -run '%s' -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (check, then rerun with -update):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// The wall times in the output differ between identical runs; each
// command's golden files mask them in their own way.
var (
	compareTimeJSON = regexp.MustCompile(`("mean_seconds": )[0-9.e+-]+`)
	// The run fingerprint hashes every setting, methods.Options' printed
	// form included: the golden files are not about it.
	compareRunJSON  = regexp.MustCompile(`("run": )"[0-9a-f]+"`)
	compareTimeCell = regexp.MustCompile(`^\s*[0-9.]+\s*$`)

	trainTimeJSON  = regexp.MustCompile(`("time_s": )[0-9.e+-]+`)
	trainTimeTable = regexp.MustCompile(`[0-9]+\.[0-9]{3} s `)
	// longFloat is a JSON number with more than 9 significant digits.
	longFloat = regexp.MustCompile(`-?[0-9]+\.[0-9]{9,}(e[-+]?[0-9]+)?`)

	tuneTimeJSON = regexp.MustCompile(`"(tune|fit)_time_s": [0-9.e+-]+`)
	// The trailing blanks too: the cell is padded to the column's width, so
	// a slower run (10 s and more) had one blank fewer.
	tuneTimeTable = regexp.MustCompile(`[0-9.]+ s tuning \+ [0-9.]+ s final fit *`)
)

// maskCompareTiming replaces compare's mean_seconds in JSON by X, in CSV
// the mean_seconds column, and in tables the time column.
func maskCompareTiming(s string, format string) string {
	s = compareTimeJSON.ReplaceAllString(s, "${1}X")
	s = compareRunJSON.ReplaceAllString(s, `${1}"RUN"`)
	if format == "csv" {
		lines := strings.Split(s, "\n")
		col := slices.Index(strings.Split(lines[0], ","), "mean_seconds")
		for i := 1; col >= 0 && i < len(lines); i++ {
			cells := strings.Split(lines[i], ",")
			if len(cells) > col && cells[col] != "" {
				cells[col] = "X"
				lines[i] = strings.Join(cells, ",")
			}
		}
		return strings.Join(lines, "\n")
	}
	sepFor := map[string]string{"table": "│", "markdown": "|", "latex": "&"}
	sep, ok := sepFor[format]
	if !ok {
		return s
	}
	// table/markdown rows start with the separator: the time column is
	// cell 4; latex rows start with the method, and the time is in the
	// second panel (method, #SV, time s, ...): cell 2.
	col := 4
	if format == "latex" {
		col = 2
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, sep)
		if len(cells) > col+1 && compareTimeCell.MatchString(cells[col]) {
			// The whole cell, blanks included: a time of 10 s or more
			// (a loaded machine, -race) is padded with one blank fewer.
			cells[col] = " X "
			lines[i] = strings.Join(cells, sep)
		}
	}
	return strings.Join(lines, "\n")
}

// maskTrainTiming hides train's wall time, keeping the table's column widths,
// and rounds JSON numbers to 9 significant digits: their last bits depend on
// the SMO's and BLAS's order of operations, which the golden files are not
// about (the LIBSVM tests check the numbers).
func maskTrainTiming(s string) string {
	s = trainTimeJSON.ReplaceAllString(s, "${1}0")
	s = longFloat.ReplaceAllStringFunc(s, func(m string) string {
		v, err := strconv.ParseFloat(m, 64)
		if err != nil {
			return m
		}
		return strconv.FormatFloat(v, 'g', 9, 64)
	})
	return trainTimeTable.ReplaceAllStringFunc(s, func(m string) string {
		return strings.Repeat("X", len(m)-3) + " s "
	})
}

// maskTuneTiming replaces the wall times in tune's table and JSON output.
func maskTuneTiming(s string) string {
	s = tuneTimeJSON.ReplaceAllString(s, `"${1}_time_s": X`)
	return tuneTimeTable.ReplaceAllString(s, "X s tuning + X s final fit ")
}

// writeFile writes text to dir/name and returns the path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// splitHeart writes heart_scale's first 200 rows and the other 70 as two
// files.
func splitHeart(t *testing.T) (train, test string) {
	t.Helper()
	raw, err := os.ReadFile(heartScale)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(strings.TrimRight(string(raw), "\n")+"\n", "\n")
	lines = lines[:len(lines)-1]
	if len(lines) != 270 {
		t.Fatalf("heart_scale has %d lines", len(lines))
	}
	dir := t.TempDir()
	return writeFile(t, dir, "heart_train", strings.Join(lines[:200], "")),
		writeFile(t, dir, "heart_test", strings.Join(lines[200:], ""))
}

// needLIBSVMTools skips t unless LIBSVM's svm-train and svm-predict are
// installed (Debian's libsvm-tools), saying what is left unchecked (why).
func needLIBSVMTools(t *testing.T, why string) {
	t.Helper()
	for _, tool := range []string{"svm-train", "svm-predict"} {
		if _, err := exec.LookPath(tool); err != nil {
			if why != "" {
				why = ": " + why
			}
			t.Skipf("%s is not installed (apt-get install libsvm-tools)%s", tool, why)
		}
	}
}
