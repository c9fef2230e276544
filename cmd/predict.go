package cmd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// formatLabels is predict's svm-predict-style output: one predicted label per
// line.
const formatLabels = "labels"

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

// --features values of predict.
const (
	featuresPad      = "pad"
	featuresTruncate = "truncate"
)

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
	if err := checkFormat(o.Format, formatTable, formatCSV, formatJSON, formatLabels); err != nil {
		return err
	}
	if fs.Changed("positive") {
		return usageErrorf("--positive: the model fixes the label mapping; predict reads DATA with it")
	}
	if o.NoLabels && o.data.LabelCol != "" {
		return usageErrorf("--label-col %s: DATA read with --no-labels has no label column", o.data.LabelCol)
	}
	switch o.Features {
	case "", featuresPad, featuresTruncate:
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

// prediction is one row of predict's output.
type prediction struct {
	Row       int     `json:"row"` // 1-based
	Decision  float64 `json:"decision"`
	Predicted string  `json:"predicted"`
	Label     string  `json:"label,omitempty"` // the row's own label; "" without labels
}

// Scores compare the predictions with the labels of DATA; predictResult
// embeds a nil *Scores for data without labels, so JSON then has none of
// these keys.
type Scores struct {
	Accuracy float64 `json:"accuracy"`
	Correct  int     `json:"correct"`
	// Confusion counts: TruePos = label +1 predicted +1, FalseNeg = label +1
	// predicted -1, and so on.
	model.Confusion
}

// predictResult is predict's whole output.
type predictResult struct {
	Model string `json:"model"`
	// The model's description.
	Kernel     kernel.Spec      `json:"kernel"`
	Margin     string           `json:"margin"`
	C          float64          `json:"C,omitempty"`
	NSV        int              `json:"n_sv"`
	Normalize  string           `json:"normalize"`
	Provenance model.Provenance `json:"provenance"`

	Data   string          `json:"data"`
	N      int             `json:"n"`
	Labels dataio.LabelMap `json:"labels"` // the model's
	// Labeled says whether DATA has labels; Scores is nil when not.
	Labeled bool `json:"labeled"`
	*Scores
	// PredictedPos and PredictedNeg count the rows predicted +1 and -1.
	PredictedPos int          `json:"predicted_pos"`
	PredictedNeg int          `json:"predicted_neg"`
	Notes        []string     `json:"notes,omitempty"`
	Predictions  []prediction `json:"predictions"`
}

func runPredict(ctx context.Context, o *predictOptions, modelPath, dataPath string) error {
	m, err := model.LoadFile(modelPath)
	if err != nil {
		return err
	}
	if o.data.Features > 0 && o.data.Features != m.NumFeatures {
		return usageErrorf("--features %d: the model %s has %d features", o.data.Features, modelPath, m.NumFeatures)
	}
	d, notes, err := o.loadData(m, dataPath)
	if err != nil {
		return err
	}
	if d.Dim() != m.NumFeatures {
		var note string
		d, note, err = o.fitWidth(d, m.NumFeatures, dataPath, modelPath)
		if err != nil {
			return err
		}
		notes = append(notes, note)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	f := m.Decision(d.X)
	r := &predictResult{
		Model: modelPath, Kernel: m.Kernel, Margin: m.MarginKind.String(), C: m.C, NSV: m.NSV(),
		Normalize: "none", Provenance: m.Provenance,
		Data: dataPath, N: d.Len(), Labels: m.Labels, Labeled: d.Labeled(),
	}
	if m.Normalizer != nil {
		r.Normalize = m.Normalizer.Kind
	}
	r.Predictions = make([]prediction, d.Len())
	for i, v := range f {
		pos := v > 0
		if pos {
			r.PredictedPos++
		} else {
			r.PredictedNeg++
		}
		r.Predictions[i] = prediction{Row: i + 1, Decision: v, Predicted: m.Label(model.Classes(f[i : i+1])[0])}
		if r.Labeled {
			r.Predictions[i].Label = m.Label(d.Y[i])
		}
	}
	if r.Labeled {
		c := model.ConfusionOf(f, d.Y)
		// Accuracy 0, not NaN (which JSON cannot hold), for no rows.
		r.Scores = &Scores{Confusion: c, Correct: c.Correct(), Accuracy: float64(c.Correct()) / float64(max(r.N, 1))}
	}
	r.Notes = notes
	if j := dataio.FeatureNameMismatch(m.FeatureNames, d.FeatureNames); j >= 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("note: feature %d is %q in the data but %q in the model: are the columns in the same order?",
			j+1, d.FeatureNames[j], m.FeatureNames[j]))
	}

	if !o.PerPoint && o.Format == formatTable && o.Output == "" {
		r.Notes = append(r.Notes, "per-row predictions: --per-point, or --format labels|csv|json")
	}

	// The summary first: on stdout, unless stdout holds machine-readable
	// rows (then on stderr, unless -q); JSON holds it.
	sum := summaryTables(r)
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
	switch o.Format {
	case formatJSON:
		err = renderJSON(rowsOut, r)
	case formatLabels:
		err = writeLabels(rowsOut, r)
	case formatCSV:
		err = renderTables(rowsOut, formatCSV, predictionsTable(r, true))
	default:
		err = renderTables(rowsOut, formatTable, predictionsTable(r, false))
	}
	if err != nil {
		return fmt.Errorf("predict: writing predictions: %w", err)
	}
	if file != nil {
		if err := file.Close(); err != nil {
			return fmt.Errorf("predict: %w", err)
		}
	}
	return nil
}

