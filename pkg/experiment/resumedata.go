package experiment

// Resuming a results file whose records are of the same run but for the
// identity of a dataset: its data, read, partitioned or normalised
// otherwise (another --positive, --label-col, --features; the file
// edited). The error names the dataset and what differs.

import (
	"fmt"
	"strings"
)

// OtherDataError is a results file to resume whose records of Dataset are
// of another dataset than the one now opened under that name: other data,
// read, partitioned or normalised otherwise. Diff names what differs, one
// "FIELD: the records' → now" each by the field's JSON path in the
// dataset's identity ("read.labels.positive"), sorted.
type OtherDataError struct {
	Path, Dataset string
	Diff          []string
}

func (e *OtherDataError) Error() string {
	return fmt.Sprintf("%s holds records of dataset %s that are not of %s as it is now read: %s",
		e.Path, e.Dataset, e.Dataset, strings.Join(e.Diff, "; "))
}

func (e *OtherDataError) Unwrap() error { return ErrMixedRuns }

// dataDiff lists what differs between a record's dataset identity (was)
// and the dataset's now, "FIELD: was → now", sorted.
func dataDiff(was, now DatasetIdentity) []string {
	return diffFlat(flatJSON(was), flatJSON(now), func(k, a, b string) string {
		return fmt.Sprintf("%s: %s → %s", k, a, b)
	})
}
