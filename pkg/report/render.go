package report

import (
	"bytes"
	"cmp"
	"encoding/csv"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/pkg/twwidth"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// widthCacheEntries bounds tablewriter's cache of string widths
// (twwidth), which its package's start makes for 8,192 entries: a map
// live through every command from its start (0.5 MB more live heap,
// TestWidthCacheBounded), where a command's tables hold a few hundred
// distinct strings (letter's 325 pairs, about 2,600; a miss only measures
// the string again). A ten-class train's peak RSS fell by about 1 MB
// (5,000 rows 42-44 -> 41-42 MB, letter 41-44 -> 40-42, 4 runs each).
const widthCacheEntries = 1024

func init() { twwidth.SetCacheCapacity(widthCacheEntries) }

// Output formats. Every command prints a table by default; JSON is the same
// result as data; csv, markdown and latex are for results that are tables.
const (
	FormatTable    = "table"    // box-drawn text, the default
	FormatJSON     = "json"     // the result as indented JSON (RenderJSON)
	FormatCSV      = "csv"      // one CSV table per Table, without titles or notes
	FormatMarkdown = "markdown" // a markdown table, title in bold, notes as paragraphs
	FormatLaTeX    = "latex"    // a table environment (caption, label) around a booktabs tabular, notes as % comments
)

// Table is one titled table of a command's output. Cells are strings: the
// caller chooses the precision of each number (Fixed, Sig), so the text
// and the table, markdown, csv and latex forms all show the same digits.
type Table struct {
	// Preface lines come before the title (e.g. a warning that results are
	// missing): plain lines in text, paragraphs in markdown, % comments in
	// latex, left out of csv.
	Preface []string
	Title   string     // printed above the table; "" for none
	Label   string     // what latex's \label is made of; "" for the title
	Header  []string   // column names, printed as given (not upper-cased)
	Rows    [][]string // each row has len(Header) cells
	Notes   []string   // printed below the table, one line each
	// LaTeXPanels, when set, are the columns (indexes into Header) of each
	// panel of the latex form: a tabular of its own, one under the other in
	// the one table environment, so that a table of many columns fits the
	// page's width. nil: one tabular of every column.
	LaTeXPanels [][]int
}

// Add appends a row.
func (t *Table) Add(cells ...string) { t.Rows = append(t.Rows, cells) }

// ErrUnknownFormat is what CheckFormat's errors wrap: the format asked for is
// not one the caller can write. The command line reports it as a usage error.
var ErrUnknownFormat = errors.New("unknown format")

// formatError is CheckFormat's error: its message names the flag, the format
// and the allowed ones.
type formatError struct {
	format  string
	allowed []string
}

func (e *formatError) Error() string { return e.Words().String() }

// Words is the message of e, naming the format setting.
func (e *formatError) Words() hint.Text {
	return hint.T(hint.S("format", ""), fmt.Sprintf(": unknown format %q (want %s)", e.format, strings.Join(e.allowed, ", ")))
}

func (e *formatError) Unwrap() error { return ErrUnknownFormat }

// CheckFormat returns an error wrapping ErrUnknownFormat unless format is one
// of allowed. Its message is the command line's: `--format: unknown format
// "yaml" (want table, json)`.
func CheckFormat(format string, allowed ...string) error {
	if slices.Contains(allowed, format) {
		return nil
	}
	return &formatError{format, slices.Clone(allowed)}
}

// RenderJSON writes v as indented JSON followed by a newline. HTML characters
// are not escaped (the output is for people and programs, not browsers).
func RenderJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return fmt.Errorf("writing JSON: %w", err)
	}
	return nil
}

