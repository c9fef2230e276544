package cmd

import (
	"encoding/csv"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// twoSetArgs is a small run over two datasets and two methods, given in
// an order that is neither alphabetical nor the registry's.
var twoSetArgs = []string{"compare", "builtin:heart", "builtin:diabetes", "--methods", "spd,svm",
	"--partitions", "2", "--train-size", "40", "--test-size", "40", "--workers", "2", "-q"}

// stoppedEarly writes the records of src for which keep is true to a new
// file: a run stopped early, or a shard left out.
func stoppedEarly(t *testing.T, src string, keep func(rec map[string]any) bool) string {
	t.Helper()
	data, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, line := range strings.SplitAfter(string(data), "\n") {
		if line == "" {
			continue
		}
		var rec map[string]any
		if err := json.Unmarshal([]byte(line), &rec); err != nil {
			t.Fatal(err)
		}
		if keep(rec) {
			out = append(out, line)
		}
	}
	return writeFile(t, t.TempDir(), "partial.jsonl", strings.Join(out, ""))
}

// A report over an incomplete set of records says so in its first line and
// in every table, keeps the dataset without records, counts each row's
// runs and missing partitions, pairs the Wilcoxon test on the partitions
// both finished, and exits 1 unless --allow-partial.
func TestReportIncompleteRun(t *testing.T) {
	t.Parallel()
	full := filepath.Join(t.TempDir(), "full.jsonl")
	mustRun(t, append(twoSetArgs, "--out", full)...)
	// Stopped during heart: diabetes has no record, and spd lacks heart's
	// second partition.
	partial := stoppedEarly(t, full, func(r map[string]any) bool {
		return r["dataset"] == "heart" && (r["entry"] == "svm" || r["partition"] == 0.0)
	})
	// -q: the statistics across datasets' note (one dataset has results)
	// is not what this test is about.
	out, errOut, code := runCLI(t, "report", partial, "-q")
	if code != ExitError {
		t.Fatalf("report of an incomplete run: exit %d, want 1\n%s", code, errOut)
	}
	golden(t, "report_incomplete_table.golden", maskCompareTiming(out, "table"))
	wantErr := "kerneltune: report: INCOMPLETE: 3 of 8 jobs present (heart: 3 of 4, diabetes: no records); means are over the partitions present\n" +
		"  the tables above average only the jobs present: add the missing shards' files, finish the run with 'compare --resume', or pass --allow-partial to accept a partial table\n"
	if errOut != wantErr {
		t.Errorf("stderr\n%s\nwant\n%s", errOut, wantErr)
	}

	// --allow-partial: exit 0, the warning on stderr and in every format.
	const warning = "INCOMPLETE: 3 of 8 jobs present (heart: 3 of 4, diabetes: no records)"
	for _, format := range []string{"table", "markdown", "latex", "json", "csv"} {
		out, errOut, code := runCLI(t, "report", partial, "--allow-partial", "--format", format, "-q")
		if code != 0 || !strings.HasPrefix(errOut, "kerneltune: warning: "+warning) {
			t.Errorf("%s --allow-partial: exit %d, stderr %q", format, code, errOut)
		}
		switch format {
		case "json":
			var sum struct {
				Complete    bool   `json:"complete"`
				Warning     string `json:"warning"`
				JobsPlanned int    `json:"jobs_planned"`
				JobsPresent int    `json:"jobs_present"`
				Tables      []struct {
					Dataset  string `json:"dataset"`
					Complete bool   `json:"complete"`
					Rows     []struct {
						Entry   string `json:"entry"`
						Runs    int    `json:"runs"`
						Missing int    `json:"missing"`
						Pairs   int    `json:"pairs"`
					} `json:"rows"`
				} `json:"tables"`
			}
			if err := json.Unmarshal([]byte(out), &sum); err != nil {
				t.Fatal(err)
			}
			if sum.Complete || !strings.HasPrefix(sum.Warning, warning) || sum.JobsPlanned != 8 || sum.JobsPresent != 3 ||
				len(sum.Tables) != 2 || sum.Tables[1].Dataset != "diabetes" || sum.Tables[1].Complete ||
				sum.Tables[0].Rows[0].Entry != "spd" || sum.Tables[0].Rows[0].Runs != 1 || sum.Tables[0].Rows[0].Missing != 1 || sum.Tables[0].Rows[1].Pairs != 1 {
				t.Errorf("json of an incomplete run:\n%s", out)
			}
		case "csv":
			rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
			if err != nil {
				t.Fatal(err)
			}
			h := rows[0]
			col := func(name string) int { return slices.Index(h, name) }
			want := [][]string{ // dataset, method, runs, missing, complete
				{"heart", "spd", "1", "1", "false"}, {"heart", "svm", "2", "0", "false"},
				{"diabetes", "spd", "0", "2", "false"}, {"diabetes", "svm", "0", "2", "false"},
			}
			for i, w := range want {
				r := rows[i+1]
				got := []string{r[col("dataset")], r[col("method")], r[col("runs")], r[col("missing")], r[col("complete")]}
				if !slices.Equal(got, w) {
					t.Errorf("csv row %d: %q, want %q", i+1, got, w)
				}
			}
		default:
			title := "diabetes (2 partitions: sizes not recorded) — INCOMPLETE: no records (0 of 4 jobs present)"
			if format == "latex" {
				title = `\caption{diabetes (2 partitions: sizes not recorded) --- INCOMPLETE: no records (0 of 4 jobs present)}`
			}
			if !strings.Contains(out, warning) || !strings.Contains(out, title) {
				t.Errorf("%s output lacks the warning or the empty dataset:\n%s", format, out)
			}
		}
	}

	// The whole file is complete: exit 0, no warning, no missing column.
	out, errOut, code = runCLI(t, "report", full)
	if code != 0 || errOut != "" || strings.Contains(out, "INCOMPLETE") || strings.Contains(out, "missing") {
		t.Errorf("complete report: exit %d, stderr %q:\n%s", code, errOut, out)
	}
}

// Records written before the grid was recorded: report infers the grid,
// says so, and orders the datasets by first appearance in the files.
func TestReportOldRecordsWithoutGrid(t *testing.T) {
	t.Parallel()
	full := filepath.Join(t.TempDir(), "full.jsonl")
	mustRun(t, append(twoSetArgs, "--out", full)...)
	data, err := os.ReadFile(full)
	if err != nil {
		t.Fatal(err)
	}
	grid := regexp.MustCompile(`,"grid":\{[^}]*\}[^}]*\}\]?,"entries":\[[^\]]*\]\}`)
	if n := len(grid.FindAllString(string(data), -1)); n != 8 {
		t.Fatalf("%d of 8 records carry the grid", n)
	}
	old := writeFile(t, t.TempDir(), "old.jsonl", grid.ReplaceAllString(string(data), ""))
	if strings.Contains(string(mustReadFile(t, old)), `"grid"`) {
		t.Fatal("grid not stripped")
	}
	out, errOut, code := runCLI(t, "report", old, "--format", "csv")
	if code != 0 || !strings.Contains(errOut, "written by an older kerneltune") {
		t.Errorf("old records: exit %d, stderr %q", code, errOut)
	}
	// Merged records are sorted by name; the tables follow the files.
	if i, j := strings.Index(out, "\nheart,"), strings.Index(out, "\ndiabetes,"); i < 0 || j < i {
		t.Errorf("datasets not in the files' order:\n%s", out)
	}
}

func mustReadFile(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// A shard prints what it ran and where its records are, and no averaged
// table; the shards merged by report are the whole run.
func TestCompareShardPrintsNoTable(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	var files []string
	for i, s := range []string{"1/3", "2/3", "3/3"} {
		f := filepath.Join(dir, "shard-"+strconv.Itoa(i+1)+".jsonl")
		out, errOut, code := runCLI(t, append(twoSetArgs, "--shard", s, "--out", f)...)
		if code != 0 {
			t.Fatalf("shard %s: exit %d: %s", s, code, errOut)
		}
		// By expected cost (an svm job twice an spd one), not by count:
		// shard 1 holds two svm jobs, the others an svm and two spd each.
		jobs := []int{2, 3, 3}[i]
		want := "shard " + s + " of run RUN: " + strconv.Itoa(jobs) + " of its " + strconv.Itoa(jobs) + " jobs recorded (0 failed; 0 were already in the file), of the run's 8\n" +
			"records: " + f + "\n" +
			"no table: a shard holds a few partitions of each dataset; merge the files of all 3 shards with\n" +
			"  kerneltune report FILE...\n"
		if got := regexp.MustCompile(`run [0-9a-f]{12}:`).ReplaceAllString(out, "run RUN:"); got != want {
			t.Errorf("shard %s printed\n%s\nwant\n%s", s, got, want)
		}
		files = append(files, f)
	}
	merged := mustRun(t, append([]string{"report"}, files...)...)
	single := mustRun(t, twoSetArgs...)
	if maskCompareTiming(merged, "table") != maskCompareTiming(single, "table") {
		t.Errorf("shards + report differ from a single run:\n%s\n%s", merged, single)
	}
	// Shards without --out would lose their records; figures need the
	// whole run.
	for _, extra := range [][]string{{"--shard", "1/2"}, {"--shard", "1/2", "--out", filepath.Join(dir, "x.jsonl"), "--plot", dir}} {
		_, errOut, code := runCLI(t, append(twoSetArgs, extra...)...)
		if code != ExitUsage {
			t.Errorf("%v: exit %d, want 2 (%s)", extra, code, errOut)
		}
	}
}

// csv and json put one number in each column; a test reads the CSV as
// pandas or R would, and every numeric cell must parse.
func TestCompareCSVIsNumbers(t *testing.T) {
	t.Parallel()
	out := mustRun(t, append(twoSetArgs, "--format", "csv")...)
	if strings.ContainsAny(out, "±—*") {
		t.Errorf("csv holds ±, — or *:\n%s", out)
	}
	rows, err := csv.NewReader(strings.NewReader(out)).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"dataset", "method", "partitions", "runs", "failures", "missing", "degenerate", "memorising", "mean_test_accuracy", "std_test_accuracy",
		"mean_nsv", "mean_seconds", "mean_svm_solves", "baseline", "p_value", "pairs", "best", "complete",
		"rope_points", "p_worse", "p_equivalent", "p_better", "train_size", "test_size", "rows"}
	if !slices.Equal(rows[0], want) {
		t.Fatalf("header %q, want %q", rows[0], want)
	}
	if len(rows) != 5 {
		t.Fatalf("%d rows, want a header and 4 (2 datasets × 2 methods)", len(rows))
	}
	order := []string{"heart/spd", "heart/svm", "diabetes/spd", "diabetes/svm"}
	for i, r := range rows[1:] {
		if got := r[0] + "/" + r[1]; got != order[i] {
			t.Errorf("row %d is %s, want %s (command-line and --methods order)", i+1, got, order[i])
		}
		for j, name := range rows[0] {
			cell := r[j]
			switch name {
			case "dataset", "method", "baseline":
			case "best", "complete":
				if _, err := strconv.ParseBool(cell); err != nil {
					t.Errorf("row %d %s = %q, not a boolean", i+1, name, cell)
				}
			case "p_value", "p_worse", "p_equivalent", "p_better":
				if r[1] == "spd" { // the baseline's own p is the empty cell
					if cell != "" {
						t.Errorf("baseline's p_value %q, want empty", cell)
					}
					continue
				}
				fallthrough
			default:
				v, err := strconv.ParseFloat(cell, 64)
				if err != nil {
					t.Errorf("row %d %s = %q does not parse: %v", i+1, name, cell, err)
				}
				if (name == "mean_test_accuracy" || strings.HasPrefix(name, "p_")) && (v < 0 || v > 1) {
					t.Errorf("row %d %s = %v outside [0, 1]", i+1, name, v)
				}
			}
		}
	}
	// The same numbers as JSON (accuracies as fractions in both).
	sum, _ := runJSON[struct {
		Tables []struct {
			Rows []struct {
				MeanAcc float64 `json:"mean_test_accuracy"`
			} `json:"rows"`
		} `json:"tables"`
	}](t, "compare", twoSetArgs[1:]...)
	if got, _ := strconv.ParseFloat(rows[3][slices.Index(rows[0], "mean_test_accuracy")], 64); got != sum.Tables[1].Rows[0].MeanAcc {
		t.Errorf("csv diabetes spd mean %v, json %v", got, sum.Tables[1].Rows[0].MeanAcc)
	}
}

// Markdown notes are paragraphs, not list items; latex says it needs
// booktabs in the output and in --help.
func TestSummaryMarkdownAndLaTeX(t *testing.T) {
	t.Parallel()
	md := mustRun(t, append(compareArgs, "--format", "markdown")...)
	for _, line := range strings.Split(md, "\n") {
		if regexp.MustCompile(`^\s*([*+-]|[0-9]+[.)])\s`).MatchString(line) {
			t.Errorf("markdown line renders as a list item: %q", line)
		}
	}
	if !strings.Contains(md, "\n\n\\* best mean test accuracy") {
		t.Errorf("footnote not an escaped paragraph:\n%s", md)
	}
	tex := mustRun(t, append(compareArgs, "--format", "latex")...)
	if !strings.HasPrefix(tex, `% kerneltune: table environments with booktabs tabulars, each scaled down to \linewidth only where wider; needs \usepackage{booktabs} and \usepackage{graphicx} in the preamble`) {
		t.Errorf("latex does not say it needs booktabs and graphicx:\n%s", tex)
	}
	for _, c := range []string{"compare", "report"} {
		if help := mustRun(t, c, "--help"); !strings.Contains(help, `\usepackage{booktabs}`) || !strings.Contains(help, `\usepackage{graphicx}`) {
			t.Errorf("%s --help does not mention booktabs and graphicx", c)
		}
	}
}
