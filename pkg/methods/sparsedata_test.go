package methods

import (
	"errors"
	"maps"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// textRows is a small text-like dataset held in compressed rows and the
// same rows held dense.
func textRows(t *testing.T) (sp, de *dataio.Dataset) {
	t.Helper()
	sp = dataio.TextLike(120, 1500, 20, rand.New(rand.NewPCG(46, 4)))
	if sp.Sparse == nil {
		t.Fatal("TextLike gave dense rows")
	}
	de = &dataio.Dataset{X: sp.Sparse.ToDense(), Y: sp.Y}
	return sp, de
}

// TestSquaredDistancesCSR: the squared distances the CV's dense route
// computes from compressed rows (the linear Gram on the non-zeros) are the
// dense rows' to 1e-12, and 0 on the diagonal.
func TestSquaredDistancesCSR(t *testing.T) {
	sp, de := textRows(t)
	got, want := kernel.SquaredDistances(sp.Sparse), kernel.SquaredDistances(de.X)
	n := got.SymmetricDim()
	worst := 0.0
	for i := range n {
		if got.At(i, i) != 0 {
			t.Fatalf("D[%d][%d] = %g", i, i, got.At(i, i))
		}
		for j := range n {
			worst = math.Max(worst, math.Abs(got.At(i, j)-want.At(i, j)))
		}
	}
	if worst > 1e-12 {
		t.Errorf("largest difference %g", worst)
	}
	if v := want.At(0, 1); !(v > 0.5) {
		t.Errorf("D[0][1] = %g: unit rows with few common words are far apart", v)
	}
}

// TestSpreadCSR: rcsc's γ0 = n/Σ‖x_i − x̄‖² from compressed rows is the
// dense rows' to 1e-12 relative.
func TestSpreadCSR(t *testing.T) {
	sp, de := textRows(t)
	g1, err1 := rcscGamma0(sp.Sparse)
	g2, err2 := rcscGamma0(de.X)
	if err1 != nil || err2 != nil {
		t.Fatal(err1, err2)
	}
	if math.Abs(g1-g2) > 1e-12*g2 || !(g2 > 0) {
		t.Errorf("γ0 %g from compressed rows, %g dense", g1, g2)
	}
}

// TestFeaturesKeySparse: the key of compressed rows follows their values
// and differs from the same rows' dense key; a dense key is matKey's.
func TestFeaturesKeySparse(t *testing.T) {
	sp, de := textRows(t)
	k1 := featuresKey(sp).sum()
	if k1 != featuresKey(sp).sum() || k1 == featuresKey(de).sum() || featuresKey(de).sum() != matKey(de.X).sum() {
		t.Fatal("keys")
	}
	ind, val := sp.Sparse.Row(3)
	val = append([]float64(nil), val...)
	val[0] += 1e-9
	ptr := []int{0, len(ind)}
	one, err := sparse.New(1, 1500, ptr, ind, val)
	if err != nil {
		t.Fatal(err)
	}
	other := &dataio.Dataset{Sparse: one, Y: []float64{1}}
	mine := &dataio.Dataset{Sparse: sp.Sparse.SelectRows([]int{3}), Y: []float64{1}}
	if featuresKey(other).sum() == featuresKey(mine).sum() {
		t.Error("a changed value keeps the key")
	}
	if gridKey(sp, Common{}, Space{}) == gridKey(de, Common{}, Space{}) {
		t.Error("the memo's key of compressed rows is the dense rows'")
	}
}

// TestCheckSparseRegistry: every method and parameterisation of the
// registry either learns on compressed rows (the five listed) or is
// refused by a *SparseError naming its features and the storage rule's
// limit; dense data is never refused.
func TestCheckSparseRegistry(t *testing.T) {
	sp, de := textRows(t)
	runs := map[string]bool{"svm iso": true, "random iso": true, "halving iso": true, "bo iso": true, "rcsc iso": true}
	for _, in := range All {
		for _, p := range in.Params {
			s, err := New(in.Name, p, "")
			if err != nil {
				t.Fatal(err)
			}
			if err := CheckSparse(s, de); err != nil {
				t.Errorf("%s %s refuses dense rows: %v", in.Name, p, err)
			}
			err = CheckSparse(s, sp)
			var se *SparseError
			switch {
			case runs[in.Name+" "+p] && err != nil:
				t.Errorf("%s %s: %v", in.Name, p, err)
			case !runs[in.Name+" "+p] && (!errors.As(err, &se) || se.Features != 1500 || se.Limit != dataio.SparseMinFeatures || se.Param != p || !errors.Is(err, ErrSparseData)):
				t.Errorf("%s %s: %#v", in.Name, p, err)
			}
		}
	}
	if got := SparseMethods(); len(got) != 5 || got[0] != "svm" || got[1] != "rcsc iso" || got[4] != "bo iso" {
		t.Errorf("SparseMethods = %q", got)
	}
}

// TestSparseWidth: the memory estimates read 20,000 rows of 1.3 million
// non-zeros as 99 values a row (12 bytes a non-zero and 8 a row), not
// 47,236.
func TestSparseWidth(t *testing.T) {
	if w := SparseWidth(20_000, 1_300_000); w != 99 {
		t.Errorf("SparseWidth = %d, want 99", w)
	}
	if w := SparseWidth(10, 0); w != 2 { // the 11 row pointers' 88 bytes
		t.Errorf("no non-zeros: %d", w)
	}
	sp, de := textRows(t)
	if MemWidth(de) != 1500 || MemWidth(sp) != SparseWidth(120, int64(sp.Sparse.NNZ())) {
		t.Error("MemWidth")
	}
}

// TestSpreadWideCSR: rcsc's spread Σ‖x_i − x̄‖² on rows of hashed features
// (67 million columns, 20 set a row) holds the features set only — it
// allocated two arrays of 67 million before (1 GB in a `tune --method
// rcsc` of 3,000 such rows) — and gives spreadCSR's bits on text rows.
func TestSpreadWideCSR(t *testing.T) {
	ds := dataio.TextLike(400, 3000, 30, rand.New(rand.NewPCG(7, 7)))
	if a, b := spreadWideCSR(ds.Sparse), spreadCSR(ds.Sparse); math.Float64bits(a) != math.Float64bits(b) || !(a > 0) {
		t.Fatalf("spread of text rows: %v held by the features set, %v by all", a, b)
	}
	const n, d = 2000, 67_000_000
	rng := rand.New(rand.NewPCG(67, 2))
	ptr := []int{0}
	var ind []int32
	var val []float64
	for i := 0; i < n; i++ {
		row := map[int32]bool{}
		for len(row) < 20 {
			row[int32(rng.IntN(d))] = true
		}
		for _, k := range slices.Sorted(maps.Keys(row)) {
			ind = append(ind, k)
			val = append(val, rng.Float64())
		}
		ptr = append(ptr, len(ind))
	}
	X, err := sparse.New(n, d, ptr, ind, val)
	if err != nil {
		t.Fatal(err)
	}
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	got := spreadCSR(X)
	runtime.ReadMemStats(&after)
	if a := after.TotalAlloc - before.TotalAlloc; a > 16<<20 {
		t.Errorf("spread of %d rows × %d features (%d non-zeros): %d MB allocated, want ≤ 16 MB", n, d, len(ind), a>>20)
	}
	if want := spreadWideCSR(X); math.Float64bits(got) != math.Float64bits(want) || !(got > 0) {
		t.Errorf("spread %v, want %v", got, want)
	}
}
