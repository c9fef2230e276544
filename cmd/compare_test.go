package cmd

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/golden")

// runCLI runs kerneltune with args and returns stdout, stderr and the exit code.
func runCLI(t *testing.T, args ...string) (string, string, int) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), args, strings.NewReader(""), &out, &errOut)
	return out.String(), errOut.String(), code
}

// timing matches the fields that may differ between identical runs: the
// "time s" column of tables and the mean_seconds field of JSON.
var timing = []*regexp.Regexp{
	regexp.MustCompile(`("mean_seconds": )[0-9.e+-]+`),
}

// maskTiming replaces timing values by X, and in tables the 4th column (time s).
func maskTiming(s string, format string) string {
	for _, re := range timing {
		s = re.ReplaceAllString(s, "${1}X")
	}
	sepFor := map[string]string{"table": "│", "markdown": "|", "csv": ",", "latex": "&"}
	sep, ok := sepFor[format]
	if !ok {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		cells := strings.Split(l, sep)
		// table/markdown rows start with the separator: the time column is cell 4.
		col := 4
		if format == "csv" || format == "latex" {
			col = 3
		}
		if len(cells) > col+1 && regexp.MustCompile(`^\s*[0-9.]+\s*$`).MatchString(cells[col]) {
			cells[col] = regexp.MustCompile(`[0-9.]+`).ReplaceAllString(cells[col], "X")
			lines[i] = strings.Join(cells, sep)
		}
	}
	return strings.Join(lines, "\n")
}

func golden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("..", "testdata", "golden", name)
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
		t.Fatalf("%v (run go test ./cmd -run %s -update to create it)", err, t.Name())
	}
	if got != string(want) {
		t.Errorf("output differs from %s (rerun with -update after checking):\n--- got\n%s\n--- want\n%s", path, got, want)
	}
}

// compareArgs is a small but real comparison: the baseline on three
// partitions of heart with 60/60 points.
var compareArgs = []string{"compare", "builtin:heart", "--methods", "svm", "--partitions", "3", "--train-size", "60", "--test-size", "60", "--workers", "2"}

func TestCompareGoldenFormats(t *testing.T) {
	for _, format := range []string{"table", "markdown", "csv", "json", "latex"} {
		t.Run(format, func(t *testing.T) {
			out, errOut, code := runCLI(t, append(compareArgs, "--format", format)...)
			if code != 0 {
				t.Fatalf("exit %d: %s", code, errOut)
			}
			golden(t, "compare_"+format+".golden", maskTiming(out, format))
		})
	}
}

func TestCompareResumeAndReport(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "res.jsonl")
	first, errOut, code := runCLI(t, append(compareArgs, "--out", out)...)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	data, _ := os.ReadFile(out)
	if n := strings.Count(string(data), "\n"); n != 3 {
		t.Fatalf("%d records in %s, want 3", n, out)
	}
	// Resuming a finished run does no work and prints the same table.
	again, errOut, code := runCLI(t, append(compareArgs, "--out", out, "--resume")...)
	if code != 0 {
		t.Fatalf("resume: exit %d: %s", code, errOut)
	}
	if maskTiming(again, "table") != maskTiming(first, "table") {
		t.Errorf("resumed table differs:\n%s\n%s", again, first)
	}
	data2, _ := os.ReadFile(out)
	if string(data2) != string(data) {
		t.Error("resuming a finished run rewrote the results file")
	}
	// report re-renders the same table from the file.
	rep, errOut, code := runCLI(t, "report", out)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	if maskTiming(rep, "table") != maskTiming(first, "table") {
		t.Errorf("report table differs:\n%s\n%s", rep, first)
	}
	// Other settings refuse to resume into the same file.
	_, errOut, code = runCLI(t, append(compareArgs, "--out", out, "--resume", "--seed", "9")...)
	if code != 1 || !strings.Contains(errOut, "other settings") {
		t.Errorf("resume with another seed: exit %d, stderr %q", code, errOut)
	}
}

func TestCompareShardsReport(t *testing.T) {
	dir := t.TempDir()
	var files []string
	for _, s := range []string{"1/2", "2/2"} {
		f := filepath.Join(dir, strings.ReplaceAll(s, "/", "of")+".jsonl")
		if _, errOut, code := runCLI(t, append(compareArgs, "--shard", s, "--out", f)...); code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errOut)
		}
		files = append(files, f)
	}
	merged, errOut, code := runCLI(t, append([]string{"report"}, files...)...)
	if code != 0 {
		t.Fatalf("report: exit %d: %s", code, errOut)
	}
	single, _, _ := runCLI(t, compareArgs...)
	if maskTiming(merged, "table") != maskTiming(single, "table") {
		t.Errorf("shards + report differ from a single run:\n%s\n%s", merged, single)
	}
}

func TestCompareUsageErrors(t *testing.T) {
	for _, args := range [][]string{
		{"compare", "--methods", "nosuch"},
		{"compare", "--methods", "spd:nosuch"},
		{"compare", "--shard", "3/2"},
		{"compare", "--resume"},
		{"compare", "--format", "xml"},
		{"compare", "--preset", "nosuch"},
		{"report"},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != 2 {
			t.Errorf("%v: exit %d, want 2 (stderr %q)", args, code, errOut)
		}
	}
	_, errOut, code := runCLI(t, "compare", "no-such-file.csv", "--methods", "svm")
	if code != 1 || !strings.Contains(errOut, "no-such-file.csv") {
		t.Errorf("missing file: exit %d, stderr %q", code, errOut)
	}
}
