package dataio

import (
	"bytes"
	"context"
	"errors"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// textFile writes TextLike(n, d, nnz) as a LIBSVM file in a temporary
// directory and returns its path.
func textFile(t *testing.T, n, d, nnz int, seed uint64) string {
	t.Helper()
	var b bytes.Buffer
	if err := WriteLIBSVM(&b, TextLike(n, d, nnz, rand.New(rand.NewPCG(seed, 7)))); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "text.svm")
	if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestStorageOption(t *testing.T) {
	narrow := "1 1:1 5:1\n-1 100:1\n" // 100 features: dense by the rule
	for _, tc := range []struct {
		storage string
		sparse  bool
	}{{"", false}, {StorageAuto, false}, {StorageDense, false}, {StorageSparse, true}} {
		d, err := parseLIBSVM([]byte(narrow), "n.svm", ReadOptions{Storage: tc.storage})
		if err != nil {
			t.Fatalf("storage %q: %v", tc.storage, err)
		}
		if d.IsSparse() != tc.sparse {
			t.Errorf("storage %q: sparse = %v, want %v", tc.storage, d.IsSparse(), tc.sparse)
		}
		if n, p := d.Dims(); n != 2 || p != 100 {
			t.Errorf("storage %q: %d×%d, want 2×100", tc.storage, n, p)
		}
		if tc.sparse && (d.Sparse.NNZ() != 3 || d.Sparse.At(0, 4) != 1 || d.Sparse.At(1, 99) != 1) {
			t.Errorf("storage sparse: %d non-zeros %v %v", d.Sparse.NNZ(), d.Sparse.Ind, d.Sparse.Val)
		}
	}
	// Wide and sparse: the rule holds it sparse; dense is refused past the
	// limit, naming the sparse storage.
	wide := "1 1:1 1500:1\n-1 3:1\n-1 2:1\n"
	if d, err := parseLIBSVM([]byte(wide), "w.svm", ReadOptions{Storage: StorageDense}); err != nil || d.IsSparse() {
		t.Fatalf("storage dense: %v", err)
	}
	_, err := parseLIBSVM([]byte(wide), "w.svm", ReadOptions{Storage: StorageDense, MaxCells: 3000})
	var de *DenseLimitError
	if !errors.As(err, &de) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want a *DenseLimitError matching ErrTooLarge", err)
	}
	if de.Rows != 3 || de.Features != 1500 || de.MaxRows != 2 || de.NonZeros != 4 {
		t.Errorf("%+v", de)
	}
	want := "w.svm: 3 rows × 1500 features exceed the limit of 3000 values of dense data (at most 2 rows of 1500 features); its 4 non-zeros (0.0889% of the cells) fit in compressed rows: read it with storage=sparse"
	if err.Error() != want {
		t.Errorf("err =\n%s\nwant\n%s", err, want)
	}
	if d, err := parseLIBSVM([]byte(wide), "w.svm", ReadOptions{MaxCells: 3000}); err != nil || !d.IsSparse() {
		t.Errorf("auto past the dense limit: %v", err)
	}
	// Sparse storage is LIBSVM's: a CSV file is refused, naming it.
	_, err = readBytes([]byte("a,b,y\n1,0,1\n0,1,0\n"), "x.csv", ReadOptions{Storage: StorageSparse})
	var se *StorageError
	if !errors.As(err, &se) || se.Format != "csv" {
		t.Fatalf("csv, storage sparse: %v", err)
	}
	if want := "x.csv: storage=sparse holds a LIBSVM file in compressed rows; a CSV file is read into dense rows (write it as LIBSVM to keep only its non-zeros, or read it with storage=auto)"; err.Error() != want {
		t.Errorf("err = %s", err)
	}
	if _, err := ReadLIBSVM(strings.NewReader(narrow), "x", ReadOptions{Storage: "csr"}); err == nil || !strings.Contains(err.Error(), `unknown storage "csr"`) {
		t.Errorf("storage csr: %v", err)
	}
}

