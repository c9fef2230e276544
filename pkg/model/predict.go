package model

// Predict: a saved model applied to data, as `kerneltune predict` does.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// What Predict does with data of another number of features than the
// model's (PredictSettings.Features).
const (
	FeaturesPad      = "pad"      // append features read as 0
	FeaturesTruncate = "truncate" // drop the features beyond the model's
)

// ReadData reads the data at path (from r instead when r is not nil, named
// "stdin") for model m: with ro's format options and the model's label
// mapping, or without labels when noLabels or when the file's width and
// form say so (ro's label options are replaced). Nominal features are read
// as category codes when the model has an encoder; Predict encodes them.
// A label the model does not know is an error wrapping
// dataio.ErrUnknownLabel. The data is opened as every command opens its
// data (dataio.OpenDataset, for a single fit: one read, stopped by ctx),
// and its rows as read are returned.
func ReadData(ctx context.Context, path string, r io.Reader, m *Model, ro dataio.ReadOptions, noLabels bool) (*dataio.Dataset, error) {
	ro.Positive = ""
	if noLabels {
		ro.Unlabeled = true
	} else {
		lm := m.Labels
		ro.Labels = &lm
		ro.AutoUnlabeled = m.NumFeatures
		if m.IsMultiClass() {
			ro.Labels, ro.ClassLabels, ro.Classes = nil, m.Classes, nil
		}
	}
	if m.Encoder != nil {
		// Nominal features are read as categories and encoded as in training.
		ro.Categorical = "codes"
		ro.AutoUnlabeled = min(ro.AutoUnlabeled, m.Encoder.InputFeatures)
	}
	p, err := dataio.OpenDataset(ctx, dataio.DatasetSpec{Path: path, Read: ro, Single: true}, 0, r)
	if errors.Is(err, dataio.ErrUnknownLabel) {
		return nil, hint.Errorf(err, err, fmt.Sprintf(" (data without labels need exactly %d columns, one per feature of the model, or ", m.NumFeatures), hint.S("no-labels", ""), ")")
	} else if err != nil {
		return nil, err
	}
	return p.Data, nil
}

// PredictSettings say how Predict treats the data and names things in its
// notes and errors.
type PredictSettings struct {
	// Features is what to do with data of another width than the model's:
	// "" (an error that names both), FeaturesPad or FeaturesTruncate.
	Features string
	// NoLabels says the data was read without labels on purpose (ReadData's
	// noLabels), not because its form said so.
	NoLabels bool
	// Data and ModelFile name the data ("-": standard input) and the model
	// file, as the user did.
	Data, ModelFile string
	// Probability adds each row's class probabilities and, with labels,
	// the log-loss and the Brier score (a model trained with them only:
	// otherwise Predict fails with ErrNoProbability).
	Probability bool
}

// Prediction is one row's prediction.
type Prediction struct {
	Row       int     `json:"row"` // 1-based
	Decision  float64 `json:"decision"`
	Predicted string  `json:"predicted"`
	Label     string  `json:"label,omitempty"` // the row's own label; "" without labels
	// Training is true for a row the model was trained on.
	Training bool `json:"training_row,omitempty"`
	// Votes (one-vs-one multi-class models) are the votes of the predicted
	// class, PairDecisions every binary SVM's decision value, in
	// Model.Subproblems' order, and Decision is 0. One-vs-rest, Votes is 0
	// and Decision the predicted class's (the largest) decision value.
	Votes         int       `json:"votes,omitempty"`
	PairDecisions []float64 `json:"pair_decisions,omitempty"`
	// Probabilities (PredictSettings.Probability) are the row's class
	// probabilities, in Predictions.ProbabilityClasses' order. The
	// predicted class stays the decision function's (LIBSVM's svm-predict
	// -b 1 predicts the most probable class, which can differ).
	Probabilities []float64 `json:"probabilities,omitempty"`
}

