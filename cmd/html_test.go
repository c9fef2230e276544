package cmd

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// The page of a five-dataset run holds every dataset's section in the
// run's order, every accuracy the text table prints, the statistics across
// datasets, one figure per trace the records carry plus the accuracy and
// critical-difference figures, the fingerprint, and nothing to fetch.
func TestReportHTML(t *testing.T) {
	t.Parallel()
	page := filepath.Join(t.TempDir(), "report.html")
	text := mustRun(t, "report", crossRun, "-q")
	mustRun(t, "report", crossRun, "-q", "--html", page)
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	html := string(b)

	var heads []string
	for _, m := range regexp.MustCompile(`<h2 id="[^"]*">([^<]*)</h2>`).FindAllStringSubmatch(html, -1) {
		heads = append(heads, m[1])
	}
	// The page leads with the summary (the papers' table and the
	// critical-difference diagram), the settings and provenance last
	// (issue 35, item 5b).
	want := []string{"Summary", "Test accuracy per partition", "heart (8 partitions: 60 train / 100 test, rows of the data not recorded)", "breast-wisconsin (8 partitions: 60 train / 100 test, rows of the data not recorded)",
		"diabetes (8 partitions: 60 train / 100 test, rows of the data not recorded)", "bupa_header_crlf (8 partitions: 60 train / 100 test, rows of the data not recorded)", "a1a (8 partitions: 60 train / 100 test, rows of the data not recorded)", "Across datasets", "Settings"}
	if !slices.Equal(heads, want) {
		t.Errorf("sections %q, want %q", heads, want)
	}
	acc := regexp.MustCompile(`\d+\.\d\d ± \d+\.\d\d`).FindAllString(text, -1)
	if len(acc) != 20 {
		t.Fatalf("the text report has %d accuracy cells, want 20 (5 datasets × 4 methods)", len(acc))
	}
	for _, a := range acc {
		if !strings.Contains(html, ">"+a+"<") {
			t.Errorf("the page lacks the accuracy cell %q of the text report", a)
		}
	}
	for _, s := range []string{"b665878e4c3e", "Friedman χ²_F", "5.100", "Iman–Davenport F_F", "2.061", "Holm", "160 of 160 present"} {
		if !strings.Contains(html, s) {
			t.Errorf("the page lacks %q", s)
		}
	}

	// One trace figure per (dataset, entry) whose records carry a trace of
	// two or more iterations.
	traced := map[string]bool{}
	data, _ := os.ReadFile(crossRun)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		var r struct {
			Dataset, Entry string
			Trace          []float64
		}
		if err := json.Unmarshal([]byte(line), &r); err != nil {
			t.Fatal(err)
		}
		if len(r.Trace) >= 2 {
			traced[r.Dataset+"/"+r.Entry] = true
		}
	}
	if n := strings.Count(html, "the criterion per iteration"); n != len(traced) || n == 0 {
		t.Errorf("%d trace figures, want %d", n, len(traced))
	}
	for _, caption := range []string{"Test accuracy per partition: boxes", "Critical-difference diagram (Demšar 2006)"} {
		if n := strings.Count(html, caption); n != 1 {
			t.Errorf("%d figures captioned %q, want 1", n, caption)
		}
	}
	if figs, svgs := strings.Count(html, "<figure>"), strings.Count(html, "<svg"); figs != svgs || figs < len(traced)+2 {
		t.Errorf("%d figures holding %d inline SVGs", figs, svgs)
	}
	for _, bad := range []string{"<script", " src=", "<link", "@import", "<?xml"} {
		if strings.Contains(html, bad) {
			t.Errorf("the page holds %q", bad)
		}
	}
}

