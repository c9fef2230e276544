package cmd

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

type reportOptions struct {
	*globalOptions
	summaryOptions
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
and a job recorded twice counts once.`,
		Example: `  kerneltune report results.jsonl
  kerneltune report shard-*.jsonl --format latex`,
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
			return runReport(o, args)
		},
	}
	o.summaryOptions.addFlags(c.Flags())
	return c
}

func runReport(o *reportOptions, files []string) error {
	var (
		sets    [][]experiment.Record
		run, by string // the first record's run and its file
	)
	for _, f := range files {
		rs, err := experiment.ReadRecordsFile(f)
		if err != nil {
			return err
		}
		for _, r := range rs {
			if run == "" {
				run, by = r.Run, f
			} else if r.Run != run {
				return fmt.Errorf("report: %s holds records of another run than %s (settings fingerprint %s, not %s): merge only the shards of one run", f, by, r.Run, run)
			}
		}
		sets = append(sets, rs)
	}
	all, err := experiment.Merge(sets...)
	if err != nil {
		return err
	}
	if len(all) == 0 {
		return fmt.Errorf("report: %s: no result records (write them with 'kerneltune compare --out FILE')", strings.Join(files, ", "))
	}
	order := experiment.EntryOrder(all, methods.Names())
	lookedAtTest := false
	for _, r := range all {
		lookedAtTest = lookedAtTest || strings.Contains(r.Extra["select"], "laanaya")
	}
	return o.summaryOptions.write(o.globalOptions, all, order, lookedAtTest)
}
