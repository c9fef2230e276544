package cmd

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// checkLaTeX is a strict check of kerneltune's latex output, outside its %
// comment lines: ASCII only (pdflatex's input needs no encoding package),
// math mode opened and closed on each line, no _ or ^ outside math mode
// unless escaped, braces balanced, every \begin closed by its \end, every
// table environment with a caption and a label (all labels distinct), and
// every row of a tabular with as many cells as its column spec.
func checkLaTeX(t *testing.T, tex string) {
	t.Helper()
	var envs []string
	labels := map[string]bool{}
	cols := 0
	tables, captions := 0, 0
	for i, line := range strings.Split(tex, "\n") {
		if strings.HasPrefix(line, "%") || line == "" {
			continue
		}
		// Every tabular is wrapped in a \resizebox that scales it down to
		// the line's width only where it is wider: its opening and closing
		// lines carry a brace each.
		if line == `\resizebox{\ifdim\width>\linewidth\linewidth\else\width\fi}{!}{%` || line == "}" || line == `\par\medskip` {
			continue
		}
		for _, r := range line {
			if r > 126 {
				t.Errorf("line %d: non-ASCII %q: %s", i+1, r, line)
				break
			}
		}
		math, depth := false, 0
		amps := 0
		for k := 0; k < len(line); k++ {
			c := line[k]
			if c == '\\' && k+1 < len(line) {
				k++ // an escaped character or a command's first letter
				continue
			}
			switch c {
			case '$':
				math = !math
			case '_', '^':
				if !math {
					t.Errorf("line %d: %c outside math mode: %s", i+1, c, line)
				}
			case '{':
				depth++
			case '}':
				depth--
			case '&':
				amps++
			}
		}
		if math {
			t.Errorf("line %d: math mode not closed: %s", i+1, line)
		}
		if depth != 0 {
			t.Errorf("line %d: braces unbalanced: %s", i+1, line)
		}
		if m := regexp.MustCompile(`^\\begin\{(\w+)\}(?:\[[a-z]+\])?(?:\{([lrc]+)\})?$`).FindStringSubmatch(line); m != nil {
			envs = append(envs, m[1])
			if m[1] == "tabular" {
				cols = len(m[2])
			}
			if m[1] == "table" {
				tables++
			}
			continue
		}
		if m := regexp.MustCompile(`^\\end\{(\w+)\}%?$`).FindStringSubmatch(line); m != nil {
			if len(envs) == 0 || envs[len(envs)-1] != m[1] {
				t.Errorf("line %d: \\end{%s} closes %v", i+1, m[1], envs)
			} else {
				envs = envs[:len(envs)-1]
			}
			continue
		}
		if strings.HasPrefix(line, `\caption{`) {
			captions++
			continue
		}
		if m := regexp.MustCompile(`^\\label\{([a-z0-9:-]+)\}$`).FindStringSubmatch(line); m != nil {
			if labels[m[1]] {
				t.Errorf("label %s twice", m[1])
			}
			labels[m[1]] = true
			continue
		}
		if strings.HasSuffix(line, `\\`) && amps != cols-1 {
			t.Errorf("line %d: %d cells in a tabular of %d columns: %s", i+1, amps+1, cols, line)
		}
	}
	if len(envs) != 0 {
		t.Errorf("environments left open: %v", envs)
	}
	if tables == 0 || captions != tables || len(labels) != tables {
		t.Errorf("%d table environments, %d captions, %d labels", tables, captions, len(labels))
	}
}