// Scores compare the predictions with the labels of the data; Predictions
// embeds a nil *Scores for data without labels, so JSON then has none of
// these keys.
type Scores struct {
	Accuracy float64 `json:"accuracy"`
	Correct  int     `json:"correct"`
	// Confusion counts: TruePos = label +1 predicted +1, FalseNeg = label +1
	// predicted -1, and so on (zero for a multi-class model).
	Confusion
	// ConfusionMatrix is a multi-class model's k×k confusion matrix: row
	// the true class, column the predicted one, in Predictions.Classes'
	// order.
	ConfusionMatrix [][]int `json:"confusion_matrix,omitempty"`
	// LogLoss and Brier score the class probabilities
	// (PredictSettings.Probability; metrics.LogLoss and metrics.Brier,
	// lower is better); nil without them.
	LogLoss *float64 `json:"log_loss,omitempty"`
	Brier   *float64 `json:"brier,omitempty"`
}

// OtherScores are the scores on the N rows of the data that were not
// training rows of the model.
type OtherScores struct {
	N int `json:"n"`
	Scores
}

// Predictions are the model's decision values and labels on data, and
// their scores when the data has labels. Its JSON is `kerneltune predict
// --format json`.
type Predictions struct {
	Model string `json:"model"`
	// The model's description.
	Kernel     kernel.Spec `json:"kernel"`
	Margin     string      `json:"margin"`
	C          float64     `json:"C,omitempty"`
	NSV        int         `json:"n_sv"`
	Normalize  string      `json:"normalize"`
	Provenance Provenance  `json:"provenance"`
	// Checksum is the model file's checksum status: "ok", "missing" (a
	// model written before checksums) or "mismatch" (the file was edited:
	// applied only when the user said so); set by the caller that read the
	// file, "" when none did.
	Checksum string `json:"checksum,omitempty"`

	Data   string          `json:"data"`
	N      int             `json:"n"`
	Labels dataio.LabelMap `json:"labels"` // the model's
	// Labeled says whether the data has labels; Scores is nil when not.
	Labeled bool `json:"labeled"`
	*Scores
	// PredictedPos and PredictedNeg count the rows predicted +1 and -1.
	PredictedPos int `json:"predicted_pos"`
	PredictedNeg int `json:"predicted_neg"`
	// Classes are a multi-class model's classes in LIBSVM's order and
	// Predicted the rows predicted in each (PredictedPos and PredictedNeg
	// are then 0).
	Classes []string `json:"classes,omitempty"`
	// Multiclass is a multi-class model's scheme: "" (one-vs-one) or "ovr".
	Multiclass string `json:"multiclass,omitempty"`
	Predicted  []int  `json:"predicted_counts,omitempty"`
	// TrainingRows counts the rows the model was trained on (by
	// Model.TrainingRows); nil when the model does not record them.
	TrainingRows *int `json:"training_rows,omitempty"`
	// Others are the scores on the rows that were not training rows: the
	// honest accuracy when some were (labelled data with training rows and
	// other rows only).
	Others *OtherScores `json:"others,omitempty"`
	// ProbabilityClasses are the classes of each row's Probabilities
	// (Model.ProbabilityClasses); nil without PredictSettings.Probability.
	ProbabilityClasses []string `json:"probability_classes,omitempty"`
	// ProbabilityInverted says that a sigmoid of the model is inverted
	// (Model.InvertedNote, also in Notes), and ProbabilityContradicts counts
	// the rows whose predicted class is not their most probable one (nil
	// without PredictSettings.Probability).
	ProbabilityInverted    bool         `json:"probability_inverted,omitempty"`
	ProbabilityContradicts *int         `json:"probability_contradicts_prediction,omitempty"`
	Notes                  []hint.Text  `json:"notes,omitempty"`
	Predictions            []Prediction `json:"predictions"`
}

