package cmd

// The averaged tables compare and report print, in every output format,
// from one experiment.Summary.

import (
	"encoding/csv"
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// summaryOptions are the output flags of compare and report, which print
// the same tables and figures.
type summaryOptions struct {
	Format   string
	Plot     string
	PlotAs   string
	PlotSort bool
	HTML     string // --html: write the run as one self-contained page
	command  string // the command line, for the page's header
}

// summaryFormatHelp explains the formats in compare's and report's --help.
const summaryFormatHelp = `Output (--format): table (the default), markdown, latex, csv or json. csv is
one table with a row per (dataset, method) and one number per column (no ±,
no —, no *: "best" and "complete" are true/false, a missing number is an
empty cell; accuracies are fractions); its columns are json's keys (method is
json's entry). latex is a booktabs tabular: it needs \usepackage{booktabs} in
the preamble.`

func (o *summaryOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Format, "format", formatTable, "output: table, markdown, csv, json or latex (latex needs \\usepackage{booktabs})")
	f.StringVar(&o.Plot, "plot", "", "write figures into this directory (accuracy box plots, critical-difference diagram, criterion traces, per-feature weights, full-Q heat maps)")
	f.StringVar(&o.PlotAs, "plot-format", "svg", "figure format: svg, png or pdf")
	f.StringVar(&o.HTML, "html", "", "also write the run as one self-contained HTML page (tables, statistics, figures, failures; no network needed to view it)")
	f.BoolVar(&o.PlotSort, "plot-sort", false, "list features in the per-feature weight charts largest weight first, not in data order")
}

// check returns a usage error (exit code 2) for a --format or a
// --plot-format compare and report cannot write, before any work is done.
func (o *summaryOptions) check() error {
	if err := checkFormat(o.Format, formatTable, formatMarkdown, formatCSV, formatJSON, formatLaTeX); err != nil {
		return err
	}
	if o.PlotAs != "svg" && o.PlotAs != "png" && o.PlotAs != "pdf" {
		return usageErrorf("--plot-format: want svg, png or pdf, got %q", o.PlotAs)
	}
	return checkHTMLPath(o.HTML)
}

// setCommand records the command line for the HTML page's header: the
// command, its arguments and the flags given, in a form that can be pasted.
func (o *summaryOptions) setCommand(c *cobra.Command, args []string) {
	parts := append([]string{c.CommandPath()}, args...)
	c.Flags().Visit(func(f *pflag.Flag) {
		if f.Value.Type() == "bool" {
			parts = append(parts, "--"+f.Name)
			return
		}
		parts = append(parts, "--"+f.Name, shellQuote(f.Value.String()))
	})
	o.command = strings.Join(parts, " ")
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.IndexFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:,@=+", r))
	}) < 0 {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// write prints the averaged tables of sum and, with --plot, writes the
// figures of recs.
func (o *summaryOptions) write(g *globalOptions, sum experiment.Summary, recs []experiment.Record) error {
	if err := writeSummary(g, o.Format, sum, recs); err != nil {
		return err
	}
	if o.Plot != "" {
		var order []string // the tables' row order (--methods order)
		if len(sum.Tables) > 0 {
			for _, r := range sum.Tables[0].Rows {
				order = append(order, r.Entry)
			}
		}
		if _, err := experiment.WritePlotsWith(o.Plot, recs, order, experiment.PlotOptions{Format: o.PlotAs, SortWeights: o.PlotSort}); err != nil {
			return err
		}
	}
	if o.HTML != "" {
		return o.writeHTMLReport(g, sum, recs)
	}
	return nil
}

// summaryJSON is compare's and report's JSON: the summary, and the
// statistics across datasets when there are any.
type summaryJSON struct {
	experiment.Summary
	Cross *experiment.CrossData `json:"across_datasets,omitempty"`
}

// writeSummary renders the averaged tables of a summary of recs, followed
// (but in csv) by the statistics across datasets (crosstable.go).
func writeSummary(g *globalOptions, format string, sum experiment.Summary, recs []experiment.Record) error {
	if format == formatCSV {
		return renderSummaryCSV(g, sum)
	}
	cross := crossDataset(g, sum.Tables)
	if format == formatJSON {
		return renderJSON(g.Out, summaryJSON{sum, cross})
	}
	var ts []*table
	for i := range sum.Tables {
		ts = append(ts, summaryTable(&sum.Tables[i], recs, sum.BaselineOnTest))
	}
	if sum.Warning != "" && len(ts) > 0 {
		// Above everything, where nobody pastes a table without seeing it.
		prefix := "WARNING: "
		if sum.Complete {
			prefix = "note: " // only the grid is unknown
		}
		ts[0].Preface = append(ts[0].Preface, prefix+sum.Warning)
	}
	ts = append(ts, crossTables(format, cross)...)
	return renderTables(g.Out, format, ts...)
}

// summaryColumn is one column of the CSV form: its name (the JSON key of
// the same number) and its cell, a plain number, true/false or "".
type summaryColumn struct {
	name string
	cell func(t *experiment.Table, r *experiment.Row) string
}

// summaryColumns are compare's and report's CSV columns, one number each. A
// new number in experiment.Row is one more line here.
var summaryColumns = []summaryColumn{
	{"dataset", func(t *experiment.Table, r *experiment.Row) string { return t.Dataset }},
	{"method", func(t *experiment.Table, r *experiment.Row) string { return r.Entry }},
	{"partitions", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Partitions) }},
	{"runs", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Runs) }},
	{"failures", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Failures) }},
	{"missing", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Missing) }},
	{"degenerate", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Degenerate) }},
	{"mean_test_accuracy", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.MeanAcc) }},
	{"std_test_accuracy", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.StdAcc) }},
	{"mean_nsv", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.MeanSV) }},
	{"mean_seconds", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.MeanSecs) }},
	{"mean_svm_solves", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.MeanSolves) }},
	{"baseline", func(t *experiment.Table, r *experiment.Row) string { return t.Baseline }},
	{"p_value", func(t *experiment.Table, r *experiment.Row) string { return csvNumber(r.P) }},
	{"pairs", func(t *experiment.Table, r *experiment.Row) string { return strconv.Itoa(r.Pairs) }},
	{"best", func(t *experiment.Table, r *experiment.Row) string { return strconv.FormatBool(r.Best) }},
	{"complete", func(t *experiment.Table, r *experiment.Row) string { return strconv.FormatBool(t.Complete) }},
}

