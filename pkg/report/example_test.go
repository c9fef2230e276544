package report_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"

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

// The averaged table of a comparison's records, in markdown: two methods,
// two partitions of one dataset.
func ExampleWriteSummary() {
	recs := exampleRecords()
	sum := report.Summarize(recs, report.SummaryOptions{Rope: report.DefaultRope})
	if err := report.WriteSummary(os.Stdout, report.FormatMarkdown, sum, recs, nil); err != nil {
		panic(err)
	}
	// Output:
	// **heart (2 partitions: 170 train / 100 test, rows of the data not recorded)**
	//
	// | method | test acc. % (mean ± std) |   #SV | time s | SVM solves | runs | failures | degenerate | memorising | p vs svm | P(worse/equiv/better) |
	// |:-------|-------------------------:|------:|-------:|-----------:|-----:|---------:|-----------:|-----------:|---------:|----------------------:|
	// | svm    |             82.00 ± 2.83 | 100.0 |   0.00 |          0 |    2 |        0 |        0/2 |        0/2 |        — |                     — |
	// | spd *  |             83.50 ± 2.12 |  90.0 |   0.00 |          0 |    2 |        0 |        0/2 |        0/2 |      0.5 |        0.09/0.22/0.69 |
	//
	// \* best mean test accuracy (ties all marked); runs: partitions finished; p: two-sided paired Wilcoxon signed-rank test against svm over the partitions both finished (exact distribution)
	//
	// P(worse/equiv/better): Bayesian correlated t-test against svm over the same pairs (Benavoli et al. 2017): posterior probabilities that the method's mean is more than 1 point of test accuracy below svm's, within ± that (the ROPE, --rope), or more than that above; partitions correlated by ρ = n_test/(n_test+n_train) = 0.37 (Nadeau–Bengio)
}

// What info prints about a small CSV data set.
func ExampleDataTable() {
	csv := "x1,x2,label\n0,1,yes\n0.5,1,no\n1,1,yes\n0.5,1,no\n"
	d, err := dataio.ReadCSV(strings.NewReader(csv), "toy.csv", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	if err := report.Render(os.Stdout, report.FormatMarkdown, report.DataTable(dataio.Describe(d))); err != nil {
		panic(err)
	}
	// Output:
	// **toy — toy.csv**
	//
	// | property          | value                                                            |
	// |:------------------|:-----------------------------------------------------------------|
	// | format            | csv                                                              |
	// | rows              | 4                                                                |
	// | features          | 2                                                                |
	// | +1 = "yes"        | 2 (50.0%)                                                        |
	// | -1 = "no"         | 2 (50.0%)                                                        |
	// | value range       | [0, 1]                                                           |
	// | constant features | 1: 2                                                             |
	// | duplicate rows    | 1 (same features as an earlier row)                              |
	// | both labels       | 0 feature vectors on 0 rows                                      |
	// | sha256            | 5b9b745ef5efd23935821b2043cd558b6bde52de7efb76ba18acfc331df549b1 |
}

// exampleRecords are a comparison's records: svm and spd on two partitions
// of heart.
func exampleRecords() []experiment.Record {
	grid := &experiment.Grid{Datasets: []experiment.GridDataset{{Name: "heart", Partitions: 2}}, Entries: []string{"svm", "spd"}}
	var recs []experiment.Record
	for p, acc := range [][2]float64{{0.80, 0.82}, {0.84, 0.85}} {
		recs = append(recs,
			experiment.Record{Dataset: "heart", Entry: "svm", Method: "svm", Partition: p, Status: "converged", TestAccuracy: acc[0], NSV: 100, TrainSize: 170, TestSize: 100, Grid: grid},
			experiment.Record{Dataset: "heart", Entry: "spd", Method: "spd", Partition: p, Status: "converged", TestAccuracy: acc[1], NSV: 90, TrainSize: 170, TestSize: 100, Grid: grid})
	}
	return recs
}

// The HTML page of a comparison: htmlreport.Write writes it as one
// self-contained file.
func ExampleHTMLPage() {
	recs := exampleRecords()
	sum := report.Summarize(recs, report.SummaryOptions{})
	page, err := report.HTMLPage(sum, recs, nil, report.PageSettings{Command: "kerneltune report run.jsonl", Version: "v1.0.0"})
	if err != nil {
		panic(err)
	}
	fmt.Println(page.Title)
	fmt.Println(page.Generated)
	for _, sec := range page.Sections {
		fmt.Printf("%s: %d table(s), %d figure(s)\n", sec.Heading, len(sec.Tables), len(sec.Figures))
	}
	// Output:
	// kerneltune comparison: heart
	// written by kerneltune v1.0.0
	// Test accuracy per partition: 0 table(s), 1 figure(s)
	// heart (2 partitions: 170 train / 100 test, rows of the data not recorded): 1 table(s), 0 figure(s)
	// Bayesian comparisons: 0 table(s), 1 figure(s)
}
