package model

import (
	"math"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// Confusion counts decision values against labels ±1, a class predicted +1
// iff f > 0 (LIBSVM's rule): TruePos = label +1 predicted +1, FalseNeg =
// label +1 predicted -1, FalsePos = label -1 predicted +1, TrueNeg = label -1
// predicted -1.
type Confusion struct {
	TruePos  int `json:"true_pos"`
	FalseNeg int `json:"false_neg"`
	FalsePos int `json:"false_pos"`
	TrueNeg  int `json:"true_neg"`
}

// ConfusionOf counts the decision values f against the labels y (y_i > 0 is
// class +1). It panics if the lengths differ.
func ConfusionOf(f, y []float64) Confusion {
	if len(f) != len(y) {
		panic("model: ConfusionOf: length mismatch")
	}
	var c Confusion
	for i, v := range f {
		switch pos, truePos := v > 0, y[i] > 0; {
		case pos && truePos:
			c.TruePos++
		case !pos && truePos:
			c.FalseNeg++
		case pos:
			c.FalsePos++
		default:
			c.TrueNeg++
		}
	}
	return c
}

// Correct returns the number of rows whose class is predicted:
// TruePos + TrueNeg.
func (c Confusion) Correct() int { return c.TruePos + c.TrueNeg }

// Total returns the number of rows counted.
func (c Confusion) Total() int { return c.TruePos + c.FalseNeg + c.FalsePos + c.TrueNeg }

// Accuracy returns Correct/Total, NaN when no rows were counted.
func (c Confusion) Accuracy() float64 {
	if c.Total() == 0 {
		return math.NaN()
	}
	return float64(c.Correct()) / float64(c.Total())
}

// TestScores are a model's metrics on a test part beyond accuracy
// (pkg/metrics): balanced accuracy, macro-F1 and, for a binary model, the
// AUC of the decision values, with the confusion matrix they come from.
type TestScores struct {
	BalancedAccuracy float64 `json:"test_balanced_accuracy"`
	MacroF1          float64 `json:"test_macro_f1"`
	// AUC is nil when the test part holds rows of one class only (the
	// ROC curve needs both) and for a multi-class model.
	AUC *float64 `json:"test_auc,omitempty"`
	// LogLoss and Brier are the log-loss and the Brier score of the
	// test part's class probabilities (metrics.LogLoss, metrics.Brier:
	// lower is better), for a model with probability estimates; nil
	// otherwise.
	LogLoss *float64 `json:"test_log_loss,omitempty"`
	Brier   *float64 `json:"test_brier,omitempty"`
	// Confusion is the k×k matrix, rows the true class, columns the
	// predicted one; for a binary model class 0 is the +1 class
	// (BinaryLabels), for a multi-class one the order is LIBSVM's.
	Confusion *metrics.Confusion `json:"test_confusion"`
}

// BinaryLabels are the class labels of a binary problem in the order of
// its confusion matrix: the +1 class first, then the -1 class, by their
// labels in the data ("+1" and "-1" when the data names none).
func BinaryLabels(lm dataio.LabelMap) []string {
	pos, neg := lm.Positive, lm.Negative
	if pos == "" && neg == "" {
		pos, neg = "+1", "-1"
	}
	return []string{pos, neg}
}

// BinaryConfusion counts decision values f against labels y (±1) into a
// 2×2 confusion matrix of the classes BinaryLabels(lm): class 0 is +1,
// predicted iff f > 0 (LIBSVM's rule, as ConfusionOf). It panics if the
// lengths differ.
func BinaryConfusion(f, y []float64, lm dataio.LabelMap) *metrics.Confusion {
	c := ConfusionOf(f, y)
	m := metrics.NewConfusion(BinaryLabels(lm))
	m.Counts[0][0], m.Counts[0][1] = c.TruePos, c.FalseNeg
	m.Counts[1][0], m.Counts[1][1] = c.FalsePos, c.TrueNeg
	return m
}

// ScoreClasses returns the metrics of predicted classes against true ones,
// both indices into labels (the problem's classes in its class order), for
// any number of classes; AUC is left nil (ScoreBinary gives it from the
// decision values of a binary model). It fails when the lengths differ or
// an index is out of range.
func ScoreClasses(labels []string, truth, pred []int) (*TestScores, error) {
	c, err := metrics.ConfusionOf(labels, truth, pred)
	if err != nil {
		return nil, err
	}
	return &TestScores{BalancedAccuracy: c.BalancedAccuracy(), MacroF1: c.MacroF1(), Confusion: c}, nil
}

// ScoreBinary returns the metrics of decision values f against labels y
// (±1) of the classes lm; nil for no rows.
func ScoreBinary(f, y []float64, lm dataio.LabelMap) *TestScores {
	if len(y) == 0 {
		return nil
	}
	c := BinaryConfusion(f, y, lm)
	s := &TestScores{BalancedAccuracy: c.BalancedAccuracy(), MacroF1: c.MacroF1(), Confusion: c}
	pos := make([]bool, len(y))
	for i, v := range y {
		pos[i] = v > 0
	}
	if auc, err := metrics.BinaryAUC(f, pos); err == nil {
		s.AUC = &auc
	}
	return s
}
