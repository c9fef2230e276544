// Package metrics scores a classifier's predictions on a test part with more
// than accuracy: a k×k confusion matrix with the class labels, and from it
// accuracy, balanced accuracy and macro-F1; and, for two classes, the AUC
// from decision values. It exists so that a comparison's records keep what
// every metric needs (the confusion matrix, the AUC) and a report can
// recompute its tables for any metric long after the run, and so that
// binary and multi-class problems are scored by the same code: a class is
// an index 0..k-1 into Confusion.Labels, whatever k is.
//
// The definitions follow scikit-learn's (balanced_accuracy_score,
// f1_score(average="macro"), roc_auc_score), including what they do with a
// class that the test part lacks: see each method.
package metrics

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
)

// Metric names a score of a test part; its zero value is Accuracy.
type Metric int

// The metrics. Every one is in [0, 1], higher is better.
const (
	// Accuracy is the fraction of rows predicted right.
	Accuracy Metric = iota
	// BalancedAccuracy is the mean over classes of the recall.
	BalancedAccuracy
	// MacroF1 is the unweighted mean over classes of the F1 score.
	MacroF1
	// AUC is the area under the ROC curve of the decision values (binary
	// problems only).
	AUC
)

var names = []string{"accuracy", "balanced_accuracy", "macro_f1", "auc"}

// titles are the metrics' names in prose (table headers, figure axes).
var titles = []string{"accuracy", "balanced accuracy", "macro-F1", "AUC"}

// Names lists the metrics' names, as Parse accepts them.
func Names() []string { return slices.Clone(names) }

// String returns the metric's name ("balanced_accuracy").
func (m Metric) String() string {
	if m < 0 || int(m) >= len(names) {
		return fmt.Sprintf("Metric(%d)", int(m))
	}
	return names[m]
}

// Title returns the metric's name in prose ("balanced accuracy").
func (m Metric) Title() string {
	if m < 0 || int(m) >= len(titles) {
		return m.String()
	}
	return titles[m]
}

// BinaryOnly reports whether the metric is defined for two classes only.
func (m Metric) BinaryOnly() bool { return m == AUC }

// Parse returns the metric of a name ("" is accuracy); the error lists the
// valid names.
func Parse(name string) (Metric, error) {
	if name == "" {
		return Accuracy, nil
	}
	if i := slices.Index(names, name); i >= 0 {
		return Metric(i), nil
	}
	return 0, fmt.Errorf("unknown metric %q (valid: %s)", name, strings.Join(names, ", "))
}

// Confusion is a k×k confusion matrix: Counts[i][j] is the number of rows
// of true class i predicted as class j (rows true, columns predicted, as
// scikit-learn's confusion_matrix), for the classes Labels, in the
// problem's class order. Its JSON form is
// {"labels": ["+1", "-1"], "counts": [[50, 3], [7, 40]]}.
type Confusion struct {
	Labels []string `json:"labels"`
	Counts [][]int  `json:"counts"`
}

// NewConfusion returns an empty confusion matrix of the classes labels.
func NewConfusion(labels []string) *Confusion {
	c := &Confusion{Labels: slices.Clone(labels), Counts: make([][]int, len(labels))}
	for i := range c.Counts {
		c.Counts[i] = make([]int, len(labels))
	}
	return c
}

// ConfusionOf counts the true classes truth against the predicted classes
// pred, both indices into labels. It fails when the lengths differ or an
// index is out of range.
func ConfusionOf(labels []string, truth, pred []int) (*Confusion, error) {
	if len(truth) != len(pred) {
		return nil, fmt.Errorf("confusion matrix: %d true classes but %d predictions", len(truth), len(pred))
	}
	c := NewConfusion(labels)
	k := len(labels)
	for i, t := range truth {
		p := pred[i]
		if t < 0 || t >= k || p < 0 || p >= k {
			return nil, fmt.Errorf("confusion matrix: row %d: class index (true %d, predicted %d) outside 0..%d", i+1, t, p, k-1)
		}
		c.Counts[t][p]++
	}
	return c, nil
}

// Check reports whether the matrix is well formed: at least two classes,
// as many rows and columns as labels, no negative count. Records read from
// a file are checked with it.
func (c *Confusion) Check() error {
	k := len(c.Labels)
	if k < 2 {
		return fmt.Errorf("confusion matrix has %d class labels, want at least 2", k)
	}
	if len(c.Counts) != k {
		return fmt.Errorf("confusion matrix has %d rows for %d classes", len(c.Counts), k)
	}
	for i, row := range c.Counts {
		if len(row) != k {
			return fmt.Errorf("confusion matrix row %d (%s) has %d counts for %d classes", i+1, c.Labels[i], len(row), k)
		}
		for j, v := range row {
			if v < 0 {
				return fmt.Errorf("confusion matrix count [%s][%s] = %d < 0", c.Labels[i], c.Labels[j], v)
			}
		}
	}
	return nil
}

// Total returns the number of rows counted.
func (c *Confusion) Total() int {
	n := 0
	for _, row := range c.Counts {
		for _, v := range row {
			n += v
		}
	}
	return n
}

// Correct returns the number of rows predicted right (the trace).
func (c *Confusion) Correct() int {
	n := 0
	for i, row := range c.Counts {
		n += row[i]
	}
	return n
}

