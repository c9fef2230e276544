package model

import "math"

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