// Predict applies m to the raw rows of d (read by ReadData): it encodes
// nominal features and fits the width as s says, then computes every row's
// decision value f(x) and predicted label and, for labelled data, the
// accuracy and the confusion counts. The notes say what it decided on its
// own: data read without labels, features padded or dropped, feature names
// that differ from the model's.
func Predict(ctx context.Context, m *Model, d *dataio.Dataset, s PredictSettings) (*Predictions, error) {
	name := s.Data
	if name == "-" {
		name = "standard input"
	}
	if s.Probability && !m.HasProbability() {
		why := hint.T("it was trained without ", hint.S("probability", ""), ": train or tune it again with ", hint.S("probability", ""))
		if m.Multiclass == dataio.OneVsRest {
			why = hint.T("a one-vs-rest model has none (LIBSVM's -b 1 couples one-vs-one pairs)")
		}
		return nil, hint.Errorf(ErrNoProbability, append(hint.T("predict ", hint.S("probability", ""), ": "+s.ModelFile+": ", ErrNoProbability, ": "), why...)...)
	}
	var err error
	if m.Encoder != nil {
		if d, err = m.Encoder.Apply(d); err != nil {
			return nil, err
		}
	}
	var notes []hint.Text
	if !d.Labeled() && !s.NoLabels {
		if d.Format == "libsvm" {
			notes = append(notes, hint.T(fmt.Sprintf("note: %s has no labels (its lines start with index:value): predictions only", name)))
		} else {
			notes = append(notes, hint.T(fmt.Sprintf("note: %s has no labels: its %d columns are the model's %d features (if one is a label, name it with ", name, d.Dim(), m.NumFeatures), hint.S("label-col", ""), ")"))
		}
	}
	if d.Dim() != m.NumFeatures {
		var note hint.Text
		d, note, err = fitWidth(d, m.NumFeatures, name, s)
		if err != nil {
			return nil, err
		}
		notes = append(notes, note)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if m.IsMultiClass() {
		r := predictMulti(m, d, s, name, notes)
		if s.Probability {
			return r, r.addProbabilities(m, d)
		}
		return r, nil
	}
	f := m.Decision(d.Features())
	r := &Predictions{
		Model: s.ModelFile, Kernel: m.Kernel, Margin: m.MarginKind.String(), C: m.C, NSV: m.NSV(),
		Normalize: "none", Provenance: m.Provenance,
		Data: s.Data, N: d.Len(), Labels: m.Labels, Labeled: d.Labeled(),
	}
	if m.Normalizer != nil {
		r.Normalize = m.Normalizer.Kind
	}
	r.Predictions = make([]Prediction, d.Len())
	for i, v := range f {
		if v > 0 {
			r.PredictedPos++
		} else {
			r.PredictedNeg++
		}
		r.Predictions[i] = Prediction{Row: i + 1, Decision: v, Predicted: m.Label(Classes(f[i : i+1])[0])}
		if r.Labeled {
			r.Predictions[i].Label = m.Label(d.Y[i])
		}
	}
	if r.Labeled {
		c := ConfusionOf(f, d.Y)
		// Accuracy 0, not NaN (which JSON cannot hold), for no rows.
		r.Scores = &Scores{Confusion: c, Correct: c.Correct(), Accuracy: float64(c.Correct()) / float64(max(r.N, 1))}
	}
	score := func(rows []int) Scores {
		of, oy := make([]float64, len(rows)), make([]float64, len(rows))
		for k, i := range rows {
			of[k], oy[k] = f[i], d.Y[i]
		}
		c := ConfusionOf(of, oy)
		return Scores{Confusion: c, Correct: c.Correct(), Accuracy: c.Accuracy()}
	}
	notes = append(notes, hint.Texts(r.markTrainingRows(m.TrainingRowsIn(d.Features()), score, name))...)
	r.finishNotes(m, d, notes)
	if s.Probability {
		return r, r.addProbabilities(m, d)
	}
	return r, nil
}

// addProbabilities sets each row's class probabilities and, for labelled
// data, the log-loss and the Brier score of all rows and of the rows that
// were not training rows (r.Others).
func (r *Predictions) addProbabilities(m *Model, d *dataio.Dataset) error {
	prob := m.Probabilities(d.Features())
	r.ProbabilityClasses = m.ProbabilityClasses()
	contra := 0
	for i := range r.Predictions {
		r.Predictions[i].Probabilities = prob[i]
		if k := slices.Index(r.ProbabilityClasses, r.Predictions[i].Predicted); k >= 0 && prob[i][k] < slices.Max(prob[i]) {
			contra++
		}
	}
	r.ProbabilityContradicts = &contra
	if n := m.InvertedNote(); n != "" {
		r.ProbabilityInverted = true
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("%s (here %d of %d rows)", n, contra, len(r.Predictions))))
	}
	if !r.Labeled {
		return nil
	}
	truth := d.Class
	if !m.IsMultiClass() {
		truth = binaryTruth(d.Y)
	}
	score := func(sc *Scores, rows []int) error {
		p, t := make([][]float64, len(rows)), make([]int, len(rows))
		for k, i := range rows {
			p[k], t[k] = prob[i], truth[i]
		}
		ll, b, err := ProbabilityScores(p, t)
		if err != nil {
			return err
		}
		if len(rows) > 0 { // JSON has no NaN
			sc.LogLoss, sc.Brier = &ll, &b
		}
		return nil
	}
	all, others := make([]int, len(truth)), []int{}
	for i := range all {
		all[i] = i
		if !r.Predictions[i].Training {
			others = append(others, i)
		}
	}
	if err := score(r.Scores, all); err != nil {
		return err
	}
	if r.Others != nil {
		return score(&r.Others.Scores, others)
	}
	return nil
}

