package cmd

import (
	"context"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/report"
)

type infoOptions struct {
	*globalOptions
	data         dataOptions
	Format       string
	FeatureStats bool
}

func init() { subcommands = append(subcommands, newInfoCmd) }

func newInfoCmd(g *globalOptions) *cobra.Command {
	o := &infoOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:     "info [DATA ...]",
		Short:   "Describe data sets: size, classes, label mapping, duplicates, constant features",
		Long:    help("info") + dataHelp,
		Example: help("info-examples"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := checkFormat(o.Format, formatTable, formatJSON, formatMarkdown); err != nil {
				return err
			}
			if err := o.data.check(); err != nil {
				return err
			}
			return runInfo(cmd.Context(), o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Format, "format", formatTable, "output: table, markdown or json")
	f.BoolVar(&o.FeatureStats, "feature-stats", false, "also print min, max, mean and std of every feature")
	o.data.addReadFlags(f)
	return c
}

// runInfo describes each data set; a set that cannot be read is reported on
// stderr and the others are still described (exit code 1 at the end).
func runInfo(ctx context.Context, o *infoOptions, args []string) error {
	if len(args) == 0 {
		return infoListBuiltins(o)
	}
	ds, err := dataio.DescribeFiles(ctx, args, dataio.DescribeSettings{Read: o.data.readOptions(), Stdin: o.data.stdinReader(), FeatureStats: o.FeatureStats})
	if err != nil {
		return err
	}
	sums, errs := ds.Summaries, ds.Errors
	for i, err := range errs {
		errs[i] = flagHint(err)
	}
	err = report.WriteInfo(o.Out, o.Format, sums, report.InfoSettings{FeatureStats: o.FeatureStats, List: len(args) > 1, Spell: flagSpell})
	if err != nil {
		return err
	}
	switch {
	case len(errs) == 1 && len(args) == 1:
		return errs[0]
	case len(errs) > 0:
		for _, e := range errs {
			fmt.Fprintf(o.ErrOut, "kerneltune: %v\n", e)
		}
		return fmt.Errorf("%d of %d data sets could not be read", len(errs), len(args))
	}
	return nil
}

func infoListBuiltins(o *infoOptions) error {
	bs := dataio.Builtins()
	if o.Format == formatJSON {
		return renderJSON(o.Out, bs)
	}
	return renderTables(o.Out, o.Format, report.BuiltinsTable(bs))
}