// Render writes the tables in format: "table" (box-drawn text, the
// default), "markdown", "csv" or "latex" (a table environment around a
// booktabs tabular). Tables are separated by a blank line. Columns whose
// cells are all numbers are right-aligned. In csv the titles and notes are
// left out, so that a single table is a plain CSV file; in latex the title
// is the caption (with a label made from it, unique in the output) and the
// notes % comments, after one saying that the tables need the booktabs
// package.
func Render(w io.Writer, format string, ts ...*Table) error {
	labels := map[string]int{} // latex: the labels given, to keep them unique
	if format == FormatLaTeX && len(ts) > 0 {
		if _, err := io.WriteString(w, latexPreamble); err != nil {
			return err
		}
	}
	for i, t := range ts {
		if i > 0 {
			if _, err := io.WriteString(w, "\n"); err != nil {
				return err
			}
		}
		var err error
		switch format {
		case FormatTable, "":
			err = renderText(w, t, false)
		case FormatMarkdown:
			err = renderText(w, t, true)
		case FormatCSV:
			err = renderCSV(w, t)
		case FormatLaTeX:
			err = renderLaTeX(w, t, labels)
		default:
			return fmt.Errorf("render: unknown table format %q", format)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// columnAligns returns tw.AlignRight for the columns whose non-empty cells all
// read as numbers (possibly with a "±", "%" or "x" part), left otherwise.
func columnAligns(t *Table) []tw.Align {
	al := make([]tw.Align, len(t.Header))
	for j := range t.Header {
		num, seen := true, false
		for _, r := range t.Rows {
			if j >= len(r) || strings.TrimSpace(r[j]) == "" {
				continue
			}
			seen = true
			if !isNumericCell(r[j]) {
				num = false
				break
			}
		}
		if num && seen {
			al[j] = tw.AlignRight
		} else {
			al[j] = tw.AlignLeft
		}
	}
	return al
}

// isNumericCell reports whether s is a number, "a ± b", a count "a/b", a
// percentage, "-", "NaN" or "Inf".
func isNumericCell(s string) bool {
	for _, part := range strings.Split(strings.ReplaceAll(s, "/", "±"), "±") {
		p := strings.TrimSpace(part)
		p = strings.TrimSuffix(p, "%")
		p = strings.TrimSuffix(p, "×")
		if p == "-" || p == "—" {
			continue
		}
		if _, err := strconv.ParseFloat(p, 64); err != nil {
			return false
		}
	}
	return true
}

// latexPreamble opens every latex output: \toprule, \midrule and
// \bottomrule are the booktabs package's.
const latexPreamble = "% kerneltune: table environments with booktabs tabulars, each scaled down to \\linewidth only where wider; needs \\usepackage{booktabs} and \\usepackage{graphicx} in the preamble\n"

// latexFit and latexFitEnd wrap every tabular: graphicx's \resizebox
// scales it down to the line's width where it is wider, and leaves it as
// it is otherwise (the tables are laid out to fit an article's text
// width; this is the guarantee for long names and many methods).
const (
	latexFit    = "\\resizebox{\\ifdim\\width>\\linewidth\\linewidth\\else\\width\\fi}{!}{%\n"
	latexFitEnd = "}\n"
)

// writeLaTeXTabular writes a booktabs tabular of column spec spec, its
// header and rows (cells already LaTeX), inside latexFit.
func writeLaTeXTabular(b *strings.Builder, spec string, header []string, rows [][]string) {
	fmt.Fprintf(b, "%s\\begin{tabular}{%s}\n\\toprule\n", latexFit, spec)
	b.WriteString(strings.Join(header, " & ") + " \\\\\n\\midrule\n")
	for _, r := range rows {
		b.WriteString(strings.Join(r, " & ") + " \\\\\n")
	}
	b.WriteString("\\bottomrule\n\\end{tabular}%\n" + latexFitEnd)
}

// latexHeaderCell is the header h of a column whose widest cell has widest
// characters and whose alignment is align ('l' or 'r'): escaped, and stacked
// on two lines, split at the space nearest its middle, when it is wider
// than the cells below it, so that "average rank" does not widen a column
// of "3.600".
func latexHeaderCell(h string, widest int, align byte) string {
	n := utf8.RuneCountInString(h)
	if n <= widest+4 || !strings.Contains(h, " ") {
		return latexEscaper.Replace(h)
	}
	best, bestD := -1, n
	for i, r := range h {
		if r == ' ' {
			if d := abs(utf8.RuneCountInString(h[:i]) - n/2); d < bestD {
				best, bestD = i, d
			}
		}
	}
	return fmt.Sprintf("\\begin{tabular}[b]{@{}%c@{}}%s\\\\%s\\end{tabular}", align, latexEscaper.Replace(h[:best]), latexEscaper.Replace(h[best+1:]))
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// markdownLine escapes what would make a line of text a markdown list item
// or heading ("* best ..." is a list), so that notes stay plain paragraphs.
func markdownLine(s string) string {
	switch {
	case strings.HasPrefix(s, "* "), strings.HasPrefix(s, "- "), strings.HasPrefix(s, "+ "), strings.HasPrefix(s, "#"):
		return `\` + s
	}
	if i := strings.IndexAny(s, ".)"); i > 0 && strings.Trim(s[:i], "0123456789") == "" && strings.HasPrefix(s[i+1:], " ") {
		return s[:i] + `\` + s[i:] // "1. x" is an ordered list
	}
	return s
}

func renderText(w io.Writer, t *Table, markdown bool) error {
	for _, p := range t.Preface {
		line := p + "\n"
		if markdown {
			line = markdownLine(p) + "\n\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	if t.Title != "" {
		title := t.Title
		if markdown {
			title = "**" + t.Title + "**\n"
		}
		if _, err := fmt.Fprintln(w, title); err != nil {
			return err
		}
	}
	al := columnAligns(t)
	opts := []tablewriter.Option{
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignmentConfig(tw.CellAlignment{PerColumn: al}),
		tablewriter.WithRowAlignmentConfig(tw.CellAlignment{PerColumn: al}),
		tablewriter.WithRowAutoWrap(tw.WrapNone),
		tablewriter.WithHeaderAutoWrap(tw.WrapNone),
	}
	if markdown {
		opts = append(opts, tablewriter.WithRenderer(renderer.NewMarkdown()))
	}
	// The table renderer drops its writer's errors (a full disk, a closed
	// pipe): it renders into memory, and the one write of the whole table
	// is checked.
	var buf bytes.Buffer
	tb := tablewriter.NewTable(&buf, opts...)
	tb.Header(t.Header)
	if len(t.Rows) > 0 {
		if err := tb.Bulk(t.Rows); err != nil {
			return fmt.Errorf("render: %w", err)
		}
	}
	if err := tb.Render(); err != nil {
		return fmt.Errorf("render: %w", err)
	}
	if _, err := w.Write(buf.Bytes()); err != nil {
		return err
	}
	for _, n := range t.Notes {
		line := n + "\n"
		if markdown {
			// Each note its own paragraph: consecutive lines would run
			// together into one.
			line = "\n" + markdownLine(n) + "\n"
		}
		if _, err := io.WriteString(w, line); err != nil {
			return err
		}
	}
	return nil
}

func renderCSV(w io.Writer, t *Table) error {
	cw := csv.NewWriter(w)
	if err := cw.Write(t.Header); err != nil {
		return err
	}
	if err := cw.WriteAll(t.Rows); err != nil { // WriteAll flushes
		return err
	}
	return cw.Error()
}

// latexEscaper escapes LaTeX's special characters in text cells, and
// writes the statistics' symbols in math mode: "χ²_F" is $\chi^2_F$, "q_α"
// $q_\alpha$, "F_F" $F_F$ (the longer symbols come first: a Replacer tries
// its pairs in argument order at each position). Anything else outside
// ASCII that pdflatex's default input encoding does not know is written
// as a command.
var latexEscaper = strings.NewReplacer(
	"χ²_F", `$\chi^2_F$`, "q_α", `$q_\alpha$`, "F_F", `$F_F$`, "α/(k−i)", `$\alpha/(k-i)$`,
	`\`, `\textbackslash{}`, `&`, `\&`, `%`, `\%`, `$`, `\$`, `#`, `\#`,
	`_`, `\_`, `{`, `\{`, `}`, `\}`, `~`, `\textasciitilde{}`, `^`, `\textasciicircum{}`,
	"±", `$\pm$`, "×", `$\times$`, "γ", `$\gamma$`, "σ", `$\sigma$`, "θ", `$\theta$`,
	"‖", `$\|$`, "≤", `$\le$`, "≥", `$\ge$`, "—", `---`,
	"α", `$\alpha$`, "χ²", `$\chi^2$`, "−", `$-$`, "–", `--`, "ρ", `$\rho$`, "λ", `$\lambda$`,
	"š", `\v{s}`, "é", `\'{e}`, "·", `$\cdot$`, "√", `$\surd$`, "≈", `$\approx$`,
)

// latexLabel is "tab:" and the title's words joined by "-", made unique
// among used (a second "heart" is tab:heart-2).
func latexLabel(title string, used map[string]int) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(title) {
		if r < 128 && (r >= 'a' && r <= 'z' || r >= '0' && r <= '9') {
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			b.WriteRune(r)
			dash = false
			continue
		}
		dash = true
	}
	label := "tab:" + b.String()
	if len(label) > 60 {
		label = strings.TrimRight(label[:60], "-")
	}
	used[label]++
	if n := used[label]; n > 1 {
		label += "-" + strconv.Itoa(n)
	}
	return label
}

// renderLaTeX writes t as a table environment: its title as the caption
// with a label from it (unique among used), a booktabs tabular, the preface
// and the notes as % comments before and after. It compiles as it is in a
// document that loads booktabs.
func renderLaTeX(w io.Writer, t *Table, used map[string]int) error {
	var b strings.Builder
	for _, p := range t.Preface {
		fmt.Fprintf(&b, "%% %s\n", p)
	}
	al := columnAligns(t)
	esc := func(cells []string, cols []int) []string {
		out := make([]string, len(cols))
		for k, j := range cols {
			out[k] = latexEscaper.Replace(cells[j])
		}
		return out
	}
	b.WriteString("\\begin{table}[htbp]\n\\centering\n")
	if t.Title != "" {
		fmt.Fprintf(&b, "\\caption{%s}\n\\label{%s}\n", latexEscaper.Replace(t.Title), latexLabel(cmp.Or(t.Label, t.Title), used))
	}
	panels := t.LaTeXPanels
	if panels == nil {
		all := make([]int, len(t.Header))
		for j := range all {
			all[j] = j
		}
		panels = [][]int{all}
	}
	for i, cols := range panels {
		if i > 0 {
			b.WriteString("\\par\\medskip\n")
		}
		spec := make([]byte, len(cols))
		for k, j := range cols {
			spec[k] = 'l'
			if al[j] == tw.AlignRight {
				spec[k] = 'r'
			}
		}
		rows := make([][]string, len(t.Rows))
		for r, cells := range t.Rows {
			rows[r] = esc(cells, cols)
		}
		header := make([]string, len(cols))
		for k, j := range cols {
			widest := 0
			for _, r := range t.Rows {
				widest = max(widest, utf8.RuneCountInString(r[j]))
			}
			header[k] = latexHeaderCell(t.Header[j], widest, spec[k])
		}
		writeLaTeXTabular(&b, string(spec), header, rows)
	}
	b.WriteString("\\end{table}\n")
	for _, n := range t.Notes {
		fmt.Fprintf(&b, "%% %s\n", n)
	}
	_, err := io.WriteString(w, b.String())
	return err
}
