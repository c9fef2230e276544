package dataio

import "strconv"

// DefaultFeatureNames reports whether names are f1, …, fd, the names the
// readers give features when the file names none (no CSV header, LIBSVM
// and IDA files).
func DefaultFeatureNames(names []string) bool {
	for j, n := range names {
		if n != "f"+strconv.Itoa(j+1) {
			return false
		}
	}
	return true
}

// FeatureNameMismatch returns the first feature j (0-based) whose name
// differs between a and b, when both name their features themselves (a CSV
// header: not DefaultFeatureNames) and have the same number of them;
// otherwise, or when every name agrees, it returns -1. A mismatch usually
// means the columns of two files are in different orders.
func FeatureNameMismatch(a, b []string) int {
	if len(a) != len(b) || DefaultFeatureNames(a) || DefaultFeatureNames(b) {
		return -1
	}
	for j := range a {
		if a[j] != b[j] {
			return j
		}
	}
	return -1
}
