package report_test

import (
	"os"

	"github.com/kerneltune/kerneltune/pkg/report"
)

// A table of two methods' accuracies in markdown: numbers are strings of
// the precision the caller chose, and numeric columns are right-aligned.
func ExampleRender() {
	t := &report.Table{
		Title:  "heart (n=270, d=13)",
		Header: []string{"method", "accuracy %", "#SV"},
		Notes:  []string{"accuracy: 10-fold cross-validation"},
	}
	t.Add("svm", report.Fixed(83.7037, 2), "101")
	t.Add("spd_diag", report.Fixed(85.1852, 2), "99")
	if err := report.Render(os.Stdout, report.FormatMarkdown, t); err != nil {
		panic(err)
	}
	// Output:
	// **heart (n=270, d=13)**
	//
	// | method   | accuracy % | #SV |
	// |:---------|-----------:|----:|
	// | svm      |      83.70 | 101 |
	// | spd_diag |      85.19 |  99 |
	//
	// accuracy: 10-fold cross-validation
}
