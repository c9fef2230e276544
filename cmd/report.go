package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
)

type reportOptions struct {
	*globalOptions
	summaryOptions
	AllowPartial    bool
	SplitIdentities bool
	PerJob          bool     // --per-job: one row per (dataset, method, partition)
	Datasets        []string // --datasets, --methods: only these datasets' and methods' records
	Methods         []string
}

func init() { subcommands = append(subcommands, newReportCmd) }

func newReportCmd(g *globalOptions) *cobra.Command {
	o := &reportOptions{globalOptions: g}
	c := &cobra.Command{
		Use:     "report FILE|DIR...",
		Short:   "Re-render compare's tables from results files (merge shards)",
		Long:    help("report") + "\n\n" + summaryFormatHelp,
		Example: help("report-examples"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageErrorf("report needs at least one results file")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.summaryOptions.check(); err != nil {
				return err
			}
			if err := report.CheckPerJob(o.PerJob, o.Format, o.HTML != "" || o.Plot != ""); err != nil {
				return usageErrorf("%v", err)
			}
			o.summaryOptions.setCommand(cmd, args)
			return runReport(cmd.Context(), o, args)
		},
	}
	o.summaryOptions.addFlags(c.Flags())
	c.Flags().BoolVar(&o.AllowPartial, "allow-partial", false, "accept records that lack some of the run's jobs (exit 0 with a warning, not 1)")
	c.Flags().BoolVar(&o.SplitIdentities, "split-identities", false, "report records that give one dataset name to different data (or other reading, partitions, seed or normalisation) as two datasets, NAME and NAME#2, instead of refusing them")
	c.Flags().BoolVar(&o.PerJob, "per-job", false, "print one row per (dataset, method, partition) with every metric and cost (the long table R and pandas read; --format csv) instead of the averaged tables")
	c.Flags().StringSliceVar(&o.Datasets, "datasets", nil, "only these datasets (comma-separated names as the tables print them)")
	c.Flags().StringSliceVar(&o.Methods, "methods", nil, "only these methods (comma-separated: a method name keeps all its entries, e.g. spd keeps spd:diag and spd:full; an entry keeps itself); the baseline is the first of the run's methods kept")
	return c
}

func runReport(ctx context.Context, o *reportOptions, args []string) error {
	files, err := experiment.ResultsFiles(args)
	if err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := checkFiles(o.summaryOptions.outputs(new(outfile.Plan).Input("FILE", files...))); err != nil {
		return err
	}
	res, err := experiment.MergeFiles(ctx, experiment.MergeSettings{Files: files, SplitIdentities: o.SplitIdentities})
	var other *experiment.OtherFileRunError
	switch {
	case errors.As(err, &other):
		return fmt.Errorf("report: %s holds records of another run than %s (settings fingerprint %s, not %s): merge only the shards of one run", other.File, other.First, other.Run, other.FirstRun)
	case errors.Is(err, experiment.ErrNoRecords):
		return fmt.Errorf("report: %s: no result records (write them with 'kerneltune compare --out FILE')", strings.Join(files, ", "))
	case err != nil:
		return err
	}
	for _, r := range res.Renamed {
		fmt.Fprintf(o.ErrOut, "kerneltune: report: %s\n", r)
	}
	if err := report.FilterMerge(res, o.Datasets, o.Methods); err != nil {
		return usageErrorf("%v", err)
	}
	sum := report.Summarize(res.Records, report.SummaryOptions{MethodNames: methods.Names(), Datasets: res.Datasets, Metric: o.metric, Rope: o.Rope})
	if o.PerJob {
		err = report.Render(o.Out, o.Format, report.PerJobTable(sum, res.Records))
	} else {
		err = o.summaryOptions.write(o.globalOptions, sum, res.Records)
	}
	if err != nil {
		return err
	}
	if !sum.Complete && !o.AllowPartial {
		return fmt.Errorf("report: %s\n  the tables above average only the jobs present: add the missing shards' files, finish the run with 'compare --resume', or pass --allow-partial to accept a partial table", sum.Warning)
	}
	if sum.Warning != "" && (!sum.Complete || !o.Quiet) {
		fmt.Fprintln(o.ErrOut, report.SummaryWarning(sum))
	}
	return nil
}