// fitWidth handles DATA whose number of features d.Dim() is not the
// model's, width: with --features pad (fewer) it appends zero features,
// with --features truncate (more) it drops the last ones, and says so in
// the note; otherwise it returns an error that names both numbers and the
// flag.
func (o *predictOptions) fitWidth(d *dataio.Dataset, width int, dataPath, modelPath string) (*dataio.Dataset, string, error) {
	have := d.Dim()
	name := dataPath
	if dataPath == "-" {
		name = "standard input"
	}
	switch {
	case have < width && o.Features == featuresPad:
		return resizeFeatures(d, width), fmt.Sprintf("note: %s has %d features, the model %d: features %d-%d are read as 0 (--features pad)",
			name, have, width, have+1, width), nil
	case have > width && o.Features == featuresTruncate:
		return resizeFeatures(d, width), fmt.Sprintf("note: %s has %d features, the model %d: features %d-%d are dropped (--features truncate)",
			name, have, width, width+1, have), nil
	}
	var hint string
	switch {
	case have < width && d.Format == "libsvm":
		hint = fmt.Sprintf(" (a LIBSVM file need not mention its last features: if features %d-%d are 0 in every row, give --features pad)", have+1, width)
	case have < width:
		hint = widthHint(d, width, o.NoLabels) + "; --features pad reads the missing features as 0"
	default:
		hint = widthHint(d, width, o.NoLabels) + fmt.Sprintf("; --features truncate drops features %d-%d", width+1, have)
	}
	return nil, "", fmt.Errorf("predict: %s has %d features%s, the model %s was trained on %d%s",
		name, have, readAs(d), modelPath, width, hint)
}

// resizeFeatures returns d with width features: its own, then zeros (or
// only the first width).
func resizeFeatures(d *dataio.Dataset, width int) *dataio.Dataset {
	n, have := d.X.Dims()
	if n == 0 { // the readers refuse empty data; nothing to resize
		return d
	}
	x := mat.NewDense(n, width, nil)
	keep := min(have, width)
	for i := 0; i < n; i++ {
		copy(x.RawRowView(i)[:keep], d.X.RawRowView(i)[:keep])
	}
	c := *d
	c.X = x
	c.FeatureNames = make([]string, width)
	copy(c.FeatureNames, d.FeatureNames)
	for j := keep; j < width; j++ {
		c.FeatureNames[j] = "f" + strconv.Itoa(j+1)
	}
	return &c
}

// loadData reads DATA for model m: with the model's label mapping, or
// without labels (--no-labels, or when the file's width and form say so).
// The notes say what it decided on its own.
func (o *predictOptions) loadData(m *model.Model, path string) (*dataio.Dataset, []string, error) {
	ro := o.data.readOptions()
	ro.Positive = ""
	if o.NoLabels {
		ro.Unlabeled = true
	} else {
		lm := m.Labels
		ro.Labels = &lm
		ro.AutoUnlabeled = m.NumFeatures
	}
	if m.Encoder != nil {
		// Nominal features are read as categories and encoded as in training.
		ro.Categorical = "codes"
		ro.AutoUnlabeled = min(ro.AutoUnlabeled, m.Encoder.InputFeatures)
	}
	load := func(ro dataio.ReadOptions) (*dataio.Dataset, error) { return dataio.Load(path, ro) }
	if path == "-" {
		// Standard input can be read once: keep it for a second parse.
		in := o.In
		if in == nil {
			in = os.Stdin
		}
		raw, err := io.ReadAll(in)
		if err != nil {
			return nil, nil, fmt.Errorf("predict: read standard input: %w", err)
		}
		load = func(ro dataio.ReadOptions) (*dataio.Dataset, error) {
			return dataio.LoadReader(bytes.NewReader(raw), "stdin", ro)
		}
	}
	d, err := load(ro)
	err = flagHint(err)
	if errors.Is(err, dataio.ErrUnknownLabel) {
		return nil, nil, fmt.Errorf("%w (data without labels need exactly %d columns, one per feature of the model, or --no-labels)", err, m.NumFeatures)
	}
	if err != nil {
		return nil, nil, err
	}
	if err := o.data.checkLabelCol(d); err != nil {
		return nil, nil, err
	}
	if m.Encoder != nil {
		if d, err = m.Encoder.Apply(d); err != nil {
			return nil, nil, err
		}
	}
	var notes []string
	if !d.Labeled() && !o.NoLabels {
		name := path
		if path == "-" {
			name = "standard input"
		}
		if d.Format == "libsvm" {
			notes = append(notes, fmt.Sprintf("note: %s has no labels (its lines start with index:value): predictions only", name))
		} else {
			notes = append(notes, fmt.Sprintf("note: %s has no labels: its %d columns are the model's %d features (if one is a label, name it with --label-col)", name, d.Dim(), m.NumFeatures))
		}
	}
	return d, notes, nil
}