// finishNotes sets r's notes: notes, then one when the data's feature names
// differ from the model's.
func (r *Predictions) finishNotes(m *Model, d *dataio.Dataset, notes []hint.Text) {
	r.Notes = notes
	if j := dataio.FeatureNameMismatch(m.FeatureNames, d.FeatureNames); j >= 0 {
		r.Notes = append(r.Notes, hint.T(fmt.Sprintf("note: feature %d is %q in the data but %q in the model: are the columns in the same order?",
			j+1, d.FeatureNames[j], m.FeatureNames[j])))
	}
}

// predictMulti is Predict for a multi-class model: every pair's decision
// value, LIBSVM's vote, and for labelled data the accuracy and the k×k
// confusion matrix.
func predictMulti(m *Model, d *dataio.Dataset, s PredictSettings, name string, notes []hint.Text) *Predictions {
	k := len(m.Classes)
	dec := m.PairDecisions(d.Features())
	pred := dataio.Combine(dec, k, m.Multiclass)
	ovr := m.Multiclass == dataio.OneVsRest
	r := &Predictions{Multiclass: m.Multiclass,
		Model: s.ModelFile, Kernel: m.Kernel, Margin: m.MarginKind.String(), C: m.C, NSV: m.Training.NSV,
		Normalize: "none", Provenance: m.Provenance,
		Data: s.Data, N: d.Len(), Labeled: d.Labeled(), Classes: m.Classes, Predicted: make([]int, k),
	}
	if m.Normalizer != nil {
		r.Normalize = m.Normalizer.Kind
	}
	idx := m.Subproblems()
	r.Predictions = make([]Prediction, d.Len())
	for i, c := range pred {
		r.Predicted[c]++
		p := Prediction{Row: i + 1, Predicted: m.Classes[c], PairDecisions: make([]float64, len(dec))}
		for q, ij := range idx {
			p.PairDecisions[q] = dec[q][i]
			if v := dec[q][i]; !ovr && (v > 0 && ij.Pos == c || v <= 0 && ij.Neg == c) {
				p.Votes++
			}
		}
		if ovr {
			p.Decision = dec[c][i]
		}
		if r.Labeled {
			p.Label = m.Classes[d.Class[i]]
		}
		r.Predictions[i] = p
	}
	score := func(rows []int) Scores {
		truth, guess := make([]int, len(rows)), make([]int, len(rows))
		for q, i := range rows {
			truth[q], guess[q] = d.Class[i], pred[i]
		}
		c := correct(truth, guess)
		return Scores{Correct: c, Accuracy: float64(c) / float64(max(len(rows), 1)), ConfusionMatrix: ConfusionMatrix(truth, guess, k)}
	}
	if r.Labeled {
		all := make([]int, d.Len())
		for i := range all {
			all[i] = i
		}
		sc := score(all)
		r.Scores = &sc
	}
	notes = append(notes, hint.Texts(r.markTrainingRows(m.TrainingRowsIn(d.Features()), score, name))...)
	r.finishNotes(m, d, notes)
	return r
}