// TestReportLaTeXEscapesAndTables: `report FILE --format latex` writes the
// statistics' symbols in math mode ($\chi^2_F$, $q_\alpha$, $F_F$, not the
// literal underscores of before: "Friedman $\chi^2$\_F", "q\_$\alpha$",
// "F\_F"), every table in a table environment with a caption and a label,
// and passes the strict check.
func TestReportLaTeXEscapesAndTables(t *testing.T) {
	t.Parallel()
	tex := mustRun(t, "report", crossRun, "--format", "latex", "-q")
	checkLaTeX(t, tex)
	for _, want := range []string{
		`Friedman $\chi^2_F$ & 5.100`,
		`Iman--Davenport $F_F$ & 2.061`,
		`$\alpha$ & $q_\alpha$ & CD & not significantly different`,
		`\caption{heart (8 partitions: 60 train / 100 test, rows of the data not recorded)}` + "\n" + `\label{tab:heart-8-partitions}`,
		`\caption{Friedman test: are the 4 methods equivalent over the 5 datasets?}`,
		`\label{tab:kerneltune-summary}`,
		`bupa\_header\_crlf`, // an underscore in a name stays literal text
	} {
		if !strings.Contains(tex, want) {
			t.Errorf("latex output lacks %q", want)
		}
	}
	for _, bad := range []string{`$\chi^2$\_F`, `q\_$\alpha$`, `F\_F`} {
		if strings.Contains(tex, bad) {
			t.Errorf("latex output still has %q", bad)
		}
	}
}

// overfullRE is an overfull box in pdflatex's log, with its excess.
var overfullRE = regexp.MustCompile(`Overfull \\[hv]box \(([0-9.]+)pt too (wide|high)\)[^\n]*`)

// TestReportLaTeXCompiles compiles the latex output with pdflatex, as it
// is, in a plain article that loads booktabs and graphicx, with
// -halt-on-error: the report of a default compare's records (six methods,
// three datasets: testdata/latex/default-3.jsonl), of
// testdata/crossdata/run.jsonl (five datasets, one with a long name) and a
// compare's own output; it fails on any error and on any overfull box over
// 1 pt (the per-dataset tables of ten columns ran about 250 pt past the text
// width). Skipped, saying so, where pdflatex or booktabs is not installed
// (apt-get install texlive-latex-base texlive-latex-recommended).
func TestReportLaTeXCompiles(t *testing.T) {
	t.Parallel()
	pdflatex, err := exec.LookPath("pdflatex")
	if err != nil {
		t.Skip("pdflatex not installed (apt-get install texlive-latex-base texlive-latex-recommended): the strict check of TestReportLaTeXEscapesAndTables still runs")
	}
	if k, err := exec.Command("kpsewhich", "booktabs.sty").Output(); err != nil || len(k) == 0 {
		t.Skip("booktabs.sty not installed (apt-get install texlive-latex-recommended)")
	}
	for i, args := range [][]string{
		{"report", cmdTestdata + "/latex/default-3.jsonl", "--format", "latex", "-q"},
		{"report", crossRun, "--format", "latex", "-q"},
		append(append([]string{}, twoSetArgs...), "--format", "latex"),
	} {
		out, _, _ := runCLI(t, args...)
		if out == "" {
			t.Fatalf("%v: no output", args)
		}
		checkLaTeX(t, out)
		dir := t.TempDir()
		doc := "\\documentclass{article}\n\\usepackage{booktabs}\n\\usepackage{graphicx}\n\\begin{document}\n" + out + "\\end{document}\n"
		if err := os.WriteFile(filepath.Join(dir, "t.tex"), []byte(doc), 0o644); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(pdflatex, "-interaction=nonstopmode", "-halt-on-error", "t.tex")
		cmd.Dir = dir
		b, err := cmd.CombinedOutput()
		if err != nil {
			t.Errorf("pdflatex on %v: %v\n%s", args, err, b[max(0, len(b)-3000):])
			continue
		}
		log, err := os.ReadFile(filepath.Join(dir, "t.log"))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(log), "multiply-defined") {
			t.Errorf("%v: labels defined twice", args)
		}
		for _, m := range overfullRE.FindAllStringSubmatch(string(log), -1) {
			if pt, _ := strconv.ParseFloat(m[1], 64); pt > 1 {
				t.Errorf("%v: %s", args, m[0])
			}
		}
		if i == 0 && !strings.Contains(out, "\\usepackage{graphicx}") {
			t.Errorf("the latex output does not say it needs graphicx")
		}
	}
}
