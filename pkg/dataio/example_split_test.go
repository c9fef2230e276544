package dataio_test

import (
	"context"
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// LoadSplit reads an embedded data set, holds out a quarter of it as the
// test part and z-scores both parts with the training part's statistics.
func ExampleLoadSplit() {
	tt, err := dataio.LoadSplit(context.Background(), "builtin:heart", dataio.SplitSettings{TestFraction: 0.25, Seed: 1})
	if err != nil {
		panic(err)
	}
	fmt.Println(tt.Train.Len(), "training rows,", tt.Test.Len(), "test rows,", tt.Train.Dim(), "features")
	fmt.Printf("+1 = %q, -1 = %q, normaliser %s\n", tt.Train.Labels.Positive, tt.Train.Labels.Negative, tt.Norm.Kind)
	fmt.Println(tt.Test.Notes[len(tt.Test.Notes)-1])
	// Output:
	// 203 training rows, 67 test rows, 13 features
	// +1 = "1", -1 = "-1", normaliser zscore
	// test part: 67 of 270 rows held out at random (test-fraction=0.25, seed=1)
}

// DescribeFiles describes each data set, as `kerneltune info` does; one that
// cannot be read is an error and the others are still described.
func ExampleDescribeFiles() {
	ds, err := dataio.DescribeFiles(context.Background(), []string{"builtin:heart", "builtin:nosuch"}, dataio.DescribeSettings{})
	if err != nil {
		panic(err)
	}
	s := ds.Summaries[0]
	fmt.Printf("%s: %d rows, %d features, +1 = %q on %d rows, constant features %v\n", s.Name, s.Rows, s.Features, s.Labels.Positive, s.Positive, s.Constant)
	fmt.Println(len(ds.Errors), "error")
	// Output:
	// heart: 270 rows, 13 features, +1 = "1" on 120 rows, constant features []
	// 1 error
}

// OpenDataset opens a dataset as compare does: read, partitioned from the
// seed, with its provenance (the file's SHA-256, the partitions' sizes)
// and its identity (what it is, as against its display name).
func ExampleOpenDataset() {
	spec := dataio.DatasetSpec{Path: "builtin:heart", Partitions: 3, TrainSize: 100, TestSize: 50}
	p, err := dataio.OpenDataset(context.Background(), spec, 1, nil)
	if err != nil {
		panic(err)
	}
	train, test, err := p.Partition(0)
	if err != nil {
		panic(err)
	}
	fmt.Println(p.Name(), p.Len(), "partitions of", train.Len(), "training and", test.Len(), "test rows")
	pv := p.Provenance()
	fmt.Println(pv.SHA256[:12], pv.RowsRead, "rows read")
	// Output:
	// heart 3 partitions of 100 training and 50 test rows
	// 5defa0a4c4c5 270 rows read
}
