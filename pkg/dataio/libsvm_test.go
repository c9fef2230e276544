package dataio

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestLIBSVMWideSparseFileIsHeldSparse: a sparse file whose rows × features
// pass the dense limit (it was refused before sparse storage) is read into
// compressed rows, its values where the file put them.
func TestLIBSVMWideSparseFileIsHeldSparse(t *testing.T) {
	data := []byte("1 1:1 40000:2\n-1 3:1\n1 7:0.5\n")
	ds, err := parseLIBSVM(data, "text.libsvm", ReadOptions{MaxCells: 100_000})
	if err != nil {
		t.Fatal(err)
	}
	if !ds.IsSparse() || ds.X != nil {
		t.Fatal("the file is not held sparse")
	}
	if n, d := ds.Dims(); n != 3 || d != 40000 || ds.Sparse.NNZ() != 4 {
		t.Fatalf("%d×%d with %d non-zeros, want 3×40000 with 4", n, d, ds.Sparse.NNZ())
	}
	if ds.Sparse.At(0, 39999) != 2 || ds.Sparse.At(2, 6) != 0.5 || ds.Sparse.At(1, 0) != 0 {
		t.Errorf("values: %v %v %v", ds.Sparse.At(0, 39999), ds.Sparse.At(2, 6), ds.Sparse.At(1, 0))
	}
}

// TestLIBSVMStorageRule: narrow or dense files stay dense (a1a's 123
// features at 11%: results unchanged), wide sparse ones are held sparse,
// and a wide dense file past the limit is refused with what fits.
func TestLIBSVMStorageRule(t *testing.T) {
	var wideDense strings.Builder
	for i := 0; i < 3; i++ {
		wideDense.WriteString([]string{"1", "-1", "1"}[i])
		for j := 1; j <= 1200; j += 3 { // a third of the cells set
			fmt.Fprintf(&wideDense, " %d:1", j)
		}
		wideDense.WriteString("\n")
	}
	for _, tc := range []struct {
		name, data string
		sparse     bool
	}{
		{"narrow and sparse (a1a-like)", "1 1:1 5:1\n-1 100:1\n", false},
		{"wide and sparse", "1 1:1 1500:1\n-1 3:1\n", true},
		{"wide and a third set", wideDense.String(), false},
	} {
		ds, err := parseLIBSVM([]byte(tc.data), "f.libsvm", ReadOptions{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if ds.IsSparse() != tc.sparse {
			t.Errorf("%s: sparse = %v, want %v", tc.name, ds.IsSparse(), tc.sparse)
		}
	}
	_, err := parseLIBSVM([]byte(wideDense.String()), "wide.libsvm", ReadOptions{MaxCells: 2400})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want ErrTooLarge", err)
	}
	for _, want := range []string{"wide.libsvm", "3 rows × 1198 features", "at most 2 rows of 1198 features"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q does not say %q", err, want)
		}
	}
}
