package metrics

import (
	"fmt"
	"math"
)

// Scores of class probabilities (a model trained with probability
// estimates, pkg/probability). They are no Metric of the comparison's
// registry: a comparison's records hold confusion matrices and decision
// values, not probabilities, and both are lower-is-better. prob[i] is row
// i's probability of each class (indices into the problem's classes, as
// truth's), summing to 1.

// LogClip bounds a probability away from 0 in LogLoss, as scikit-learn's
// log_loss did with its eps=1e-15: a row whose true class got probability
// 0 costs -log(1e-15) ≈ 34.5, not +Inf. LIBSVM's probabilities never come
// near it (each pairwise one is clipped to [1e-7, 1-1e-7]).
const LogClip = 1e-15

// LogLoss returns the mean over the rows of -log p_i(truth_i), the
// cross-entropy of the true classes (scikit-learn's log_loss with
// normalize=True), with p clipped below at LogClip. It is NaN for no rows,
// and fails when the lengths differ or a class index is out of range.
func LogLoss(prob [][]float64, truth []int) (float64, error) {
	return meanOfRows(prob, truth, func(s float64, p []float64, c int) float64 {
		return s - math.Log(max(p[c], LogClip))
	})
}

// Brier returns Brier's (1950) score, the mean over the rows of the
// squared distance between the probability vector and the true class's
// indicator, Σ_k (p_ik - 1[truth_i = k])², summed over all classes: in
// [0, 2], 0 for certain and right. For two classes it is twice
// scikit-learn's brier_score_loss, which counts the positive class only;
// the sum over the classes is the one definition for any number of
// classes. NaN for no rows; it fails as LogLoss does.
func Brier(prob [][]float64, truth []int) (float64, error) {
	return meanOfRows(prob, truth, func(s float64, p []float64, c int) float64 {
		for k, v := range p {
			if k == c {
				v -= 1
			}
			s += v * v
		}
		return s
	})
}

// meanOfRows checks prob and truth (checkProb) and returns the sum that add
// accumulates over the rows (row i's probabilities and true class), divided
// by the rows; NaN for none.
func meanOfRows(prob [][]float64, truth []int, add func(s float64, p []float64, c int) float64) (float64, error) {
	if err := checkProb(prob, truth); err != nil {
		return 0, err
	}
	if len(truth) == 0 {
		return math.NaN(), nil
	}
	s := 0.0
	for i, c := range truth {
		s = add(s, prob[i], c)
	}
	return s / float64(len(truth)), nil
}

func checkProb(prob [][]float64, truth []int) error {
	if len(prob) != len(truth) {
		return fmt.Errorf("%d rows of probabilities for %d true classes", len(prob), len(truth))
	}
	for i, c := range truth {
		if c < 0 || c >= len(prob[i]) {
			return fmt.Errorf("row %d: class %d of %d", i+1, c, len(prob[i]))
		}
	}
	return nil
}