// csvNumber writes v in full precision, or "" when it is not a number.
func csvNumber(v experiment.Float) string {
	f := float64(v)
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return ""
	}
	return strconv.FormatFloat(f, 'g', -1, 64)
}

// renderSummaryCSV writes one CSV table, a row per (dataset, method), that
// pandas and R load without string parsing. CSV has no place for a warning:
// an incomplete run shows in the complete and missing columns.
func renderSummaryCSV(g *globalOptions, sum experiment.Summary) error {
	cw := csv.NewWriter(g.Out)
	header := make([]string, len(summaryColumns))
	for j, c := range summaryColumns {
		header[j] = c.name
	}
	if err := cw.Write(header); err != nil {
		return err
	}
	for i := range sum.Tables {
		t := &sum.Tables[i]
		for k := range t.Rows {
			cells := make([]string, len(summaryColumns))
			for j, c := range summaryColumns {
				cells[j] = c.cell(t, &t.Rows[k])
			}
			if err := cw.Write(cells); err != nil {
				return err
			}
		}
	}
	cw.Flush()
	return cw.Error()
}

// summaryTable is the human form of one dataset's table (text, markdown,
// latex). It has a "missing" column only when jobs are missing, and a
// "pairs" column only when some p-value rests on fewer pairs than there are
// partitions.
func summaryTable(s *experiment.Table, recs []experiment.Record, lookedAtTest bool) *table {
	title := fmt.Sprintf("%s (%d partition%s)", s.Dataset, s.Partitions, plural(s.Partitions))
	if !s.Complete {
		if s.JobsPresent == 0 {
			title += fmt.Sprintf(" — INCOMPLETE: no records (0 of %d jobs present)", s.JobsPlanned)
		} else {
			title += fmt.Sprintf(" — INCOMPLETE: %d of %d jobs present", s.JobsPresent, s.JobsPlanned)
		}
	}
	showPairs := false
	for _, r := range s.Rows {
		showPairs = showPairs || (r.Entry != s.Baseline && r.Pairs < s.Partitions)
	}
	t := &table{
		Title:  title,
		Header: []string{"method", "test acc. % (mean ± std)", "#SV", "time s", "SVM solves", "runs", "failures", "degenerate"},
	}
	if !s.Complete {
		t.Header = append(t.Header, "missing")
	}
	t.Header = append(t.Header, "p vs "+s.Baseline)
	if showPairs {
		t.Header = append(t.Header, "pairs")
	}
	for _, r := range s.Rows {
		name := r.Entry
		if r.Best {
			name += " *"
		}
		acc := "—"
		if r.Runs > 0 {
			acc = fmt.Sprintf("%.2f ± %s", 100*float64(r.MeanAcc), dash(fmtFixed(100*float64(r.StdAcc), 2)))
		}
		p := "—"
		if !math.IsNaN(float64(r.P)) {
			p = fmtSig(float64(r.P), 3)
		}
		cells := []string{name, acc, dash(fmtFixed(float64(r.MeanSV), 1)), dash(fmtFixed(float64(r.MeanSecs), 2)),
			dash(fmtFixed(float64(r.MeanSolves), 0)), strconv.Itoa(r.Runs), strconv.Itoa(r.Failures), fmt.Sprintf("%d/%d", r.Degenerate, r.Runs)}
		if !s.Complete {
			cells = append(cells, strconv.Itoa(r.Missing))
		}
		cells = append(cells, p)
		if showPairs {
			pairs := "—"
			if r.Entry != s.Baseline {
				pairs = strconv.Itoa(r.Pairs)
			}
			cells = append(cells, pairs)
		}
		t.Add(cells...)
	}
	t.Notes = append(t.Notes, "* best mean test accuracy (ties all marked); runs: partitions finished; p: two-sided paired Wilcoxon signed-rank test against "+s.Baseline+" over the partitions both finished (normal approximation)")
	if n := degenerateNote(*s, recs); n != "" {
		t.Notes = append(t.Notes, n)
	}
	if showPairs {
		t.Notes = append(t.Notes, fmt.Sprintf("pairs: partitions both the method and %s finished, of %d: p rests on these only", s.Baseline, s.Partitions))
	}
	if !s.Complete {
		t.Notes = append(t.Notes, "missing: planned partitions with no record (a shard left out, a run stopped early); means are over the runs present")
	}
	if lookedAtTest {
		t.Notes = append(t.Notes, "WARNING: the baseline's (C, γ) was chosen by the best test rate on the first five partitions (--select laanaya): it looked at test data")
	}
	return t
}

// dash is "—" for fmtFloat's "-" (no number), as the accuracy column.
func dash(s string) string {
	if s == "-" {
		return "—"
	}
	return s
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// summaryWarning is the stderr form of an incomplete summary's warning.
func summaryWarning(sum experiment.Summary) string {
	return "kerneltune: warning: " + strings.TrimSpace(sum.Warning)
}
