package report

// The tables of predict: the summary (accuracy and confusion counts, or the
// rows per predicted class) and the rows.

import (
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// PredictSummaryTables give the accuracy and the confusion counts, or for
// data without labels the number of rows predicted in each class. sp
// spells the settings the notes name (nil: hint.Plain).
func PredictSummaryTables(r *model.Predictions, sp hint.Speller) []*Table {
	notes := hint.SpellAll(r.Notes, plainOr(sp))
	if r.Classes != nil && !r.Labeled {
		t := &Table{Title: fmt.Sprintf("predict %s with %s (no labels, so no accuracy)", r.Data, r.Model), Header: []string{"rows"},
			Rows: [][]string{{strconv.Itoa(r.N)}}, Notes: notes}
		for c, l := range r.Classes {
			t.Header = append(t.Header, fmt.Sprintf("predicted %q", l))
			t.Rows[0] = append(t.Rows[0], strconv.Itoa(r.Predicted[c]))
		}
		return []*Table{t}
	}
	if !r.Labeled {
		return []*Table{{
			Title: fmt.Sprintf("predict %s with %s (no labels, so no accuracy)", r.Data, r.Model),
			Header: []string{"rows",
				fmt.Sprintf("predicted %q (+1)", r.Labels.Positive), fmt.Sprintf("predicted %q (-1)", r.Labels.Negative)},
			Rows:  [][]string{{strconv.Itoa(r.N), strconv.Itoa(r.PredictedPos), strconv.Itoa(r.PredictedNeg)}},
			Notes: notes,
		}}
	}
	acc := &Table{
		Title:  fmt.Sprintf("predict %s with %s", r.Data, r.Model),
		Header: []string{"rows", "correct", "accuracy"},
		Rows:   [][]string{{strconv.Itoa(r.N), strconv.Itoa(r.Correct), Fixed(100*r.Accuracy, 2) + "%"}},
	}
	if o := r.Others; o != nil {
		// The rows the model was trained on, and the others.
		k := r.N - o.N
		acc.Add(fmt.Sprintf("%d not training rows", o.N), strconv.Itoa(o.Correct), Fixed(100*o.Accuracy, 2)+"%")
		acc.Add(fmt.Sprintf("%d training rows", k), strconv.Itoa(r.Correct-o.Correct), Fixed(100*float64(r.Correct-o.Correct)/float64(k), 2)+"%")
	}
	if r.LogLoss != nil {
		// Probabilities: their scores beside the accuracy (none for the
		// training rows alone).
		acc.Header = append(acc.Header, "log-loss", "Brier")
		for i, sc := range []*model.Scores{r.Scores, othersScores(r)} {
			if i < len(acc.Rows) {
				acc.Rows[i] = append(acc.Rows[i], probScore(sc, true), probScore(sc, false))
			}
		}
		if len(acc.Rows) == 3 {
			acc.Rows[2] = append(acc.Rows[2], "", "")
		}
		acc.Notes = append(acc.Notes, fmt.Sprintf("probabilities of the classes %s (LIBSVM's -b 1); log-loss: mean -log p(true class); Brier: mean over the rows of Σ_k (p_k - [k is the true class])², summed over all classes (twice scikit-learn's brier_score_loss for two classes)",
			strings.Join(quoteAll(r.ProbabilityClasses), ", ")))
	}
	if r.Classes != nil {
		conf := ConfusionTable(r.Classes, r.ConfusionMatrix)
		conf.Notes = notes
		return []*Table{acc, conf}
	}
	pos, neg := fmt.Sprintf("%q (+1)", r.Labels.Positive), fmt.Sprintf("%q (-1)", r.Labels.Negative)
	conf := &Table{
		Header: []string{"label \\ predicted", pos, neg, "rows"},
		Rows: [][]string{
			{pos, strconv.Itoa(r.TruePos), strconv.Itoa(r.FalseNeg), strconv.Itoa(r.TruePos + r.FalseNeg)},
			{neg, strconv.Itoa(r.FalsePos), strconv.Itoa(r.TrueNeg), strconv.Itoa(r.FalsePos + r.TrueNeg)},
			{"rows", strconv.Itoa(r.TruePos + r.FalsePos), strconv.Itoa(r.FalseNeg + r.TrueNeg), strconv.Itoa(r.N)},
		},
		Notes: notes,
	}
	return []*Table{acc, conf}
}

// othersScores are the scores of the rows that were not training rows, nil
// when predict did not tell them apart.
func othersScores(r *model.Predictions) *model.Scores {
	if r.Others == nil {
		return nil
	}
	return &r.Others.Scores
}

// probScore is a scores' log-loss (or Brier score) with 4 decimals, "" when
// there is none.
func probScore(sc *model.Scores, logLoss bool) string {
	if sc == nil || sc.LogLoss == nil {
		return ""
	}
	if logLoss {
		return Fixed(*sc.LogLoss, 4)
	}
	return Fixed(*sc.Brier, 4)
}

func quoteAll(s []string) []string {
	q := make([]string, len(s))
	for i, v := range s {
		q[i] = strconv.Quote(v)
	}
	return q
}

// ConfusionTable is a k×k confusion matrix m of the classes (row: the true
// class, column: the predicted one) with the rows' and columns' sums.
func ConfusionTable(classes []string, m [][]int) *Table {
	t := &Table{Header: []string{"label \\ predicted"}}
	sums := make([]int, len(classes))
	total := 0
	for i, l := range classes {
		t.Header = append(t.Header, strconv.Quote(l))
		row, n := []string{strconv.Quote(l)}, 0
		for j, v := range m[i] {
			row = append(row, strconv.Itoa(v))
			n += v
			sums[j] += v
		}
		total += n
		t.Rows = append(t.Rows, append(row, strconv.Itoa(n)))
	}
	t.Header = append(t.Header, "rows")
	last := []string{"rows"}
	for _, v := range sums {
		last = append(last, strconv.Itoa(v))
	}
	t.Rows = append(t.Rows, append(last, strconv.Itoa(total)))
	return t
}

// PredictionsTable lists the rows; full gives decision values with every
// digit (csv), otherwise 6 significant digits and a column marking the
// wrong predictions. For a one-vs-one multi-class model the second column
// is the predicted class's votes (one-vs-rest: its decision value, the
// largest).
func PredictionsTable(r *model.Predictions, full bool) *Table {
	t := &Table{Header: []string{"row", "decision", "predicted"}}
	votes := r.Classes != nil && r.Multiclass != dataio.OneVsRest
	if votes {
		t.Header[1] = "votes"
	}
	for _, c := range r.ProbabilityClasses {
		t.Header = append(t.Header, "P("+c+")")
	}
	if r.Labeled {
		t.Header = append(t.Header, "label")
		if !full {
			t.Header = append(t.Header, "")
		}
	}
	t.Rows = make([][]string, len(r.Predictions))
	for i, p := range r.Predictions {
		dv := Sig(p.Decision, 6)
		if full {
			dv = strconv.FormatFloat(p.Decision, 'g', -1, 64)
		}
		if votes {
			dv = strconv.Itoa(p.Votes)
		}
		row := []string{strconv.Itoa(p.Row), dv, p.Predicted}
		for _, v := range p.Probabilities {
			if full {
				row = append(row, strconv.FormatFloat(v, 'g', -1, 64))
			} else {
				row = append(row, Fixed(v, 4))
			}
		}
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

// FormatLabels is predict's svm-predict-style output: one predicted label
// per line.
const FormatLabels = "labels"

// WritePredictions writes the rows of r in format: FormatJSON (all of r),
// FormatLabels, FormatCSV (decision values with every digit) or else
// FormatTable (6 significant digits, wrong predictions marked).
func WritePredictions(w io.Writer, format string, r *model.Predictions) error {
	switch format {
	case FormatJSON:
		return RenderJSON(w, r)
	case FormatLabels:
		return writeLabels(w, r)
	case FormatCSV:
		return Render(w, FormatCSV, PredictionsTable(r, true))
	}
	return Render(w, FormatTable, PredictionsTable(r, false))
}

// writeLabels writes one predicted label per line, like svm-predict's
// output file; with probabilities, as svm-predict -b 1's: a "labels" line
// naming the classes, then each row's label and its class probabilities in
// that order (%g, as LIBSVM prints them; the label is the decision's, where
// svm-predict -b 1 takes the most probable class).
func writeLabels(w io.Writer, r *model.Predictions) error {
	var b strings.Builder
	if r.ProbabilityClasses != nil {
		b.WriteString("labels " + strings.Join(r.ProbabilityClasses, " ") + "\n")
	}
	for _, p := range r.Predictions {
		b.WriteString(p.Predicted)
		for _, v := range p.Probabilities {
			b.WriteString(" " + strconv.FormatFloat(v, 'g', 6, 64))
		}
		b.WriteByte('\n')
	}
	_, err := io.WriteString(w, b.String())
	return err
}