// Every entry point of dataio that reads features, on text-like data held
// sparse, against the same file read dense: the same numbers, and nothing
// panics on the nil X.
func TestSparseEntryPoints(t *testing.T) {
	path := textFile(t, 300, 2000, 15, 1)
	ctx := context.Background()
	sp, err := Load(path, ReadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	dn, err := Load(path, ReadOptions{Storage: StorageDense})
	if err != nil {
		t.Fatal(err)
	}
	if !sp.IsSparse() || sp.X != nil || dn.IsSparse() || !mat.Equal(sp.Sparse.ToDense(), dn.X) {
		t.Fatal("the sparse and the dense read differ")
	}

	// Describe.
	ss, ds := DescribeStats(sp), Describe(dn)
	if ss.Storage != StorageSparse || ds.Storage != StorageDense || ss.NonZeros != int64(sp.Sparse.NNZ()) || ss.NonZeros != ds.NonZeros ||
		ss.Density != ds.Density || ss.ValueRange != ds.ValueRange || ss.DuplicateRows != ds.DuplicateRows ||
		ss.ConflictingRows != ds.ConflictingRows || ss.Positive != ds.Positive {
		t.Errorf("sparse %+v\ndense %+v", ss, ds)
	}
	if ss.UnsetFeatures == 0 || ss.UnsetFeatures+len(ss.Constant) != len(ds.Constant) {
		t.Errorf("%d unset + %d constant, dense %d constant", ss.UnsetFeatures, len(ss.Constant), len(ds.Constant))
	}
	if len(ss.Stats) != 2000 || Describe(sp).Stats != nil {
		t.Errorf("%d stats (Describe: %d)", len(ss.Stats), len(Describe(sp).Stats))
	}
	for j, f := range ss.Stats {
		g := ds.Stats[j]
		if f.Min != g.Min || f.Max != g.Max || f.Mean != g.Mean || math.Abs(f.Std-g.Std) > 1e-12*g.Std || f.Name != g.Name {
			t.Fatalf("feature %d: sparse %+v, dense %+v", j+1, f, g)
		}
	}

	// OpenDataset: random stratified partitions, each part sparse.
	spec := DatasetSpec{Path: path, Partitions: 3, TrainSize: 100, TestSize: 100, Stratified: true}
	p, err := OpenDataset(ctx, spec, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	spec.Read.Storage = StorageDense
	q, err := OpenDataset(ctx, spec, 5, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k := range p.Len() {
		tr, te, err := p.Partition(k)
		if err != nil {
			t.Fatal(err)
		}
		qtr, qte, _ := q.Partition(k)
		if !tr.IsSparse() || !te.IsSparse() || tr.Len() != 100 || te.Len() != 100 || !mat.Equal(tr.Sparse.ToDense(), qtr.X) || !mat.Equal(te.Sparse.ToDense(), qte.X) {
			t.Fatalf("partition %d differs from the dense read's", k)
		}
		// auto is maxabs on sparse data, and the parts stay sparse.
		ntr, nte, norm, err := Normalize(Auto, tr, te, false)
		if err != nil {
			t.Fatal(err)
		}
		qntr, qnte, qnorm, _ := Normalize(Auto, qtr, qte, false)
		// The dense normaliser lists every constant feature; the sparse
		// one leaves out those no training row sets.
		set := tr.Sparse.ColumnNNZ()
		wantConstant := []int{}
		for _, j := range qnorm.Constant {
			if set[j] > 0 {
				wantConstant = append(wantConstant, j)
			}
		}
		if len(qnorm.Constant) == 0 || len(wantConstant) == len(qnorm.Constant) {
			t.Fatalf("partition %d: the test data have no unset feature to leave out", k)
		}
		if norm.Kind != MaxAbs || qnorm.Kind != MaxAbs || !ntr.IsSparse() || !nte.IsSparse() || !slices.Equal(norm.DenseForm().Scale, qnorm.Scale) ||
			!slices.Equal(append([]int{}, norm.Constant...), wantConstant) || !mat.Equal(ntr.Sparse.ToDense(), qntr.X) || !mat.Equal(nte.Sparse.ToDense(), qnte.X) {
			t.Fatalf("partition %d: maxabs on compressed rows differs from the dense one", k)
		}
		if !mat.Equal(tr.Sparse.ToDense(), qtr.X) {
			t.Fatal("Normalize changed the parts it was not to own")
		}
	}
	if pv := p.Provenance(); pv.Features != 2000 || pv.RowsUsed != 300 || pv.SHA256 != sp.SHA256 {
		t.Errorf("provenance %+v", pv)
	}
	folds := StratifiedKFold(sp.Strata(), 5, 1, FoldStream)
	if f := sp.Subset(folds[0].Test); !f.IsSparse() || f.Len() != len(folds[0].Test) {
		t.Error("a fold of sparse data is not sparse")
	}

	// A single fit: a test fraction held out, normalised in place.
	for _, kind := range []string{Auto, MaxAbs, NoScale, ZScore, MinMax11} {
		tt, err := LoadSplit(ctx, path, SplitSettings{TestFraction: 0.25, Seed: 3, Normalize: kind})
		if err != nil {
			t.Fatal(err)
		}
		ref, _ := LoadSplit(ctx, path, SplitSettings{TestFraction: 0.25, Seed: 3, Normalize: kind, Read: ReadOptions{Storage: StorageDense}})
		keeps := kind == Auto || kind == MaxAbs || kind == NoScale
		if tt.Train.IsSparse() != keeps || tt.Test.IsSparse() != keeps || tt.Train.Len() != 225 || tt.Test.Len() != 75 || !tt.UnitRange {
			t.Fatalf("%s: sparse %v, %d + %d rows, unit range %v", kind, tt.Train.IsSparse(), tt.Train.Len(), tt.Test.Len(), tt.UnitRange)
		}
		// The same numbers as the dense read's, bit for bit.
		dense := func(d *Dataset) *mat.Dense {
			if d.IsSparse() {
				return d.Sparse.ToDense()
			}
			return d.X
		}
		if !mat.Equal(dense(tt.Train), ref.Train.X) || !mat.Equal(dense(tt.Test), ref.Test.X) || !slices.Equal(tt.Norm.DenseForm().Shift, ref.Norm.Shift) || !slices.Equal(tt.Norm.DenseForm().Scale, ref.Norm.Scale) {
			t.Errorf("%s: the sparse read's fit differs from the dense read's", kind)
		}
	}
	// Shifting normalisations densify only within the bound.
	_, err = LoadSplit(ctx, path, SplitSettings{Normalize: ZScore, Read: ReadOptions{MaxCells: 500000}})
	var dfe *DensifyError
	if !errors.As(err, &dfe) || dfe.Kind != ZScore || dfe.Cells != 600000 || dfe.MaxCells != 500000 {
		t.Fatalf("zscore past the dense limit: %v", err)
	}
	if w := dfe.Words(); !slices.Contains(w, any(hint.S("normalize", MaxAbs))) || !slices.Contains(w, any(hint.S("normalize", NoScale))) {
		t.Errorf("the hint does not name maxabs and none: %v", w)
	}
	_, err = LoadSplit(ctx, path, SplitSettings{Normalize: MinMax01, Read: ReadOptions{MemBytes: 8 << 20}})
	if !errors.As(err, &dfe) || dfe.Need != 3*8*600000 || dfe.Bound != 8<<20 {
		t.Fatalf("minmax01 past the memory bound: %v", err)
	}
	if want := "minmax01 normalisation shifts every feature, so no zero stays zero: the 300 rows × 2000 features of sparse data would become 600000 dense values, about 14 MB, more than fits in the memory bound of 8 MB; keep the data sparse with normalize=maxabs (x / max|x| per feature, zeros stay zeros) or normalize=none"; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("err = %v", err)
	}

	// One-hot: nothing to encode passes sparse data as it is; an encoder
	// refuses it by name rather than densify it.
	if tr, te, err := EncodeOneHot(sp, sp); err != nil || tr != sp || te != sp {
		t.Errorf("EncodeOneHot: %v", err)
	}
	enc := &OneHot{InputFeatures: 2000}
	var spe *SparseError
	if _, err := enc.Apply(sp); !errors.As(err, &spe) || spe.Rows != 300 || spe.Features != 2000 {
		t.Errorf("OneHot.Apply: %v", err)
	}
	// Writing: CSV writes every value, as of the dense read.
	var a, b bytes.Buffer
	if err := WriteCSV(&a, sp); err != nil {
		t.Fatal(err)
	}
	if err := WriteCSV(&b, dn); err != nil || a.String() != b.String() {
		t.Errorf("WriteCSV of sparse data differs from the dense data's (%v)", err)
	}
	if sub := sp.Subset([]int{3, 1}); !sub.IsSparse() || sub.Sparse.At(1, int(sp.Sparse.Ind[sp.Sparse.Ptr[1]])) != sp.Sparse.Val[sp.Sparse.Ptr[1]] {
		t.Error("Subset of sparse data")
	}
}

// A test file of sparse training data is read at the training file's
// width and storage: a narrower one as it is, one with higher indices with
// those values left out and noted.
func TestSparseTestFile(t *testing.T) {
	dir := t.TempDir()
	train := filepath.Join(dir, "train.svm")
	var b strings.Builder
	for i := range 40 {
		b.WriteString([]string{"1 1:0.5 ", "-1 2:0.25 "}[i%2])
		b.WriteString("1500:1\n")
	}
	if err := os.WriteFile(train, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	narrow := filepath.Join(dir, "narrow.svm")
	wide := filepath.Join(dir, "wide.svm")
	os.WriteFile(narrow, []byte("1 1:1\n-1 2:1 3:1\n"), 0o644)
	os.WriteFile(wide, []byte("1 1:1 1600:2 1700:3\n-1 2:1\n-1 1800:1\n"), 0o644)
	ctx := context.Background()
	p, err := OpenDataset(ctx, DatasetSpec{Path: train, Test: narrow, Single: true}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if !p.Test.IsSparse() || p.Test.Dim() != 1500 || p.Test.Sparse.NNZ() != 3 {
		t.Fatalf("narrow test file: sparse %v, %d features", p.Test.IsSparse(), p.Test.Dim())
	}
	p, err = OpenDataset(ctx, DatasetSpec{Path: train, Test: wide}, 1, nil)
	if err != nil {
		t.Fatal(err)
	}
	if p.Test.Dim() != 1500 || p.Test.Sparse.NNZ() != 2 || p.Test.Len() != 3 {
		t.Fatalf("wide test file: %d features, %d non-zeros, %d rows", p.Test.Dim(), p.Test.Sparse.NNZ(), p.Test.Len())
	}
	want := "3 values in 2 rows at features above 1500 were left out: the training data has 1500 features (as svm-scale -r leaves out the features its range file does not have)"
	if got := hint.Strings(p.Test.Notes); !slices.Contains(got, want) {
		t.Errorf("notes %q, want %q", got, want)
	}
	// features=N still fixes both widths, and refuses a higher index.
	if _, err := OpenDataset(ctx, DatasetSpec{Path: train, Test: wide, Read: ReadOptions{Features: 1500}}, 1, nil); !errors.Is(err, ErrIndex) {
		t.Errorf("features=1500: %v", err)
	}
	// A dense training file keeps its test file dense, and of its width.
	if _, err := OpenDataset(ctx, DatasetSpec{Path: train, Test: narrow, Read: ReadOptions{Storage: StorageDense}}, 1, nil); err == nil {
		t.Error("a narrower test file of a dense training file was read")
	}
}

// ApplyCSR: a feature a maxabs fit shifts (constant and non-zero on the
// training part) gets its value in the rows that do not store it, as the
// dense map gives; the others keep their zeros.
func TestApplyCSRShifted(t *testing.T) {
	train := mat.NewDense(3, 3, []float64{2, 0, 4, 2, -1, 0, 2, 0, 2})
	nz, err := FitNormalizer(MaxAbs, sparse.FromDense(train))
	if err != nil {
		t.Fatal(err)
	}
	ref, _ := FitNormalizer(MaxAbs, train)
	if dn := nz.DenseForm(); !slices.Equal(dn.Shift, ref.Shift) || !slices.Equal(dn.Scale, ref.Scale) || !slices.Equal(nz.Constant, ref.Constant) || dn.Shift[0] != 2 {
		t.Fatalf("sparse fit %+v, dense %+v", nz, ref)
	}
	test := mat.NewDense(2, 3, []float64{0, 3, 0, 2, 0, -8})
	got := nz.ApplyCSR(sparse.FromDense(test))
	if want := nz.Apply(test); !mat.Equal(got.ToDense(), want) || got.NNZ() != 3 {
		t.Errorf("ApplyCSR %v (%d stored), Apply %v", mat.Formatted(got.ToDense()), got.NNZ(), mat.Formatted(want))
	}
	if SparseData(sparse.FromDense(test)) != SparseData(test) || !SparseData(sparse.FromDense(test)) {
		t.Error("SparseData of compressed rows")
	}
}

func TestDescribeSparseDuplicates(t *testing.T) {
	// Row 2 repeats row 1 with the other label; row 4 repeats row 3 (its
	// explicit 3:0 is a zero).
	data := "1 1:1 3:2\n-1 1:1 3:2\n1 2:1\n1 2:1 3:0\n-1 1:1\n"
	sp, err := parseLIBSVM([]byte(data), "d.svm", ReadOptions{Storage: StorageSparse})
	if err != nil {
		t.Fatal(err)
	}
	dn, _ := parseLIBSVM([]byte(data), "d.svm", ReadOptions{})
	s, d := Describe(sp), Describe(dn)
	if s.DuplicateRows != 2 || s.ConflictingVectors != 1 || s.ConflictingRows != 2 || s.NonZeros != 7 || s.ValueRange != [2]float64{0, 2} {
		t.Errorf("%+v", s)
	}
	if s.DuplicateRows != d.DuplicateRows || s.ConflictingVectors != d.ConflictingVectors || s.NonZeros != d.NonZeros || s.Density != 7.0/15 || d.Density != s.Density {
		t.Errorf("sparse %+v, dense %+v", s, d)
	}
}

// The read's memory bound counts sparse data by its non-zeros.
func TestReadCostSparse(t *testing.T) {
	var b strings.Builder
	for i := range 2000 {
		b.WriteString([]string{"1", "-1"}[i%2] + " 1000:1\n")
	}
	data := []byte(b.String())
	if _, err := parseLIBSVM(data, "w.svm", ReadOptions{MemBytes: 1 << 20}); err != nil {
		t.Errorf("sparse within 1 MB: %v", err)
	}
	_, err := parseLIBSVM(data, "w.svm", ReadOptions{MemBytes: 1 << 20, Storage: StorageDense})
	var me *ReadMemoryError
	if !errors.As(err, &me) || me.Sparse {
		t.Fatalf("dense in 1 MB: %v", err)
	}
	// 2·19,000 (the file twice) + 2,000·96 (lines) + 2,000·24 (pairs) +
	// 3·(8·2,001 + 12·2,000) = 398,024 bytes; 300 KiB hold 1,543 rows.
	_, err = parseLIBSVM(data, "w.svm", ReadOptions{MemBytes: 300 << 10})
	if !errors.As(err, &me) || !me.Sparse || me.NonZeros != 2000 || me.Need != 398024 || me.MaxRows != 1543 {
		t.Fatalf("sparse in 300 KB: %v (%+v)", err, me)
	}
	want := "w.svm: at most 1543 rows of 1000 features fit in the memory bound of 1 MB: reading and holding 2000 rows × 1000 features in compressed rows (2000 non-zeros) needs about 1 MB"
	if !strings.HasPrefix(err.Error(), want) {
		t.Errorf("err = %v", err)
	}
}

// Multi-class data held sparse: the classes kept by a selection, the
// pairs and subproblems of one-vs-one and one-vs-rest are sparse too.
func TestSparseMultiClass(t *testing.T) {
	data := "3 1:1\n1 2:1\n2 3:1 1200:2\n3 4:1\n1 5:1\n2 6:1\n"
	d, err := parseLIBSVM([]byte(data), "m.svm", ReadOptions{})
	if err != nil || !d.IsSparse() || !d.MultiClass() || !slices.Equal(d.ClassLabels, []string{"3", "1", "2"}) {
		t.Fatalf("%v", err)
	}
	p := d.Pair(0, 2)
	if !p.IsSparse() || p.Len() != 4 || !slices.Equal(p.Y, []float64{1, 1, -1, -1}) || p.Sparse.At(2, 1199) != 2 {
		t.Errorf("pair: %v %v", p.Y, p.Sparse)
	}
	for _, sp := range d.Subproblems() {
		if s := d.Sub(sp); !s.IsSparse() || s.Dim() != 1200 {
			t.Errorf("subproblem %+v is not sparse", sp)
		}
	}
	k, err := parseLIBSVM([]byte(data), "m.svm", ReadOptions{Classes: []string{"1", "2"}})
	if err != nil || !k.IsSparse() || k.Len() != 4 || k.Sparse.NNZ() != 5 || k.Dropped[0].Rows != 2 {
		t.Fatalf("classes 1,2: %v", err)
	}
	if s := Describe(k); s.Rows != 4 || s.NonZeros != 5 || s.Positive != 2 {
		t.Errorf("%+v", s)
	}
}

// TestSparseNormalizerListsNoUnsetFeature: a sparse training part's
// normaliser lists as constant only the features set to one value in every
// row, not the words no row sets (they filled every record and model file:
// 1,355,191 indices at news20's width).
func TestSparseNormalizerListsNoUnsetFeature(t *testing.T) {
	// Feature 0 is set to 2 in every row (constant), 1 varies, 2 and 3 are
	// never set.
	m, err := sparse.New(3, 4, []int{0, 2, 3, 5}, []int32{0, 1, 0, 0, 1}, []float64{2, 1, 2, 2, -3})
	if err != nil {
		t.Fatal(err)
	}
	for _, kind := range []string{MaxAbs, NoScale} {
		nz, err := FitNormalizer(kind, m)
		if err != nil {
			t.Fatal(err)
		}
		if len(nz.Constant) != 1 || nz.Constant[0] != 0 {
			t.Errorf("%s: Constant = %v, want [0]", kind, nz.Constant)
		}
		dense, err := FitNormalizer(kind, m.ToDense())
		if err != nil {
			t.Fatal(err)
		}
		if len(dense.Constant) != 3 {
			t.Errorf("%s dense: Constant = %v, want [0 2 3] (dense data unchanged)", kind, dense.Constant)
		}
		for j := range nz.Shift {
			if nz.Shift[j] != dense.Shift[j] || nz.Scale[j] != dense.Scale[j] {
				t.Errorf("%s: feature %d: (%v, %v) sparse against (%v, %v) dense", kind, j, nz.Shift[j], nz.Scale[j], dense.Shift[j], dense.Scale[j])
			}
		}
	}
}