// sums returns the row sums (true rows per class) and the column sums
// (predicted rows per class).
func (c *Confusion) sums() (truth, pred []int) {
	truth, pred = make([]int, len(c.Counts)), make([]int, len(c.Counts))
	for i, row := range c.Counts {
		for j, v := range row {
			truth[i] += v
			pred[j] += v
		}
	}
	return truth, pred
}

// Accuracy returns Correct/Total; NaN when no row was counted.
func (c *Confusion) Accuracy() float64 {
	n := c.Total()
	if n == 0 {
		return math.NaN()
	}
	return float64(c.Correct()) / float64(n)
}

// BalancedAccuracy returns the mean over the classes of the recall (the
// fraction of a class's rows predicted as it), as scikit-learn's
// balanced_accuracy_score: a class with no row in the test part has no
// recall and is left out of the mean (scikit-learn drops it with the
// warning "y_pred contains classes not in y_true"). NaN when no row was
// counted.
func (c *Confusion) BalancedAccuracy() float64 {
	truth, _ := c.sums()
	sum, n := 0.0, 0
	for i, t := range truth {
		if t > 0 {
			sum += float64(c.Counts[i][i]) / float64(t)
			n++
		}
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// MacroF1 returns the unweighted mean over the classes of F1 =
// 2·TP / (2·TP + FP + FN), as scikit-learn's f1_score(average="macro")
// with its default labels: the classes that occur in the test part or in
// its predictions. A class that is never predicted (precision 0/0) or
// never true (recall 0/0) scores F1 = 0, scikit-learn's zero_division
// default ("warn", which acts as 0); a class neither true nor predicted is
// left out of the mean, as scikit-learn does without an explicit labels
// list. NaN when no row was counted.
func (c *Confusion) MacroF1() float64 {
	truth, pred := c.sums()
	sum, n := 0.0, 0
	for i := range truth {
		if truth[i]+pred[i] == 0 {
			continue
		}
		tp := c.Counts[i][i]
		sum += 2 * float64(tp) / float64(truth[i]+pred[i]) // 2TP + FP + FN = true rows + predicted rows
		n++
	}
	if n == 0 {
		return math.NaN()
	}
	return sum / float64(n)
}

// Score returns the metric m of the matrix; AUC is not a function of the
// confusion matrix and gives an error, as does an unknown metric.
func (c *Confusion) Score(m Metric) (float64, error) {
	switch m {
	case Accuracy:
		return c.Accuracy(), nil
	case BalancedAccuracy:
		return c.BalancedAccuracy(), nil
	case MacroF1:
		return c.MacroF1(), nil
	case AUC:
		return math.NaN(), errors.New("auc comes from the decision values, not from the confusion matrix")
	}
	return math.NaN(), fmt.Errorf("unknown metric %v", m)
}

// ErrOneClass is AUC's error when the rows hold only one class: the ROC
// curve needs both (scikit-learn's roc_auc_score raises for it too).
var ErrOneClass = errors.New("AUC needs rows of both classes")

// BinaryAUC returns the area under the ROC curve of the decision values
// scores for the rows whose positive is true: the probability that a
// positive row scores higher than a negative one, a tie counting one half
// (the Mann–Whitney U statistic over n₊·n₋, as scikit-learn's
// roc_auc_score). It sorts once: O(n log n). It fails with ErrOneClass
// when all rows are of one class, and for a NaN score.
func BinaryAUC(scores []float64, positive []bool) (float64, error) {
	if len(scores) != len(positive) {
		return math.NaN(), fmt.Errorf("AUC: %d scores but %d labels", len(scores), len(positive))
	}
	idx := make([]int, len(scores))
	for i := range idx {
		if math.IsNaN(scores[i]) {
			return math.NaN(), fmt.Errorf("AUC: score of row %d is NaN", i+1)
		}
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return cmp.Compare(scores[a], scores[b]) })
	// The sum of the positives' mid-ranks (1-based, ties sharing their
	// mean rank) gives U = R₊ − n₊(n₊+1)/2.
	var rankSum float64
	var nPos int
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && scores[idx[j]] == scores[idx[i]] {
			j++
		}
		mid := float64(i+1+j) / 2 // mean of ranks i+1 … j
		for _, r := range idx[i:j] {
			if positive[r] {
				rankSum += mid
				nPos++
			}
		}
		i = j
	}
	nNeg := len(idx) - nPos
	if nPos == 0 || nNeg == 0 {
		return math.NaN(), ErrOneClass
	}
	u := rankSum - float64(nPos)*float64(nPos+1)/2
	return u / (float64(nPos) * float64(nNeg)), nil
}

// Short returns the metric's name as a table header abbreviates it
// ("acc.", "bal. acc.").
func (m Metric) Short() string {
	switch m {
	case Accuracy:
		return "acc."
	case BalancedAccuracy:
		return "bal. acc."
	}
	return m.Title()
}

// MarshalText returns the metric's name.
func (m Metric) MarshalText() ([]byte, error) {
	if m < 0 || int(m) >= len(names) {
		return nil, fmt.Errorf("unknown metric %d", int(m))
	}
	return []byte(names[m]), nil
}

// UnmarshalText parses a metric's name.
func (m *Metric) UnmarshalText(b []byte) error {
	v, err := Parse(string(b))
	if err == nil {
		*m = v
	}
	return err
}
