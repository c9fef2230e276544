package report_test

import (
	"os"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/report"
)

// WriteInfo writes what `kerneltune info` prints for described data sets:
// here a three-row CSV with its feature statistics.
func ExampleWriteInfo() {
	d, err := dataio.LoadReader(strings.NewReader("x,label\n1,yes\n2,no\n4,yes\n"), "tiny.csv", dataio.ReadOptions{})
	if err != nil {
		panic(err)
	}
	sums := []dataio.Summary{dataio.Describe(d)}
	_ = report.WriteInfo(os.Stdout, report.FormatMarkdown, sums, report.InfoSettings{FeatureStats: true})
	// Output:
	// **tiny — tiny.csv**
	//
	// | property          | value                                                            |
	// |:------------------|:-----------------------------------------------------------------|
	// | format            | csv                                                              |
	// | rows              | 3                                                                |
	// | features          | 1                                                                |
	// | +1 = "yes"        | 2 (66.7%)                                                        |
	// | -1 = "no"         | 1 (33.3%)                                                        |
	// | value range       | [1, 4]                                                           |
	// | constant features | none                                                             |
	// | duplicate rows    | 0 (same features as an earlier row)                              |
	// | both labels       | 0 feature vectors on 0 rows                                      |
	// | sha256            | 929c910fec9738dfadd8e90f31b46e1e2e432a0b09b996b52310d2e55461462f |
	//
	// **features of tiny**
	//
	// | # | name | min | max |    mean |     std |
	// |--:|:-----|----:|----:|--------:|--------:|
	// | 1 | x    |   1 |   4 | 2.33333 | 1.24722 |
}