// markTrainingRows marks the rows that were training rows (inTrain, nil
// when the model does not record them), counts them and scores the other
// rows (score, given their indices); the note says how many there were and
// which accuracy to believe.
func (r *Predictions) markTrainingRows(inTrain []bool, score func(rows []int) Scores, name string) []string {
	if inTrain == nil {
		return nil
	}
	var others []int
	k := 0
	for i, t := range inTrain {
		r.Predictions[i].Training = t
		if t {
			k++
		} else if r.Labeled {
			others = append(others, i)
		}
	}
	r.TrainingRows = &k
	switch {
	case k == 0:
		return nil
	case !r.Labeled:
		return []string{fmt.Sprintf("note: %d of the %d rows of %s were training rows of the model", k, r.N, name)}
	case k == r.N:
		return []string{fmt.Sprintf("note: all %d rows of %s were training rows of the model: the accuracy is a training accuracy, not one on new data", r.N, name)}
	}
	sc := score(others)
	r.Others = &OtherScores{N: len(others), Scores: sc}
	return []string{fmt.Sprintf("note: %d of the %d rows of %s were training rows of the model (it records a hash of each): the accuracy on the %d others, %.2f%%, is the one that says how it does on new data",
		k, r.N, name, len(others), 100*sc.Accuracy)}
}

// fitWidth handles data (named name) whose number of features d.Dim() is
// not the model's, width: with FeaturesPad (fewer) it appends zero
// features, with FeaturesTruncate (more) it drops the last ones, and says
// so in the note; otherwise it returns an error that names both numbers
// and the setting.
func fitWidth(d *dataio.Dataset, width int, name string, s PredictSettings) (*dataio.Dataset, hint.Text, error) {
	have := d.Dim()
	switch {
	case have < width && s.Features == FeaturesPad:
		return resizeFeatures(d, width), hint.T(fmt.Sprintf("note: %s has %d features, the model %d: features %d-%d are read as 0 (",
			name, have, width, have+1, width), hint.S("features", "pad"), ")"), nil
	case have > width && s.Features == FeaturesTruncate:
		return resizeFeatures(d, width), hint.T(fmt.Sprintf("note: %s has %d features, the model %d: features %d-%d are dropped (",
			name, have, width, width+1, have), hint.S("features", "truncate"), ")"), nil
	}
	var why hint.Text
	switch {
	case have < width && d.Format == "libsvm":
		why = hint.T(fmt.Sprintf(" (a LIBSVM file need not mention its last features: if features %d-%d are 0 in every row, give ", have+1, width), hint.S("features", "pad"), ")")
	case have < width:
		why = append(widthHint(d, width, s.NoLabels), "; ", hint.S("features", "pad"), " reads the missing features as 0")
	default:
		why = append(widthHint(d, width, s.NoLabels), "; ", hint.S("features", "truncate"), fmt.Sprintf(" drops features %d-%d", width+1, have))
	}
	return nil, nil, hint.Errorf(nil, append(hint.T(fmt.Sprintf("predict: %s has %d features%s, the model %s was trained on %d",
		name, have, readAs(d), s.ModelFile, width)), why...)...)
}

// resizeFeatures returns d with width features: its own, then zeros (or
// only the first width).
func resizeFeatures(d *dataio.Dataset, width int) *dataio.Dataset {
	n, have := d.Dims()
	if n == 0 { // the readers refuse empty data; nothing to resize
		return d
	}
	keep := min(have, width)
	c := *d
	if d.Sparse != nil {
		c.Sparse = resizeCSR(d.Sparse, width)
	} else {
		x := mat.NewDense(n, width, nil)
		for i := 0; i < n; i++ {
			copy(x.RawRowView(i)[:keep], d.X.RawRowView(i)[:keep])
		}
		c.X = x
	}
	if d.FeatureNames == nil {
		return &c // f1..fd made on demand (Dataset.FeatureName), at any width
	}
	c.FeatureNames = make([]string, width)
	copy(c.FeatureNames, d.FeatureNames)
	for j := keep; j < width; j++ {
		c.FeatureNames[j] = "f" + strconv.Itoa(j+1)
	}
	return &c
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
func widthHint(d *dataio.Dataset, features int, forced bool) hint.Text {
	switch {
	case d.Format != "csv":
		return nil
	case forced:
		return hint.T(": with ", hint.S("no-labels", ""), fmt.Sprintf(" every column is a feature, so DATA needs %d columns", features))
	}
	return hint.T(fmt.Sprintf(": DATA needs %d columns, or %d with a label column", features, features+1))
}
