package kernel

import (
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// wideOf returns the rows of X (features < 65,536) as compressed rows of d
// features: the same entries, a wider matrix.
func wideOf(t *testing.T, X *sparse.CSR, d int) *sparse.CSR {
	t.Helper()
	n, _ := X.Dims()
	ptr := []int{0}
	var ind []int32
	var val []float64
	for i := 0; i < n; i++ {
		k, v := X.Row(i)
		ind = append(ind, k...)
		val = append(val, v...)
		ptr = append(ptr, len(ind))
	}
	W, err := sparse.New(n, d, ptr, ind, val)
	if err != nil {
		t.Fatal(err)
	}
	return W
}

// TestWideCSRSameBits: on rows of 10 million features with few non-zeros
// the sparse route numbers only the features set (wideCSR), and every
// kernel entry — a column whole and through idx, a Gram, a block against
// other rows (with features the route's rows never set), a pair's rows
// through RowsAt — has the bits of the same rows held 2,000 features wide,
// for the isotropic Gaussian and the linear kernel.
func TestWideCSRSameBits(t *testing.T) {
	X, _ := textLike(t, 300)
	Q, _ := textLike(t, 40) // the same generator: the rows' features overlap X's
	const d = 10_000_000
	wide, wq := wideOf(t, X, d), wideOf(t, Q, d)
	narrow, nq := wideOf(t, X, 65536), wideOf(t, Q, 65536)
	if !wideCSR(wide, nil, d) || wideCSR(narrow, nil, 65536) {
		t.Fatal("wideCSR does not tell the two layouts apart")
	}
	iso, err := NewGaussianIso(0.8)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []Kernel{iso, Linear{}} {
		w, nr := k.Rows(wide).(*sparseRows), k.Rows(narrow).(*sparseRows)
		if w.colOf == nil || len(w.colPtr) > 2100 || nr.colOf != nil {
			t.Fatalf("%T: wide route colOf %v with %d column starts; narrow colOf %v", k, w.colOf != nil, len(w.colPtr), nr.colOf != nil)
		}
		sameBits(t, "column", columns(w), columns(nr))
		idx := []int{7, 3, 250, 11}
		for _, i := range []int{0, 120, 299} {
			a, b := make([]float64, len(idx)), make([]float64, len(idx))
			w.Column(i, idx, a)
			nr.Column(i, idx, b)
			sameBits(t, "column through idx", [][]float64{a}, [][]float64{b})
		}
		sameBits(t, "gram", entries(k.Gram(wide)), entries(k.Gram(narrow)))
		sameBits(t, "cross", entries(k.Cross(wq, wide)), entries(k.Cross(nq, narrow)))
		pair := []int{5, 9, 40, 41, 200, 299}
		sameBits(t, "rows at", columns(RowsAt(k, wide, pair)), columns(RowsAt(k, narrow, pair)))
	}
}

// TestWideCSRMemory: the route on 2,000 rows of 67 million features at 20
// non-zeros a row allocates in proportion to its non-zeros (about 1 MB of
// entries and columns), not to its features (two arrays of 67 million ints,
// 1 GB, before).
func TestWideCSRMemory(t *testing.T) {
	const n, d, per = 2000, 67_000_000, 20
	rng := rand.New(rand.NewPCG(67, 1))
	ptr := []int{0}
	var ind []int32
	var val []float64
	for i := 0; i < n; i++ {
		seen := map[int32]bool{}
		var row []int32
		for len(row) < per {
			k := int32(rng.IntN(d))
			if !seen[k] {
				seen[k] = true
				row = append(row, k)
			}
		}
		slices.Sort(row)
		for _, k := range row {
			ind = append(ind, k)
			val = append(val, rng.Float64())
		}
		ptr = append(ptr, len(ind))
	}
	X, err := sparse.New(n, d, ptr, ind, val)
	if err != nil {
		t.Fatal(err)
	}
	iso, err := NewGaussianIso(1)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	r := iso.Rows(X)
	runtime.ReadMemStats(&after)
	if got := after.TotalAlloc - before.TotalAlloc; got > 16<<20 {
		t.Fatalf("the sparse route of %d rows × %d features (%d non-zeros) allocated %d MB, want ≤ 16 MB", n, d, n*per, got>>20)
	}
	col := make([]float64, n)
	r.Column(0, nil, col)
	if col[0] != 1 {
		t.Fatalf("K(x_0, x_0) = %v, want 1", col[0])
	}
}
