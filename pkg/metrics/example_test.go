package metrics_test

import (
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// A classifier that finds few of the minority class: its accuracy looks
// good, its balanced accuracy and macro-F1 do not.
func Example() {
	labels := []string{"+1", "-1"}
	truth := []int{0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1} // 4 positives, 12 negatives
	pred := []int{0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}
	c, err := metrics.ConfusionOf(labels, truth, pred)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println("counts:", c.Counts)
	fmt.Printf("accuracy %.4f, balanced accuracy %.4f, macro-F1 %.4f\n", c.Accuracy(), c.BalancedAccuracy(), c.MacroF1())
	scores := []float64{0.2, -0.1, -0.3, -0.9, -0.5, -0.6, -0.7, -0.8, -1, -1.1, -1.2, -1.3, -1.4, -1.5, -1.6, -0.1}
	positive := make([]bool, len(truth))
	for i, t := range truth {
		positive[i] = t == 0
	}
	auc, err := metrics.BinaryAUC(scores, positive)
	fmt.Printf("AUC %.4f %v\n", auc, err)
	// Output:
	// counts: [[1 3] [0 12]]
	// accuracy 0.8125, balanced accuracy 0.6250, macro-F1 0.6444
	// AUC 0.8646 <nil>
}
