package readme

import (
	"strings"
	"testing"
	"time"
)

const sample = "# Title\n\n" +
	"<!-- readme: run -->\n" +
	"```\n" +
	"$ kerneltune tune data.csv --method svm | grep -E 'C|accuracy' # quick\n" +
	"│ C     │ 0.5    │\n" +
	"│ accuracy │ 83.95% │\n" +
	"$ kerneltune info x\n" +
	"time 0.397 s\n" +
	"```\n\n" +
	"```sh\nkerneltune compare   # a listing, not checked\n```\n\n" +
	"<!-- readme: measured 2026-11-01 -->\n" +
	"```\n$ kerneltune compare\nheart 81.93\n```\n"

func TestParse(t *testing.T) {
	d, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Blocks) != 2 || d.Blocks[0].Kind != Run || d.Blocks[1].Kind != Measured || d.Blocks[1].Date != "2026-11-01" {
		t.Fatalf("blocks %+v", d.Blocks)
	}
	c := d.Blocks[0].Commands[0]
	if strings.Join(c.Args, " ") != "tune data.csv --method svm" || len(c.Filters) != 1 || c.Filters[0].Name != "grep" ||
		c.Filters[0].RE.String() != "C|accuracy" || len(c.Output) != 2 || c.Line != 4 {
		t.Errorf("command %+v", c)
	}
	if e, err := Parse("<!-- readme: run -->\n```\n$ kerneltune report s.jsonl   # incomplete: exit 1\n```\n"); err != nil || e.Blocks[0].Commands[0].Exit != 1 || c.Exit != 0 {
		t.Errorf("exit codes: %v %+v", err, e)
	}
	if got := d.Blocks[0].Commands[1].Output; len(got) != 1 || got[0] != "time 0.397 s" {
		t.Errorf("second command's output %q", got)
	}
	if d.String() != sample {
		t.Error("String does not give the text back")
	}
}

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"```\n$ kerneltune info x\nsome output\n```\n", "README.md:2: output pasted after \"$ kerneltune info x\" in a block without a readme marker"},
		{"<!-- readme: run -->\ntext\n", "README.md:1: a readme marker must be followed by a fenced code block"},
		{"<!-- readme: measured yesterday -->\n```\n$ kerneltune x\n```\n", "want <!-- readme: run --> or <!-- readme: measured YYYY-MM-DD -->"},
		{"<!-- readme: measured 2026-13-01 -->\n```\n$ kerneltune x\n```\n", "is not a date"},
		{"<!-- readme: run -->\n```\nout\n```\n", "README.md:3: output before the first"},
		{"<!-- readme: run -->\n```\n$ ls -l\n```\n", "runs kerneltune commands only"},
		{"<!-- readme: run -->\n```\n$ kerneltune x | sort\n```\n", "knows head -n, tail -n and grep"},
		{"<!-- readme: run -->\n```\n$ kerneltune x | head 3\n```\n", "want head -n N"},
		{"<!-- readme: run -->\n```\n$ kerneltune x 'open\n```\n", "unclosed ' quote"},
		{"<!-- readme: run -->\n```\n$ kerneltune x\n", "code block is not closed"},
	} {
		if _, err := Parse(tc.text); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
}

func TestApply(t *testing.T) {
	out := "a 1\nb 2\nc 3\nd 4\n"
	d, err := Parse("<!-- readme: run -->\n```\n$ kerneltune x | grep -v 'b' | head -n 2 | tail -n 1\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	if got := Apply(out, d.Blocks[0].Commands[0].Filters); got != "c 3\n" {
		t.Errorf("got %q", got)
	}
	if got := Apply(out, nil); got != out {
		t.Errorf("no filters: %q", got)
	}
}

// Normalize masks wall times and the column widths they change, nothing
// else.
func TestNormalize(t *testing.T) {
	a := "│ time │ 0.397 s tuning + 0.001 s final fit │\n├──────┼────┤\n\"tune_time_s\": 0.39,"
	b := "│ time │ 12.5 s tuning + 0.002 s final fit     │\n├──────┼──────────┤\n\"tune_time_s\": 12.5,"
	if Normalize(a) != Normalize(b) {
		t.Errorf("%q\n%q", Normalize(a), Normalize(b))
	}
	// compare's time column, and only it.
	ta := "│ method │ acc │ time s │\n├──┼──┤\n│ svm │ 81.93 │ 0.11 │\n│ gi │ 74.07 │ 0.15 │\n└──┘\n│ x │ 0.11 │ 1 │"
	tb := "│ method │ acc │ time s │\n├──┼──┤\n│ svm │ 81.93 │ 10.48 │\n│ gi │ 74.07 │ 0.8 │\n└──┘\n│ x │ 0.11 │ 1 │"
	if Normalize(ta) != Normalize(tb) {
		t.Errorf("time column:\n%s\n%s", Normalize(ta), Normalize(tb))
	}
	if Normalize(ta) == Normalize(strings.Replace(ta, "74.07", "74.08", 1)) || Normalize(ta) == Normalize(strings.Replace(ta, "│ x │ 0.11", "│ x │ 0.12", 1)) {
		t.Error("masking the time column hides other cells")
	}
	for _, c := range [][2]string{
		{"│ test accuracy │ 83.95% │", "│ test accuracy │ 83.96% │"},
		{"#SV 144", "#SV 145"},
		{"400 rows", "401 rows"},
	} {
		if Normalize(c[0]) == Normalize(c[1]) {
			t.Errorf("%q and %q compare equal", c[0], c[1])
		}
	}
}

