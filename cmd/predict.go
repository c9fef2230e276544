package cmd

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"strconv"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
)

type predictOptions struct {
	*globalOptions
	data dataOptions

	Output         string
	Format         string
	NoLabels       bool
	PerPoint, Prob bool
	Strict         bool
	// IgnoreChecksum applies an edited model (with a warning).
	IgnoreChecksum bool
	// Features is --features: "" (DATA must have the model's features),
	// "pad", "truncate", or a number N (read a LIBSVM file as N features;
	// N must be the model's).
	Features string
}

func init() { subcommands = append(subcommands, newPredictCmd) }

func newPredictCmd(g *globalOptions) *cobra.Command {
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
			if err := o.validate(cmd.Flags()); err != nil {
				return err
			}
			return runPredict(cmd.Context(), o, args[0], args[1])
		},
	}
	f := c.Flags()
	f.StringVarP(&o.Output, "output", "o", "", "write the per-row predictions to this file")
	f.StringVar(&o.Format, "format", formatTable, "output: table, csv, json or labels")
	f.BoolVar(&o.NoLabels, "no-labels", false, "DATA has no labels, only features (default: detected from the file)")
	f.BoolVar(&o.Strict, "strict", false, "refuse a model that has no checksum (written before them), as well as one whose content does not match it")
	f.BoolVar(&o.IgnoreChecksum, "ignore-checksum", false, "apply a model whose content does not match its checksum (edited after kerneltune wrote it), with a warning; refused without it")
	f.BoolVar(&o.PerPoint, "per-point", false, "table: print every row's prediction after the summary")
	f.BoolVar(&o.Prob, "probability", false, "add each row's class probabilities and the log-loss and Brier score (a model trained with --probability)")
	// The shared read flags, but --features: predict's says what to do with
	// a number of features other than the model's.
	read := pflag.NewFlagSet("read", pflag.ContinueOnError)
	o.data.addReadFlags(read)
	read.VisitAll(func(fl *pflag.Flag) {
		if fl.Name != "features" {
			f.AddFlag(fl)
		}
	})
	f.StringVar(&o.Features, "features", "", "DATA with another number of features than the model: pad (missing ones are 0), truncate (drop the extra ones), or N (read a LIBSVM file as N features)")
	return c
}

func (o *predictOptions) validate(fs *pflag.FlagSet) error {
	if err := checkFormat(o.Format, formatTable, formatCSV, formatJSON, report.FormatLabels); err != nil {
		return err
	}
	if fs.Changed("positive") {
		return usageErrorf("--positive: the model fixes the label mapping; predict reads DATA with it")
	}
	if o.NoLabels && o.data.LabelCol != "" {
		return usageErrorf("--label-col %s: DATA read with --no-labels has no label column", o.data.LabelCol)
	}
	switch o.Features {
	case "", model.FeaturesPad, model.FeaturesTruncate:
	default:
		n, err := strconv.Atoi(o.Features)
		if err != nil || n < 1 {
			return usageErrorf("--features: want pad, truncate or a number of features ≥ 1, got %q", o.Features)
		}
		o.data.Features = n
	}
	if o.PerPoint && o.Format != formatTable {
		return usageErrorf("--per-point is for --format table: --format %s always has one line per row", o.Format)
	}
	return o.data.check()
}

func runPredict(ctx context.Context, o *predictOptions, modelPath, dataPath string) error {
	m, err := model.LoadFile(modelPath)
	if err != nil {
		return err
	}
	// An edited model is refused unless --ignore-checksum, -q or not.
	if warn, err := m.CheckChecksum(o.IgnoreChecksum, o.Strict); err != nil {
		return fmt.Errorf("predict: %s: %w", modelPath, err)
	} else if warn != nil && !o.Quiet {
		fmt.Fprintf(o.ErrOut, "kerneltune: warning: %s: %v\n", modelPath, warn)
	}
	if o.data.Features > 0 && o.data.Features != m.NumFeatures {
		return usageErrorf("--features %d: the model %s has %d features", o.data.Features, modelPath, m.NumFeatures)
	}
	var in io.Reader
	if dataPath == "-" {
		// Standard input is read whole first, so that a failure to read it
		// is not taken for bad data.
		if in = o.In; in == nil {
			in = os.Stdin
		}
		raw, err := dataio.ReadAllLimited(in, "standard input", dataio.MaxInputBytes)
		if err != nil {
			return fmt.Errorf("predict: read standard input: %w", err)
		}
		in = bytes.NewReader(raw)
	}
	d, err := model.ReadData(dataPath, in, m, o.data.readOptions(), o.NoLabels)
	if err != nil {
		return flagHint(err)
	}
	if err := o.data.checkLabelCol(d); err != nil {
		return err
	}
	r, err := model.Predict(ctx, m, d, model.PredictSettings{
		Features: o.Features, NoLabels: o.NoLabels, Data: dataPath, ModelFile: modelPath, Probability: o.Prob,
	})
	if err != nil {
		return err
	}
	r.Checksum = m.ChecksumStatus()
	if !o.PerPoint && o.Format == formatTable && o.Output == "" {
		r.Notes = append(r.Notes, "per-row predictions: --per-point, or --format labels|csv|json")
	}

	// The summary first: on stdout, unless stdout holds machine-readable
	// rows (then on stderr, unless -q); JSON holds it.
	sum := report.PredictSummaryTables(r)
	switch {
	case o.Format == formatJSON && o.Output == "":
	case o.Output != "" || o.Format == formatTable:
		if err := renderTables(o.Out, formatTable, sum...); err != nil {
			return err
		}
	case !o.Quiet:
		if err := renderTables(o.ErrOut, formatTable, sum...); err != nil {
			return err
		}
	}
	if o.Format == formatTable && !o.PerPoint && o.Output == "" {
		return nil
	}

	rowsOut := o.Out
	var file *os.File
	if o.Output != "" {
		file, err = os.Create(o.Output)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		defer file.Close()
		rowsOut = file
	} else if o.Format == formatTable {
		if _, err := io.WriteString(o.Out, "\n"); err != nil {
			return err
		}
	}
	if err := report.WritePredictions(rowsOut, o.Format, r); err != nil {
		return fmt.Errorf("predict: writing predictions: %w", err)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	}
	return nil
}
