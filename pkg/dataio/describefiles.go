package dataio

import (
	"context"
	"io"
)

// DescribeSettings say how DescribeFiles reads the data sets.
type DescribeSettings struct {
	// Read says how to read each data set. DescribeFiles reads nominal
	// features as category codes and a file with more than two classes
	// without a choice of two (Categorical "codes", AnyClasses), so both
	// can be described, and rows with missing values are counted per
	// column and left out (Missing "count") unless Missing is "drop".
	Read ReadOptions
	// Stdin is read for the path "-".
	Stdin io.Reader
	// FeatureStats computes the per-feature statistics of sparse data too
	// (DescribeStats); dense data always has them.
	FeatureStats bool
}

// Descriptions are DescribeFiles' summaries and errors.
type Descriptions struct {
	// Summaries describe the data sets that could be read, in order.
	Summaries []Summary
	// Errors are those of the data sets that could not be read, in order.
	Errors []error
}

// DescribeFiles reads each data set in paths (LoadArg, stopped by ctx) and describes it
// (Describe): what `kerneltune info` shows. A data set that cannot be read
// is an entry of Errors and the others are still described; the error is
// non-nil only when ctx is done.
func DescribeFiles(ctx context.Context, paths []string, s DescribeSettings) (*Descriptions, error) {
	ro := s.Read
	ro.Categorical, ro.AnyClasses = "codes", true
	if ro.Missing != "drop" {
		ro.Missing = "count"
	}
	var out Descriptions
	for _, path := range paths {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		d, err := loadArg(ctx, path, s.Stdin, ro)
		if ctx.Err() != nil {
			return nil, ctx.Err() // a read the context stopped
		}
		if err != nil {
			out.Errors = append(out.Errors, err)
			continue
		}
		out.Summaries = append(out.Summaries, describe(d, s.FeatureStats))
	}
	return &out, nil
}
