package cmd

import (
	"bytes"
	"cmp"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

type predictOptions struct {
	*globalOptions
	data dataOptions
	s    predictSettings // the flags that are settings as they are
}

// predictSettings are the complete settings of the run the flags, MODEL
// and DATA describe (predictOptions.settings; nothing read, nothing run):
// runPredict runs them, and flag tests check them whole. Features is
// --features: "", pad, truncate, or N (Read.Features, the model's).
type predictSettings struct {
	model.PredictSettings
	Read                             dataio.ReadOptions
	Strict, IgnoreChecksum, PerPoint bool // refuse a model without a checksum; apply an edited one (a warning); print each row
	Output, Format                   string
	MemMB                            int // --mem-mb: Read.MemBytes, a refusal's words
}

func init() { subcommands = append(subcommands, newPredictCmd) }

func newPredictCmd(g *globalOptions) *cobra.Command { return newPredictCmdWith(g, runPredict) }

// newPredictCmdWith is newTuneCmdWith for predict.
func newPredictCmdWith(g *globalOptions, runF func(context.Context, *globalOptions, predictSettings) error) *cobra.Command {
	o := &predictOptions{globalOptions: g}
	c := &cobra.Command{
		Use:     "predict MODEL DATA",
		Short:   "Apply a saved model to data: decision values, labels, accuracy",
		Long:    help("predict") + dataHelp,
		Example: help("predict-examples"),
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 2 {
				return usageErrorf("predict needs MODEL and DATA, got %d argument(s)", len(args))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := o.settings(cmd.Flags(), args)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), g, s)
		},
	}
	f := c.Flags()
	f.StringVarP(&o.s.Output, "output", "o", "", "write the per-row predictions to this file (\"-\" or /dev/stdout: standard output)")
	f.StringVar(&o.s.Format, "format", formatTable, "output: table, csv, json or labels")
	f.BoolVar(&o.s.NoLabels, "no-labels", false, "DATA has no labels, only features (default: detected from the file)")
	f.BoolVar(&o.s.Strict, "strict", false, "refuse a model that has no checksum (written before them), as well as one whose content does not match it")
	f.BoolVar(&o.s.IgnoreChecksum, "ignore-checksum", false, "apply a model whose content does not match its checksum (edited after kerneltune wrote it), with a warning; refused without it")
	f.BoolVar(&o.s.PerPoint, "per-point", false, "table: print every row's prediction after the summary")
	f.IntVar(&o.s.MemMB, "mem-mb", 0, readMemFlagHelp)
	f.BoolVar(&o.s.Probability, "probability", false, "add each row's class probabilities and the log-loss and Brier score (a model trained with --probability)")
	// The shared read flags, but --features: predict's says what to do with
	// a number of features other than the model's.
	read := pflag.NewFlagSet("read", pflag.ContinueOnError)
	o.data.addReadFlags(read)
	read.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "features" {
			f.AddFlag(fl)
		}
	})
	f.StringVar(&o.s.Features, "features", "", "DATA with another number of features than the model: pad (missing ones are 0), truncate (drop the extra ones), or N (read a LIBSVM file as N features)")
	return c
}

// settings checks the flags alone (usage errors, exit code 2) and builds
// the run's settings from them, MODEL and DATA.
func (o *predictOptions) settings(fs *pflag.FlagSet, args []string) (predictSettings, error) {
	s := o.s
	if err := checkFormat(s.Format, formatTable, formatCSV, formatJSON, report.FormatLabels); err != nil {
		return s, err
	}
	if fs.Changed("positive") {
		return s, usageErrorf("--positive: the model fixes the label mapping; predict reads DATA with it")
	}
	if s.NoLabels && o.data.LabelCol != "" {
		return s, usageErrorf("--label-col %s: DATA read with --no-labels has no label column", o.data.LabelCol)
	}
	switch s.Features {
	case "", model.FeaturesPad, model.FeaturesTruncate:
	default:
		n, err := strconv.Atoi(s.Features)
		if err != nil || n < 1 {
			return s, usageErrorf("--features: want pad, truncate or a number of features ≥ 1, got %q", s.Features)
		}
		o.data.Features = n
	}
	if s.PerPoint && s.Format != formatTable {
		return s, usageErrorf("--per-point is for --format table: --format %s always has one line per row", s.Format)
	}
	if s.Output == "-" || s.Output == "/dev/stdout" { // standard output, as with no -o and every row
		s.Output, s.PerPoint = "", s.PerPoint || s.Format == formatTable
	}
	s.ModelFile, s.Data, s.Read = args[0], args[1], o.data.readOptions()
	s.Read.MemBytes = sysmem.Bound(s.MemMB)
	return s, cmp.Or(checkMemMB(s.MemMB), o.data.check())
}

