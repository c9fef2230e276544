package cmd

// The averaged tables compare and report print, in every output format,
// from one report.Summary.

import (
	"cmp"
	"fmt"
	"path"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// summaryOptions are the output flags of compare and report, which print
// the same tables and figures.
type summaryOptions struct {
	Format   string
	Plot     string
	PlotAs   string
	PlotSort bool
	DPI      int
	HTML     string  // --html: write the run as one self-contained page
	Metric   string  // --metric, parsed by check into metric
	Rope     float64 // --rope: the Bayesian tests' ROPE, in points
	metric   metrics.Metric
	command  string // the command line, for the page's header
	// later is a directory made after the check (compare --slurm's --out):
	// --html into it is not refused for its directory's absence.
	later string
}

// summaryFormatHelp explains the formats in compare's and report's --help.
var summaryFormatHelp = help("summary-format")

func (o *summaryOptions) addFlags(f *pflag.FlagSet) {
	f.StringVar(&o.Format, "format", formatTable, "output: table, markdown, csv, json or latex (latex needs \\usepackage{booktabs} and \\usepackage{graphicx})")
	f.StringVar(&o.Plot, "plot", "", "write figures into this directory (accuracy box plots, critical-difference diagram, criterion traces, per-feature weights, full-Q heat maps)")
	f.StringVar(&o.PlotAs, "plot-format", "svg", "figure format: svg, png or pdf")
	f.IntVar(&o.DPI, "dpi", report.DefaultDPI, "resolution of --plot-format png figures, in dots per inch (300 suits print; 96 the screen)")
	f.StringVar(&o.HTML, "html", "", "also write the run as one self-contained HTML page (tables, statistics, figures, failures; no network needed to view it)")
	f.StringVar(&o.Metric, "metric", "accuracy", "test score of the tables, p-values, ranks and figures: "+strings.Join(metrics.Names(), ", "))
	f.Float64Var(&o.Rope, "rope", report.DefaultRope, "region of practical equivalence of the Bayesian tests, in points of the metric (1 = ±1 percentage point of accuracy): P(worse/equiv/better) against the baseline")
	f.BoolVar(&o.PlotSort, "plot-sort", false, "list features in the per-feature weight charts largest weight first, not in data order")
}

// check returns a usage error (exit code 2) for a --format, --metric,
// --plot-format or --html compare and report cannot write, before any work
// is done.
func (o *summaryOptions) check() error {
	if err := checkFormat(o.Format, formatTable, formatMarkdown, formatCSV, formatJSON, formatLaTeX); err != nil {
		return err
	}
	m, err := metrics.Parse(o.Metric)
	if o.metric = m; err != nil {
		return usageErrorf("--metric: %v", err)
	}
	html := o.HTML
	if o.later != "" && filepath.Clean(filepath.Dir(html)) == filepath.Clean(o.later) {
		html = ""
	}
	if err := cmp.Or(report.CheckPlotOptions(report.PlotOptions{Format: o.PlotAs, DPI: o.DPI}), report.CheckHTMLPath(html), report.CheckRope(o.Rope)); err != nil {
		return usageErrorf("%v", err)
	}
	return nil
}

// outputs adds the files of --html and --plot (the figures, files of the
// --plot-format's extension) to p.
func (o *summaryOptions) outputs(p *outfile.Plan) *outfile.Plan {
	return p.Output("--html", o.HTML).OutputDir("--plot", o.Plot, func(rel string) bool { return !strings.Contains(rel, "/") && path.Ext(rel) == "."+o.PlotAs })
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
		parts = append(parts, "--"+f.Name, buildinfo.ShellQuote(f.Value.String()))
	})
	o.command = strings.Join(parts, " ")
}

// write prints the averaged tables of sum and, with --plot, writes the
// figures of recs.
func (o *summaryOptions) write(g *globalOptions, sum report.Summary, recs []experiment.Record) error {
	if err := report.CheckMetric(recs, o.metric); err != nil {
		return err
	}
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
		if _, err := report.WritePlotsWith(o.Plot, recs, order, report.PlotOptions{Format: o.PlotAs, SortWeights: o.PlotSort, DPI: o.DPI, Metric: o.metric}); err != nil {
			return err
		}
	}
	if o.HTML != "" {
		return o.writeHTMLReport(g, sum, recs)
	}
	return nil
}

// writeSummary renders the averaged tables of a summary of recs in format,
// followed (but in csv) by the statistics across datasets.
func writeSummary(g *globalOptions, format string, sum report.Summary, recs []experiment.Record) error {
	var cross *report.CrossData
	if format != formatCSV {
		cross = crossDataset(g, sum.Tables)
	}
	return report.WriteSummary(g.Out, format, sum, recs, cross)
}

// crossDataset computes the statistics across the datasets of sums, or
// returns nil when there are fewer than two datasets or two methods. When
// too few datasets have results for every method it says so on ErrOut and
// returns nil: the per-dataset tables are still the run's result.
func crossDataset(g *globalOptions, sums []report.DatasetTable) *report.CrossData {
	cd, err := report.CrossDataset(sums)
	if err != nil {
		if !g.Quiet {
			fmt.Fprintf(g.ErrOut, "note: no statistics across datasets: %v\n", err)
		}
		return nil
	}
	return cd
}
