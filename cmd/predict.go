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

	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
)

type predictOptions struct {
	*globalOptions
	data dataOptions

	Output   string
	Format   string
	NoLabels bool
	PerPoint bool
	// Features is --features: "" (DATA must have the model's features),
	// "pad", "truncate", or a number N (read a LIBSVM file as N features;
	// N must be the model's).
	Features string
}

func init() { subcommands = append(subcommands, newPredictCmd) }

func newPredictCmd(g *globalOptions) *cobra.Command {
	o := &predictOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "predict MODEL DATA",
		Short: "Apply a saved model to data: decision values, labels, accuracy",
		Long: `predict applies a model saved by 'kerneltune train -o' or 'kerneltune tune -o'
to the rows of DATA. For each row it computes the decision value
f(x) = Σ_i y_iα_i k(sv_i, x) + b (LIBSVM's decision value; the bias b is -ρ)
and the predicted class, in the original label text (+1 iff f(x) > 0).

On labelled DATA it prints the summary first, as svm-predict does: the rows,
the correct ones and the accuracy, and the confusion matrix (label against
prediction, with the count of each class). Without labels the summary is the
number of rows predicted in each class. The per-row predictions (decision
value, predicted label, the row's own label) follow only with --per-point,
or in the machine-readable formats.

DATA goes through the model's own normaliser (fitted on the model's training
part), so give it raw, in the same features and units as the training data.
Its labels are read with the model's label mapping: a label the model does not
know is an error, and a file with only one of the two classes is fine.

DATA must have the model's number of features; another number is an error
that names both, unless --features says what to do:
  --features pad       read missing features (the last ones) as 0; for a
                       LIBSVM file that never mentions its last features this
                       is what svm-predict does (absent means 0)
  --features truncate  drop the features beyond the model's
  --features N         read a LIBSVM file as N features (N = the model's)
Both pad and truncate say in a note what they did. Values are raw, before the
model's normaliser: a padded 0 is a raw 0.

DATA without labels (new points to score) is fine: then there is no accuracy,
and the predictions are in --per-point or --format labels|csv|json. It is recognised on
its own, with a note: a CSV file with exactly as many columns as the model has
features has no label column (one column more: the last, or --label-col, is
the label), and a LIBSVM file whose lines start with idx:val has no labels.
--no-labels says so whatever the file looks like.

Output (--format):
  table   the summary; with --per-point then the rows, each error marked (default)
  csv     row,decision,predicted,label with full-precision decision values
          (row,decision,predicted without labels)
  json    everything, with the model's kernel, margin, C, #SV and provenance
  labels  one predicted label per line, like svm-predict's output file
With -o FILE the rows go to FILE and the summary to standard output; with csv
or labels on standard output the summary goes to standard error, first
(-q silences it).

` + dataHelp,
		Example: `  kerneltune train builtin:heart -o heart.json
  kerneltune predict heart.json builtin:heart
  kerneltune predict heart.json builtin:heart --per-point
  kerneltune predict a1a.json a1a.t --features pad
  kerneltune predict model.json test.csv --format csv -o predictions.csv
  kerneltune predict model.json heart_scale.t --format labels > labels.txt
  kerneltune predict model.json new_points.csv --no-labels --format labels
  cat new_points.csv | kerneltune predict model.json - --header no`,
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
	f.BoolVar(&o.PerPoint, "per-point", false, "table: print every row's prediction after the summary")
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
		raw, err := io.ReadAll(in)
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
		Features: o.Features, NoLabels: o.NoLabels, Data: dataPath, ModelFile: modelPath,
	})
	if err != nil {
		return err
	}
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