// Rerun reports a changed number and not a changed time; Update pastes the
// new output in, keeps the rest, and dates a rerun measured block.
func TestRerunUpdate(t *testing.T) {
	d, err := Parse(sample)
	if err != nil {
		t.Fatal(err)
	}
	now := map[string]string{
		"tune":    "│ C │ 0.5 │\n│ cv accuracy │ 0.86 │\n│ accuracy │ 84.00% │\n│ kernel │ x │\n",
		"info":    "time 12.1 s\n",
		"compare": "heart 82.00\n",
	}
	run := func(args []string) (string, int) { return now[args[0]], 0 }
	res := d.Rerun(run, false)
	if len(res) != 2 || !res[0].Changed || res[1].Changed {
		t.Fatalf("results %+v", res)
	}
	if res[0].Output != "│ C │ 0.5 │\n│ cv accuracy │ 0.86 │\n│ accuracy │ 84.00% │\n" {
		t.Errorf("filtered output %q", res[0].Output)
	}
	if n := d.Update(res, "2026-11-24"); n != 1 {
		t.Errorf("%d outputs replaced, want 1", n)
	}
	want := strings.Replace(sample, "│ C     │ 0.5    │\n│ accuracy │ 83.95% │\n", "│ C │ 0.5 │\n│ cv accuracy │ 0.86 │\n│ accuracy │ 84.00% │\n", 1)
	if d.String() != want {
		t.Errorf("updated:\n%s\nwant:\n%s", d.String(), want)
	}

	// Rerunning everything at once: the first output grows by a line, and
	// the measured block after it is dated on its own marker line.
	d, _ = Parse(sample)
	d.Update(d.Rerun(run, true), "2026-11-24")
	if !strings.Contains(d.String(), "\n\n<!-- readme: measured 2026-11-24 -->\n```\n$ kerneltune compare\nheart 82.00\n```\n") ||
		strings.Count(d.String(), "<!-- readme:") != 2 {
		t.Errorf("rerun of all blocks:\n%s", d.String())
	}

	d, _ = Parse(want)
	all := d.Rerun(run, true)
	if len(all) != 3 || !all[2].Changed {
		t.Fatalf("with the measured block: %+v", all)
	}
	d.Update(all, "2026-11-24")
	if !strings.Contains(d.String(), "<!-- readme: measured 2026-11-24 -->\n```\n$ kerneltune compare\nheart 82.00\n```") {
		t.Errorf("measured block not updated:\n%s", d.String())
	}
}

func TestDatedClaims(t *testing.T) {
	today := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	text := "heart 82.6 (measured 2026-11-20 with `kerneltune compare builtin:heart`), and\nmore (81%, measured\n2026-11-21 with `go test ./pkg/methods`)."
	c, err := DatedClaims(text, today)
	if err != nil || len(c) != 2 || c[0].Line != 1 || c[1].Line != 2 || c[1].Date != "2026-11-21" || c[0].Command != "kerneltune compare builtin:heart" {
		t.Errorf("claims %+v, %v", c, err)
	}
	for _, bad := range []string{"(measured 2026-02-30 with `x`)", "(x, measured 2027-01-01 with `x`)"} {
		if _, err := DatedClaims(bad, today); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

// TestIndentedBlocks: a block inside a list item (marker and fences indented)
// is checked like any other, its output read without the indentation and
// written back with it; an unmarked indented block with pasted output is an
// error, as at the margin (both were skipped).
func TestIndentedBlocks(t *testing.T) {
	text := "- item:\n\n  <!-- readme: run -->\n  ```\n  $ kerneltune info x   # exit 1\n  old line\n  ```\n"
	d, err := Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Blocks) != 1 || len(d.Blocks[0].Commands) != 1 {
		t.Fatalf("blocks %+v", d.Blocks)
	}
	c := d.Blocks[0].Commands[0]
	if c.Exit != 1 || len(c.Output) != 1 || c.Output[0] != "old line" {
		t.Fatalf("command %+v", c)
	}
	d.SetOutput(c, "new 1\nnew 2\n")
	if want := "- item:\n\n  <!-- readme: run -->\n  ```\n  $ kerneltune info x   # exit 1\n  new 1\n  new 2\n  ```\n"; d.String() != want {
		t.Errorf("updated:\n%s\nwant:\n%s", d.String(), want)
	}
	if _, err := Parse("- item:\n  ```\n  $ kerneltune info x\n  pasted\n  ```\n"); err == nil || !strings.Contains(err.Error(), "output pasted") {
		t.Errorf("unmarked indented block with output: %v", err)
	}
}

// TestErrorsNameTheFile: the pages of docs/ are checked as the README is, and
// an error names the page and line it is on.
func TestErrorsNameTheFile(t *testing.T) {
	if _, err := ParseFile("docs/methods.md", "text\n<!-- readme: run -->\ntext\n"); err == nil || !strings.HasPrefix(err.Error(), "docs/methods.md:2: ") {
		t.Errorf("ParseFile: %v", err)
	}
	today := time.Date(2026, 11, 24, 0, 0, 0, 0, time.UTC)
	if _, err := DatedClaimsIn("docs/speed.md", "a\n(x, measured 2027-01-01 with `x`)", today); err == nil || !strings.HasPrefix(err.Error(), "docs/speed.md:2: ") {
		t.Errorf("DatedClaimsIn: %v", err)
	}
}
