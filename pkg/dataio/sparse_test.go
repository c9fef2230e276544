package dataio

import (
	"math"
	"math/rand/v2"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// SparseBinary mirrors a1a: 123 binary features, at most one 1 per one-hot
// group, 12–14 ones per row, about a quarter of the rows +1, the same data
// from the same seed.
func TestSparseBinary(t *testing.T) {
	const n = 4000
	d := SparseBinary(n, rand.New(rand.NewPCG(1, 2)))
	if d.Len() != n || d.Dim() != SparseFeatures || len(d.FeatureNames) != SparseFeatures {
		t.Fatalf("%d×%d", d.Len(), d.Dim())
	}
	total := 0
	for _, s := range sparseGroups {
		total += s
	}
	if total != SparseFeatures {
		t.Fatalf("group sizes sum to %d", total)
	}
	ones := 0
	for i := range n {
		row := d.X.RawRowView(i)
		rowOnes, off := 0, 0
		for g, size := range sparseGroups {
			inGroup := 0
			for _, v := range row[off : off+size] {
				switch v {
				case 1:
					inGroup++
				case 0:
				default:
					t.Fatalf("row %d: value %v, want 0 or 1", i, v)
				}
			}
			if inGroup > 1 {
				t.Fatalf("row %d, group %d: %d ones", i, g, inGroup)
			}
			rowOnes += inGroup
			off += size
		}
		if rowOnes < 9 || rowOnes > 14 {
			t.Fatalf("row %d has %d ones", i, rowOnes)
		}
		ones += rowOnes
	}
	// 14 groups, each present with probability 0.96: 13.44 ones per row, sd
	// of the mean over 4000 rows ≈ 0.006.
	if mean := float64(ones) / n; math.Abs(mean-13.44) > 0.05 {
		t.Errorf("%.3f ones per row, want 13.44", mean)
	}
	// P(+1) = 0.25: sd of the fraction ≈ 0.007.
	pos, _ := d.ClassCounts()
	if f := float64(pos) / n; math.Abs(f-0.25) > 0.025 {
		t.Errorf("%.3f of the rows are +1, want 0.25", f)
	}
	again := SparseBinary(n, rand.New(rand.NewPCG(1, 2)))
	if !mat.Equal(d.X, again.X) {
		t.Error("same seed, different data")
	}
	other := SparseBinary(n, rand.New(rand.NewPCG(2, 2)))
	if mat.Equal(d.X, other.X) {
		t.Error("different seeds, same data")
	}
}
