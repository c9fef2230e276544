package dataio

import (
	"errors"
	"strings"
	"testing"
)

// TestLIBSVMTooManyFeatures: a sparse file whose rows × features pass the
// dense limit is refused with the reason (rows are held dense) and what
// fits, not an out-of-memory.
func TestLIBSVMTooManyFeatures(t *testing.T) {
	data := []byte("1 1:1 40000:2\n-1 3:1\n1 7:0.5\n")
	_, err := parseLIBSVM(data, "text.libsvm", ReadOptions{MaxCells: 100_000})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	for _, want := range []string{"text.libsvm", "3 rows × 40000 features", "holds the rows dense", "at most 2 rows of 40000 features"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
