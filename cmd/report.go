package cmd

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/report"
)

type reportOptions struct {
	*globalOptions
	summaryOptions
	AllowPartial bool
}

func init() { subcommands = append(subcommands, newReportCmd) }

func newReportCmd(g *globalOptions) *cobra.Command {
	o := &reportOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "report FILE...",
		Short: "Re-render compare's tables from results files (merge shards)",
		Long: `report reads one or more results files written by 'compare --out' and prints
the same averaged tables compare prints, and the statistics across datasets
(average ranks, Friedman, Nemenyi, Holm; see 'kerneltune compare --help'). Give it the files of every shard of a
sharded run ('compare --shard i/N --out shard-i.jsonl') to merge them: the
records must come from the same settings (the run fingerprint in each record),
and a job recorded twice counts once.

Every record carries the run's planned grid (datasets with their partitions,
methods), so report knows what is missing: the first line then says "N of M
jobs present", every incomplete dataset is marked (one without any record
too), every row has its runs, failures and missing partitions, and the exit
code is 1. --allow-partial accepts an incomplete set: exit 0, with the
warning on stderr and in the output (a "warning" and "complete": false in
json, "complete" and "missing" columns in csv). Records written by older
versions have no grid: the partitions and methods are then inferred from the
records, and report says so.

Datasets come in the run's order (the command line's; for older records,
first appearance in the files), methods in --methods order.

` + summaryFormatHelp,
		Example: `  kerneltune report results.jsonl
  kerneltune report shard-*.jsonl --format latex
  kerneltune report shard-1.jsonl shard-2.jsonl --allow-partial --format csv   # a shard still running`,
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
			o.summaryOptions.setCommand(cmd, args)
			return runReport(cmd.Context(), o, args)
		},
	}
	o.summaryOptions.addFlags(c.Flags())
	c.Flags().BoolVar(&o.AllowPartial, "allow-partial", false, "accept records that lack some of the run's jobs (exit 0 with a warning, not 1)")
	return c
}

func runReport(ctx context.Context, o *reportOptions, files []string) error {
	res, err := experiment.MergeFiles(ctx, experiment.MergeSettings{Files: files})
	var other *experiment.OtherFileRunError
	switch {
	case errors.As(err, &other):
		return fmt.Errorf("report: %s holds records of another run than %s (settings fingerprint %s, not %s): merge only the shards of one run", other.File, other.First, other.Run, other.FirstRun)
	case errors.Is(err, experiment.ErrNoRecords):
		return fmt.Errorf("report: %s: no result records (write them with 'kerneltune compare --out FILE')", strings.Join(files, ", "))
	case err != nil:
		return err
	}
	sum := res.Summary
	if err := o.summaryOptions.write(o.globalOptions, sum, res.Records); err != nil {
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
