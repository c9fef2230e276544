package report

// The partition sizes of a dataset's table, from its records alone: a
// table of 100-row partitions of a 32,561-row file says so in its title.

import (
	"fmt"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/experiment"
)

// PartitionSizes are a dataset's partition sizes and the rows they were
// drawn from, as its records say: Train and Test are the rows of a
// partition's training and test parts (the smallest over the records;
// TrainMax and TestMax, when larger, the largest), Rows the rows of the
// data file the partitions were drawn from (its provenance's rows used;
// 0 when the records do not say: records older than provenance, or
// generated data). TestFile is a given test file (--test), whose rows are
// every partition's test part; Generated says the data were drawn afresh
// for every partition (a preset), with no file.
type PartitionSizes struct {
	Train    int    `json:"train_size"`
	TrainMax int    `json:"train_size_max,omitempty"`
	Test     int    `json:"test_size"`
	TestMax  int    `json:"test_size_max,omitempty"`
	Rows     int    `json:"rows,omitempty"`
	TestFile string `json:"test_file,omitempty"`
	// Generated: a preset's data, drawn afresh for every partition.
	Generated bool `json:"generated,omitempty"`
}

// partitionSizes are the sizes of the records of one dataset (by entry),
// pv their provenance (nil for none); nil when no record has a partition.
func partitionSizes(groups map[string][]experiment.Record, pv *experiment.Provenance) *PartitionSizes {
	var z *PartitionSizes
	generated := false
	for _, rs := range groups {
		for _, r := range rs {
			generated = generated || r.DatasetIdentity != nil && r.DatasetIdentity.Preset != ""
			if r.TrainSize == 0 && r.TestSize == 0 {
				continue // failed before its partition was drawn
			}
			if z == nil {
				z = &PartitionSizes{Train: r.TrainSize, TrainMax: r.TrainSize, Test: r.TestSize, TestMax: r.TestSize}
			}
			z.Train, z.TrainMax = min(z.Train, r.TrainSize), max(z.TrainMax, r.TrainSize)
			z.Test, z.TestMax = min(z.Test, r.TestSize), max(z.TestMax, r.TestSize)
		}
	}
	if z == nil {
		return nil
	}
	if z.TrainMax == z.Train {
		z.TrainMax = 0
	}
	if z.TestMax == z.Test {
		z.TestMax = 0
	}
	z.Generated = generated
	if pv != nil && pv.Data != nil {
		z.Rows, z.TestFile = pv.Data.RowsUsed, pv.Data.Test
	}
	return z
}

// orZero is z, or the zero sizes (nothing recorded) for nil.
func (z *PartitionSizes) orZero() PartitionSizes {
	if z == nil {
		return PartitionSizes{}
	}
	return *z
}

// SizesText says a table's partition sizes, as its title does: "100 train
// / 100 test of 32,561 rows"; with a test file "1,605 train of 1,605 rows /
// 30,956 test in a1a.t"; "sizes not recorded" when the records do not say,
// and of rows the records do not give, that they are not recorded.
func (z *PartitionSizes) SizesText() string {
	if z == nil {
		return "sizes not recorded"
	}
	train := thousands(z.Train) + maxPart(z.TrainMax) + " train"
	test := thousands(z.Test) + maxPart(z.TestMax) + " test"
	switch {
	case z.TestFile != "" && z.Rows > 0:
		return fmt.Sprintf("%s of %s rows / %s in %s", train, thousands(z.Rows), test, filepath.Base(z.TestFile))
	case z.TestFile != "":
		return fmt.Sprintf("%s / %s in %s", train, test, filepath.Base(z.TestFile))
	case z.Generated:
		return train + " / " + test + ", drawn afresh for each partition"
	case z.Rows > 0:
		return fmt.Sprintf("%s / %s of %s rows", train, test, thousands(z.Rows))
	}
	return train + " / " + test + ", rows of the data not recorded"
}

// maxPart is "–MAX" for a size that varies up to max (0: it does not).
func maxPart(max int) string {
	if max == 0 {
		return ""
	}
	return "–" + thousands(max)
}

// thousands writes n with a comma between thousands: 32,561.
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// sizesNote is the line of a table over datasets that says each one's
// partition sizes: "partitions: heart 60 train / 60 test of 270 rows; …".
func sizesNote(tables []DatasetTable) string {
	parts := make([]string, len(tables))
	for i := range tables {
		parts[i] = tables[i].Dataset + " " + tables[i].Sizes.SizesText()
	}
	return "partitions: " + strings.Join(parts, "; ")
}
