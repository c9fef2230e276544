package dataio

import (
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"

	"gonum.org/v1/gonum/mat"
)

// allocated is the bytes f allocates (runtime.MemStats.TotalAlloc).
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// wideLIBSVM is a LIBSVM file of rows rows with 10 non-zeros each over d
// features (hashed-feature-shaped: kdd2010, url, webspam), the last row
// setting feature d; feature 7 is 3 in every row.
func wideLIBSVM(rows, d int) []byte {
	var b bytes.Buffer
	for i := range rows {
		fmt.Fprintf(&b, "%d 7:3", 2*(i%2)-1)
		for k := 1; k <= 9; k++ {
			j := 8 + k*(d/10) - 37*i%(d/20)
			if i == rows-1 && k == 9 {
				j = d
			}
			fmt.Fprintf(&b, " %d:%g", j, float64((i+k)%5+1)/4)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// Data in compressed rows costs O(non-zeros + features set), not O(d):
// reading a file of 10 million features and 500 non-zeros, describing it,
// fitting and applying its maxabs normaliser each allocate a few hundred
// KB. Before, the reader made 10 million feature names (about 400 MB), the
// column statistics and the normaliser 36 bytes a feature (360 MB), info's
// feature counts 17 (170 MB).
func TestWideSparseCostsNonZeros(t *testing.T) {
	const d, rows = 10_000_000, 50
	data := wideLIBSVM(rows, d)
	const bound = 4 << 20
	var ds *Dataset
	var err error
	if a := allocated(func() { ds, err = ReadLIBSVM(bytes.NewReader(data), "wide", ReadOptions{}) }); err != nil || a > bound {
		t.Fatalf("read: %d bytes allocated (want at most %d), err %v", a, bound, err)
	}
	if !ds.IsSparse() || ds.Dim() != d || ds.Sparse.NNZ() != 10*rows || ds.FeatureNames != nil || ds.FeatureName(d-1) != "f10000000" || ds.FeatureName(6) != "f7" {
		t.Fatalf("read %d×%d, sparse %v, %d names, last %q", ds.Len(), ds.Dim(), ds.IsSparse(), len(ds.FeatureNames), ds.FeatureName(d-1))
	}

	var s Summary
	if a := allocated(func() { s = Describe(ds) }); a > bound {
		t.Errorf("describe: %d bytes allocated", a)
	}
	set := len(slices.Compact(slices.Sorted(slices.Values(ds.Sparse.Ind))))
	if s.Features != d || s.NonZeros != 10*rows || s.UnsetFeatures != d-set || !slices.Equal(s.Constant, []int{7}) || s.ValueRange != [2]float64{0, 3} {
		t.Errorf("describe: %d features, %d non-zeros, %d unset (want %d), constant %v, range %v", s.Features, s.NonZeros, s.UnsetFeatures, d-set, s.Constant, s.ValueRange)
	}

	var nz *Normalizer
	if a := allocated(func() { nz, err = FitNormalizer(MaxAbs, ds.Sparse) }); err != nil || a > bound {
		t.Fatalf("fit: %d bytes allocated, err %v", a, err)
	}
	if !nz.IsSparseForm() || nz.Dim() != d || !slices.Equal(nz.Constant, []int{6}) || nz.Validate() != nil {
		t.Fatalf("fit: sparse form %v, %d features, constant %v, %v", nz.IsSparseForm(), nz.Dim(), nz.Constant, nz.Validate())
	}
	// Feature 7 is shifted by 3 (constant, non-zero); every other set
	// feature is divided by its largest |value|, every unset one kept.
	if sh, sc := nz.At(6); sh != 3 || sc != 1 {
		t.Errorf("feature 7: shift %v, scale %v", sh, sc)
	}
	for j := 0; j < d; j += d / 1000 {
		want := 0.0
		for i := range rows {
			want = max(want, math.Abs(ds.Sparse.At(i, j)))
		}
		if want == 0 || want == 1 {
			want = 1
		}
		if sh, sc := nz.At(j); j != 6 && (sh != 0 || sc != want) {
			t.Fatalf("feature %d: shift %v, scale %v, want 0, %v", j+1, sh, sc, want)
		}
	}

	var norm *Dataset
	if a := allocated(func() { norm, _, _, err = Normalize(MaxAbs, ds, nil, false) }); err != nil || a > bound {
		t.Fatalf("normalise: %d bytes allocated, err %v", a, err)
	}
	if !norm.IsSparse() || norm.Sparse.NNZ() != 9*rows { // feature 7 becomes 0 everywhere
		t.Fatalf("normalised: sparse %v, %d non-zeros", norm.IsSparse(), norm.Sparse.NNZ())
	}
}

// The sparse form of a normaliser has the dense form's numbers, found by
// a lookup table (d small beside the non-zeros) or a search (d large),
// and applies as the dense form does to rows, dense matrices and
// compressed rows.
func TestSparseFormNormalizer(t *testing.T) {
	for _, d := range []int{3000, 150_000} {
		ds, err := ReadLIBSVM(bytes.NewReader(wideLIBSVM(40, d)), "wide", ReadOptions{})
		if err != nil || !ds.IsSparse() {
			t.Fatalf("d = %d: read %v", d, err)
		}
		dense := ds.Sparse.ToDense()
		for _, kind := range []string{MaxAbs, NoScale, MinMax11, ZScore} {
			got, err := FitNormalizer(kind, ds.Sparse)
			if err != nil {
				t.Fatal(err)
			}
			want, _ := FitNormalizer(kind, dense)
			// NoScale's entries are none; maxabs's the 40 rows' features.
			if got.IsSparseForm() != (kind == MaxAbs || kind == NoScale) {
				t.Errorf("d = %d, %s: sparse form %v", d, kind, got.IsSparseForm())
			}
			g := got.DenseForm()
			if !slices.Equal(g.Shift, want.Shift) || !slices.Equal(g.Scale, want.Scale) {
				if kind != ZScore {
					t.Fatalf("d = %d, %s: the fit on compressed rows differs from the dense one", d, kind)
				}
				for j := range g.Scale { // zscore sums its squares in another order
					if math.Abs(g.Scale[j]-want.Scale[j]) > 1e-15*want.Scale[j] || g.Shift[j] != want.Shift[j] {
						t.Fatalf("d = %d, zscore feature %d: %v, %v, dense %v, %v", d, j+1, g.Shift[j], g.Scale[j], want.Shift[j], want.Scale[j])
					}
				}
			}
			if kind == ZScore {
				continue
			}
			if applied := got.ApplyCSR(ds.Sparse).ToDense(); !mat.Equal(applied, want.Apply(dense)) || !mat.Equal(got.Apply(dense), applied) {
				t.Errorf("d = %d, %s: the sparse form applies otherwise than the dense one", d, kind)
			}
			row := make([]float64, d)
			got.ApplyRow(row, dense.RawRowView(3))
			if wrow := want.Apply(dense).RawRowView(3); !slices.Equal(row, wrow) {
				t.Errorf("d = %d, %s: ApplyRow differs", d, kind)
			}
		}
	}
}

// Text data sets and scales most of its vocabulary: its maxabs
// normaliser keeps the dense form, the smaller, and the model files of
// text data are what they were.
func TestTextKeepsDenseNormalizer(t *testing.T) {
	ds := TextLike(300, 2000, 25, rand.New(rand.NewPCG(46, 300)))
	nz, err := FitNormalizer(MaxAbs, ds.Sparse)
	if err != nil || nz.IsSparseForm() || len(nz.Shift) != 2000 || nz.Features != 0 || nz.Index != nil {
		t.Fatalf("text data's maxabs normaliser: sparse form %v, %d shifts, %v", nz.IsSparseForm(), len(nz.Shift), err)
	}
}

// A normaliser's sparse form is checked when read back: entries
// ascending within the dimension, as many shifts and scales as entries,
// and no scales without shifts.
func TestSparseFormValidate(t *testing.T) {
	ok := &Normalizer{Kind: MaxAbs, Features: 10, Index: []int32{2, 5}, IndexShift: []float64{0, 1}, IndexScale: []float64{4, 1}}
	if err := ok.Validate(); err != nil || ok.Dim() != 10 || ok.Identity() {
		t.Fatalf("valid sparse form: %v, dim %d", err, ok.Dim())
	}
	for _, c := range []struct {
		name string
		nz   Normalizer
		want string
	}{
		{"descending", Normalizer{Kind: MaxAbs, Features: 10, Index: []int32{5, 2}, IndexShift: []float64{0, 0}, IndexScale: []float64{1, 2}}, "indexed feature 2 (entry 2) is not ascending within 0 to 9"},
		{"beyond", Normalizer{Kind: MaxAbs, Features: 10, Index: []int32{10}, IndexShift: []float64{0}, IndexScale: []float64{2}}, "indexed feature 10 (entry 1) is not ascending within 0 to 9"},
		{"short", Normalizer{Kind: MaxAbs, Features: 10, Index: []int32{1}, IndexScale: []float64{2}}, "1 features indexed but 0 shifts and 1 scales"},
		{"zero scale", Normalizer{Kind: MaxAbs, Features: 10, Index: []int32{1}, IndexShift: []float64{0}, IndexScale: []float64{0}}, "feature 2 has shift 0, scale 0"},
		{"scales only", Normalizer{Kind: MaxAbs, Features: 10, Scale: []float64{1}}, "scales without shifts"},
		{"both forms", Normalizer{Kind: MaxAbs, Shift: []float64{0}, Scale: []float64{1}, Index: []int32{0}}, "1 shifts and sparse-form entries besides them"},
		{"both forms' sizes", Normalizer{Kind: MaxAbs, Shift: []float64{0}, Scale: []float64{1}, Features: 10}, "1 shifts and sparse-form entries besides them"},
	} {
		if err := c.nz.Validate(); err == nil || err.Error() != "check normaliser: "+c.want {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
}
