package cmd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

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
			golden(t, "compare_"+format+".golden", maskCompareTiming(out, format))
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
	if maskCompareTiming(again, "table") != maskCompareTiming(first, "table") {
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
	if maskCompareTiming(rep, "table") != maskCompareTiming(first, "table") {
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
	if maskCompareTiming(merged, "table") != maskCompareTiming(single, "table") {
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