// An incomplete run and a failed job are shown at the top of the page,
// before any table, and the failure's error (escaped) in its own section.
func TestReportHTMLIncompleteAndFailures(t *testing.T) {
	t.Parallel()
	full := filepath.Join(t.TempDir(), "full.jsonl")
	mustRun(t, append(twoSetArgs, "--out", full)...)
	partial := stoppedEarly(t, full, func(r map[string]any) bool {
		return !(r["dataset"] == "diabetes" && r["partition"] == 1.0 && r["entry"] == "svm")
	})
	// One job failed, with an error that holds markup.
	data, err := os.ReadFile(partial)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(data), "\n")
	var rec map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &rec); err != nil {
		t.Fatal(err)
	}
	rec["status"], rec["error"] = "failure", "methods: spd: <b>broken</b> & gone"
	first, _ := json.Marshal(rec)
	lines[0] = string(first) + "\n"
	if err := os.WriteFile(partial, []byte(strings.Join(lines, "")), 0o644); err != nil {
		t.Fatal(err)
	}

	page := filepath.Join(t.TempDir(), "report.html")
	if _, errOut, code := runCLI(t, "report", partial, "-q", "--html", page); code != ExitError {
		t.Fatalf("report of an incomplete run with --html: exit %d, want 1\n%s", code, errOut)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatalf("no page written for an incomplete run: %v", err)
	}
	html := string(b)
	box, table := strings.Index(html, `class="warnings"`), strings.Index(html, "<table>")
	if box < 0 || table < 0 || box > table {
		t.Fatalf("the warnings box (at %d) is not before the first table (at %d)", box, table)
	}
	top := html[box:table]
	for _, s := range []string{"INCOMPLETE: 7 of 8 jobs present (diabetes: 3 of 4)", "1 job(s) failed"} {
		if !strings.Contains(top, s) {
			t.Errorf("the top of the page lacks %q:\n%s", s, top)
		}
	}
	if !strings.Contains(html, "diabetes (2 partitions: 40 train / 40 test of 768 rows) — INCOMPLETE: 3 of 4 jobs present") {
		t.Errorf("the diabetes section is not marked incomplete")
	}
	if !strings.Contains(html, `<h2 id="s-failures">Failures</h2>`) || !strings.Contains(html, "methods: spd: &lt;b&gt;broken&lt;/b&gt; &amp; gone") {
		t.Errorf("the failure and its escaped error are not in a Failures section")
	}
	if strings.Contains(html, "<b>broken") {
		t.Errorf("the error's markup reached the page unescaped")
	}
}

func TestHTMLFlagUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	for _, args := range [][]string{
		{"report", crossRun, "--html", filepath.Join(dir, "no", "such", "r.html")},
		{"report", crossRun, "--html", dir},
		{"compare", "builtin:heart", "--methods", "svm", "--partitions", "2", "--shard", "1/2", "--out", filepath.Join(dir, "s.jsonl"), "--html", filepath.Join(dir, "r.html")},
	} {
		_, errOut, code := runCLI(t, args...)
		if code != ExitUsage || !strings.Contains(errOut, "--html") {
			t.Errorf("%v: exit %d, want %d with a message about --html: %s", args, code, ExitUsage, errOut)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "s.jsonl")); err == nil {
		t.Errorf("the refused shard ran and wrote records")
	}
}

// The page opens in a real browser (headless Chromium) without a console
// message and is not blank.
func TestHTMLReportInChromium(t *testing.T) {
	page := filepath.Join(t.TempDir(), "report.html")
	mustRun(t, "report", crossRun, "-q", "--html", page)
	img, console := shotInChromium(t, page, 1200, 2400)
	if len(console) > 0 {
		t.Errorf("the page logged to the console:\n%s", strings.Join(console, "\n"))
	}
	if b := img.Bounds(); b.Dx() != 1200 || b.Dy() != 2400 {
		t.Errorf("screenshot is %v, want 1200×2400", b)
	}
	if ink := inkFraction(img); ink < 0.03 {
		t.Errorf("the page looks blank: %.4f of the pixels are not white", ink)
	}
}

// The browser check can fail: a page with a script error is caught, and a
// blank page is seen as blank.
func TestChromiumCheckCatchesErrorsAndBlankPages(t *testing.T) {
	dir := t.TempDir()
	bad := writeFile(t, dir, "bad.html", `<!DOCTYPE html><html><body><p>x</p><script>console.error("boom"); nosuch();</script></body></html>`)
	_, console := shotInChromium(t, bad, 400, 300)
	if len(console) != 2 || !strings.Contains(console[0], "boom") || !strings.Contains(console[1], "nosuch") {
		t.Errorf("console messages %q, want boom and the ReferenceError", console)
	}
	blank := writeFile(t, dir, "blank.html", `<!DOCTYPE html><html><body></body></html>`)
	img, _ := shotInChromium(t, blank, 400, 300)
	if ink := inkFraction(img); ink != 0 {
		t.Errorf("a blank page has ink %.4f", ink)
	}
}