// readAs qualifies a number of features read without labels.
func readAs(d *dataio.Dataset) string {
	if d.Labeled() {
		return ""
	}
	return " (read without labels)"
}

// widthHint explains a CSV file's width that fits the model neither with nor
// without a label column.
func widthHint(d *dataio.Dataset, features int, forced bool) string {
	switch {
	case d.Format != "csv":
		return ""
	case forced:
		return fmt.Sprintf(": with --no-labels every column is a feature, so DATA needs %d columns", features)
	}
	return fmt.Sprintf(": DATA needs %d columns, or %d with a label column", features, features+1)
}

func writeLabels(w io.Writer, r *predictResult) error {
	var b strings.Builder
	for _, p := range r.Predictions {
		b.WriteString(p.Predicted)
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// predictionsTable lists the rows; full gives decision values with every
// digit (csv), otherwise 6 significant digits.
func predictionsTable(r *predictResult, full bool) *table {
	t := &table{Header: []string{"row", "decision", "predicted"}}
	if r.Labeled {
		t.Header = append(t.Header, "label")
		if !full {
			t.Header = append(t.Header, "")
		}
	}
	t.Rows = make([][]string, len(r.Predictions))
	for i, p := range r.Predictions {
		dv := fmtSig(p.Decision, 6)
		if full {
			dv = strconv.FormatFloat(p.Decision, 'g', -1, 64)
		}
		row := []string{strconv.Itoa(p.Row), dv, p.Predicted}
		if r.Labeled {
			row = append(row, p.Label)
		}
		if r.Labeled && !full {
			mark := ""
			if p.Predicted != p.Label {
				mark = "wrong"
			}
			row = append(row, mark)
		}
		t.Rows[i] = row
	}
	return t
}

// summaryTables gives the accuracy and the confusion counts, or for data
// without labels the number of rows predicted in each class.
func summaryTables(r *predictResult) []*table {
	if !r.Labeled {
		return []*table{{
			Title: fmt.Sprintf("predict %s with %s (no labels, so no accuracy)", r.Data, r.Model),
			Header: []string{"rows",
				fmt.Sprintf("predicted %q (+1)", r.Labels.Positive), fmt.Sprintf("predicted %q (-1)", r.Labels.Negative)},
			Rows:  [][]string{{strconv.Itoa(r.N), strconv.Itoa(r.PredictedPos), strconv.Itoa(r.PredictedNeg)}},
			Notes: r.Notes,
		}}
	}
	acc := &table{
		Title:  fmt.Sprintf("predict %s with %s", r.Data, r.Model),
		Header: []string{"rows", "correct", "accuracy"},
		Rows:   [][]string{{strconv.Itoa(r.N), strconv.Itoa(r.Correct), fmtFixed(100*r.Accuracy, 2) + "%"}},
	}
	pos, neg := fmt.Sprintf("%q (+1)", r.Labels.Positive), fmt.Sprintf("%q (-1)", r.Labels.Negative)
	conf := &table{
		Header: []string{"label \\ predicted", pos, neg, "rows"},
		Rows: [][]string{
			{pos, strconv.Itoa(r.TruePos), strconv.Itoa(r.FalseNeg), strconv.Itoa(r.TruePos + r.FalseNeg)},
			{neg, strconv.Itoa(r.FalsePos), strconv.Itoa(r.TrueNeg), strconv.Itoa(r.FalsePos + r.TrueNeg)},
			{"rows", strconv.Itoa(r.TruePos + r.FalsePos), strconv.Itoa(r.FalseNeg + r.TrueNeg), strconv.Itoa(r.N)},
		},
		Notes: r.Notes,
	}
	return []*table{acc, conf}
}
