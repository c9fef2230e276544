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
}

func init() { subcommands = append(subcommands, newPredictCmd) }

func newPredictCmd(g *globalOptions) *cobra.Command {
	o := &predictOptions{globalOptions: g}
	c := &cobra.Command{
		Use:   "predict MODEL DATA",
		Short: "Apply a saved model to data: decision values, labels, accuracy",
		Long: `predict applies a model saved by 'kerneltune train -o' or 'kerneltune tune -o'
to the rows of DATA. For each row it prints the decision value
f(x) = Σ_i y_iα_i k(sv_i, x) + b (LIBSVM's decision value; the bias b is -ρ)
and the predicted class, in the original label text (+1 iff f(x) > 0), next to
the row's own label; then the accuracy and the confusion counts.

DATA goes through the model's own normaliser (fitted on the model's training
part), so give it raw, in the same features and units as the training data.
Its labels are read with the model's label mapping: a label the model does not
know is an error, and a file with only one of the two classes is fine. A LIBSVM
file whose highest feature index is below the model's number of features is
padded with zeros, as svm-predict does (with a note).

DATA without labels (new points to score) is fine: then predict prints the
decision values and predicted labels only, no accuracy. It is recognised on
its own, with a note: a CSV file with exactly as many columns as the model has
features has no label column (one column more: the last, or --label-col, is
the label), and a LIBSVM file whose lines start with idx:val has no labels.
--no-labels says so whatever the file looks like.

Output (--format):
  table   the rows, then the accuracy (default)
  csv     row,decision,predicted,label with full-precision decision values
          (row,decision,predicted without labels)
  json    everything, with the model's kernel, margin, C, #SV and provenance
  labels  one predicted label per line, like svm-predict's output file
With -o FILE the rows go to FILE and the accuracy to standard output; with csv
or labels on standard output the accuracy goes to standard error.

` + dataHelp,
		Example: `  kerneltune train builtin:heart -o heart.json
  kerneltune predict heart.json builtin:heart
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
	o.data.addReadFlags(f)
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
	d, notes, err := o.loadData(m, dataPath)
	if err != nil {
		return err
	}
	if d.Dim() != m.NumFeatures {
		return fmt.Errorf("predict: %s has %d features%s, the model %s was trained on %d%s",
			dataPath, d.Dim(), readAs(d), modelPath, m.NumFeatures, widthHint(d, m.NumFeatures, o.NoLabels))
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

	rowsOut := o.Out
	var file *os.File
	if o.Output != "" {
		file, err = os.Create(o.Output)
		if err != nil {
			return fmt.Errorf("predict: %w", err)
		}
		defer file.Close()
		rowsOut = file
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

	// The summary: on stdout unless stdout holds machine-readable rows.
	switch {
	case o.Output != "" || o.Format == formatTable:
		if o.Format == formatTable && o.Output == "" {
			if _, err := io.WriteString(o.Out, "\n"); err != nil {
				return err
			}
		}
		return renderTables(o.Out, formatTable, summaryTables(r)...)
	case o.Format == formatJSON:
		return nil
	case !o.Quiet:
		return renderTables(o.ErrOut, formatTable, summaryTables(r)...)
	}
	return nil
}

// loadData reads DATA for model m: with the model's label mapping, or
// without labels (--no-labels, or when the file's width and form say so),
// padding a LIBSVM file that stops short of the model's width. The notes say
// what it decided on its own.
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
	if d.Format == "libsvm" && ro.Features == 0 && d.Dim() < m.NumFeatures {
		// A sparse file need not mention the highest features: pad it to
		// the model's width, as svm-predict does, and say so.
		ro.Features = m.NumFeatures
		short := d.Dim()
		if d, err = load(ro); err != nil {
			return nil, nil, err
		}
		notes = append(notes, fmt.Sprintf("note: the highest feature index in %s is %d, the model has %d features: features %d-%d are read as 0 (as svm-predict does)",
			path, short, m.NumFeatures, short+1, m.NumFeatures))
	}
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
		Header: []string{"label \\ predicted", pos, neg},
		Rows: [][]string{
			{pos, strconv.Itoa(r.TruePos), strconv.Itoa(r.FalseNeg)},
			{neg, strconv.Itoa(r.FalsePos), strconv.Itoa(r.TrueNeg)},
		},
		Notes: r.Notes,
	}
	return []*table{acc, conf}
}