func runPredict(ctx context.Context, g *globalOptions, s predictSettings) error {
	if err := checkFiles(new(outfile.Plan).Output("-o", s.Output).Input("MODEL", s.ModelFile).Input("DATA", s.Data)); err != nil {
		return err
	}
	m, err := model.LoadFile(s.ModelFile)
	if err != nil {
		return err
	}
	// An edited model is refused unless --ignore-checksum; a missing checksum is said, -q or not.
	if warn, err := m.CheckChecksum(s.IgnoreChecksum, s.Strict); err != nil {
		return fmt.Errorf("predict: %s: %w", s.ModelFile, err)
	} else if warn != nil {
		fmt.Fprintf(g.ErrOut, "kerneltune: warning: %s: %v\n", s.ModelFile, warn)
	}
	if s.Read.Features > 0 && s.Read.Features != m.NumFeatures {
		return usageErrorf("--features %d: the model %s has %d features", s.Read.Features, s.ModelFile, m.NumFeatures)
	}
	defer sysmem.LimitGC(s.MemMB)() // the reading's heap within the bound
	var in io.Reader
	if s.Data == "-" {
		// Standard input is read whole first, so that a failure to read it
		// is not taken for bad data.
		if in = g.In; in == nil {
			in = os.Stdin
		}
		raw, err := dataio.ReadAllLimited(in, "standard input", dataio.MaxInputBytes)
		if err != nil {
			return fmt.Errorf("predict: read standard input: %w", err)
		}
		in = bytes.NewReader(raw)
	}
	d, err := model.ReadData(ctx, s.Data, in, m, s.Read, s.NoLabels)
	if err != nil {
		return readMemoryError(s.MemMB, flagHint(err))
	}
	r, err := model.Predict(ctx, m, d, s.PredictSettings)
	if err != nil {
		return err
	}
	r.Checksum = m.ChecksumStatus()
	if !s.PerPoint && s.Format == formatTable && s.Output == "" {
		r.Notes = append(r.Notes, "per-row predictions: --per-point, or --format labels|csv|json")
	}

	// The summary first: on stdout, unless stdout holds machine-readable
	// rows (then on stderr, unless -q); JSON holds it.
	sum := report.PredictSummaryTables(r)
	switch {
	case s.Format == formatJSON && s.Output == "":
	case s.Output != "" || s.Format == formatTable:
		if err := renderTables(g.Out, formatTable, sum...); err != nil {
			return err
		}
	case !g.Quiet:
		if err := renderTables(g.ErrOut, formatTable, sum...); err != nil {
			return err
		}
	}
	if s.Format == formatTable && !s.PerPoint && s.Output == "" {
		return nil
	}

	write := func(w io.Writer) error { return report.WritePredictions(w, s.Format, r) }
	switch {
	case s.Output != "":
		err = outfile.WriteFile(s.Output, write)
	case s.Format == formatTable:
		if _, err = io.WriteString(g.Out, "\n"); err == nil {
			err = write(g.Out)
		}
	default:
		err = write(g.Out)
	}
	if err != nil {
		return fmt.Errorf("predict: writing predictions: %w", err)
	}
	return nil
}
