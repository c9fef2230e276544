package model

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"testing"
	"unsafe"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// tenClasses returns rcv1-shaped rows (dataio.TextLike, n × 2,000, about
// nnz non-zeros a row) held in compressed rows, of ten classes: row i is
// class i mod 10.
func tenClasses(n, nnz int) *dataio.Dataset {
	d := dataio.TextLike(n, 2000, nnz, rand.New(rand.NewPCG(44, 2)))
	c := *d
	c.Y, c.Labels = nil, dataio.LabelMap{}
	c.ClassLabels = make([]string, 10)
	for k := range c.ClassLabels {
		c.ClassLabels[k] = fmt.Sprint(k)
	}
	c.Class = make([]int, n)
	for i := range c.Class {
		c.Class[i] = i % 10
	}
	return &c
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var a, b runtime.MemStats
	runtime.ReadMemStats(&a)
	f()
	runtime.ReadMemStats(&b)
	return b.TotalAlloc - a.TotalAlloc
}

// TestMultiClassPairsReuseKernelRows: the 45 pairs of a ten-class fit on
// compressed rows build their kernels' compressed rows and columns into
// one set of arrays per core (kernel.RowsAtIn), not each its own, and
// their support vectors are the fit's one copy of each row (svStore), not
// each pair's: the fit allocates less than a quarter of the pairs'
// compressed rows and one per-pair copy of their support vectors (98 MB
// before either, 47 MB with the arrays reused, against a bound of 39 MB;
// 24 MB now; on 10,000 rows of 778 features the pairs' compressed rows
// were 284 MB of the 406 MB one ten-class fit allocated).
func TestMultiClassPairsReuseKernelRows(t *testing.T) {
	train := tenClasses(2000, 120)
	nnz := int64(0) // every pair's non-zeros, summed
	for _, ij := range train.Subproblems() {
		for _, i := range train.SubRows(ij) {
			ind, _ := train.Sparse.Row(i)
			nnz += int64(len(ind))
		}
	}
	// A pair's compressed rows and columns: an int32 index and a float64
	// value per entry, each twice.
	pairRows := 24 * nnz
	var fr *FitResult
	var err error
	got := allocated(func() {
		fr, err = Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.5), Margin: L1, C: 4, Workers: 1})
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.Model.Pairs) != 45 {
		t.Fatalf("%d pairs, want 45", len(fr.Model.Pairs))
	}
	svBytes := int64(0) // an int32 index and a float64 value per entry
	for _, pm := range fr.Model.Pairs {
		for _, sv := range pm.SupportVectors {
			svBytes += 12 * int64(len(sv.Index))
		}
	}
	t.Logf("fit allocated %d bytes; the pairs' compressed rows %d, their support vectors %d", got, pairRows, svBytes)
	if bound := pairRows/4 + svBytes; int64(got) > bound {
		t.Errorf("the ten-class fit allocated %.1f MB, more than a quarter of the 45 pairs' compressed rows (%.1f MB) and one per-pair copy of their support vectors (%.1f MB): each pair builds its own rows, or copies its support vectors", float64(got)/1e6, float64(pairRows)/1e6, float64(svBytes)/1e6)
	}
}

// TestSparseMultiClassSharesSupportVectors: a sparse multi-class model
// holds each distinct support vector once, as LIBSVM's model does (total_sv
// rows, each pair's support vectors slices of them) and predicts from one
// sparse route over them, not each pair from its own copy and its own
// compressed rows and columns of it; every pair's decision values are the
// ones its own support vectors give.
func TestSparseMultiClassSharesSupportVectors(t *testing.T) {
	train := tenClasses(600, 30)
	fr, err := Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.5), Margin: L1, C: 4, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := fr.Model
	if m.shared == nil {
		t.Fatal("the sparse multi-class model has no shared support vectors: each pair predicts from its own copy")
	}
	if rows, _ := m.shared.X.Dims(); rows != m.Training.NSV {
		t.Fatalf("%d shared support vectors, total_sv %d", rows, m.Training.NSV)
	}
	// The same support vector in two pairs is one array's row.
	at := map[*int32]int{}
	shared := 0
	for _, pm := range m.Pairs {
		for _, sv := range pm.SupportVectors {
			if len(sv.Index) > 0 {
				at[&sv.Index[0]]++
			}
		}
	}
	for _, c := range at {
		if c > 1 {
			shared++
		}
	}
	if len(at) != m.Training.NSV || shared == 0 {
		t.Fatalf("%d distinct support-vector arrays (%d in more than one pair), total_sv %d", len(at), shared, m.Training.NSV)
	}
	got := m.PairDecisionsNormalized(train.Sparse)
	for p, pm := range m.Pairs {
		own := pm.DecisionNormalized(train.Sparse)
		for i, f := range own {
			if math.Abs(got[p][i]-f) > 1e-12*(1+math.Abs(f)) {
				t.Fatalf("pair %d, row %d: shared decision %v, the pair's own %v", p+1, i, got[p][i], f)
			}
		}
	}
}

// TestFitGCCeilingMultiClass: a multi-class fit's limit (FitGCLimit,
// every pair's cache counted full) is a ceiling under the proportional
// collector, a binary fit's the collector's pacing (with the limit alone
// the heap grew to it: train on ten classes of 778 features, 151 MB
// resident, 114 MB with the limit as a ceiling; cmd/train.go).
func TestFitGCCeilingMultiClass(t *testing.T) {
	multi := tenClasses(300, 30)
	binary := dataio.TextLike(300, 2000, 30, rand.New(rand.NewPCG(44, 3)))
	if !FitGCCeiling(multi) || FitGCCeiling(binary) || FitGCCeiling(nil) {
		t.Errorf("FitGCCeiling: ten classes %v, two %v, none %v; want true, false, false", FitGCCeiling(multi), FitGCCeiling(binary), FitGCCeiling(nil))
	}
	if lim, bin := FitGCLimit(multi, nil, 0), FitGCLimit(binary, nil, 0); lim <= 0 || bin <= 0 {
		t.Errorf("FitGCLimit %d and %d, want positive", lim, bin)
	}
}

// TestSVStoreOneCopyPerRow: the support vectors of two pairs that share a
// training row are one copy of its index (numbered from 1) and value
// lists, the row's own entries.
func TestSVStoreOneCopyPerRow(t *testing.T) {
	X := tenClasses(40, 30).Sparse
	store := new(svStore)
	a := sparseSVs(X, []int{3, 5, 7}, []float64{1, -1, 1}, []float64{0.5, 0, 2}, store)
	b := sparseSVs(X, []int{7, 9}, []float64{-1, 1}, []float64{1, 1}, store)
	if len(a) != 2 || len(b) != 2 || len(store.at) != 3 {
		t.Fatalf("%d and %d support vectors, %d rows stored; want 2, 2 and 3", len(a), len(b), len(store.at))
	}
	if &a[1].Index[0] != &b[0].Index[0] || &a[1].Value[0] != &b[0].Value[0] {
		t.Error("row 7, a support vector of both pairs, is two copies")
	}
	ind, val := X.Row(7)
	for q, k := range ind {
		if a[1].Index[q] != k+1 || a[1].Value[q] != val[q] {
			t.Fatalf("row 7's entry %d: (%d, %v), want (%d, %v)", q, a[1].Index[q], a[1].Value[q], k+1, val[q])
		}
	}
	if a[0].Coef != 0.5 || a[1].Coef != 2 || b[0].Coef != -1 {
		t.Errorf("coefficients %v, %v, %v; want 0.5, 2, -1", a[0].Coef, a[1].Coef, b[0].Coef)
	}
}

// blobs returns k classes of per rows each, d features, class c's rows
// about the point (8c, 0, …, 0) with unit noise: well apart, so each pair
// has few support vectors.
func blobs(k, per, d int) *dataio.Dataset {
	r := rand.New(rand.NewPCG(44, 7))
	n := k * per
	x := mat.NewDense(n, d, nil)
	ds := &dataio.Dataset{Name: "blobs", X: x, Class: make([]int, n), ClassLabels: make([]string, k)}
	for c := range ds.ClassLabels {
		ds.ClassLabels[c] = fmt.Sprint(c)
	}
	for i := range n {
		c := i % k
		ds.Class[i] = c
		for j := range d {
			x.Set(i, j, r.NormFloat64())
		}
		x.Set(i, 0, x.At(i, 0)+8*float64(c))
	}
	return ds
}

// TestMultiClassPairsKeepOnlyTheirModels: once a multi-class fit's pairs
// are solved, each keeps its model and nothing of its solve: the votes and
// support-vector flags the model needs are taken from each pair as it
// finishes. The pairs' rows, labels, α, coefficients and decision values
// (40 bytes a pair row) were held until the last pair was done: on letter
// (325 pairs of 1,150 rows) 12 MB of the fit's 31 MB live heap.
func TestMultiClassPairsKeepOnlyTheirModels(t *testing.T) {
	train := blobs(26, 80, 4) // 325 pairs of 160 rows
	pairRows := 0
	for _, ij := range train.Subproblems() {
		pairRows += len(train.SubRows(ij))
	}
	var before, after runtime.MemStats
	afterPairs = func([]pairFit) {
		runtime.GC()
		runtime.ReadMemStats(&after)
	}
	defer func() { afterPairs = nil }()
	runtime.GC()
	runtime.ReadMemStats(&before)
	fr, err := Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.1), Margin: L1, C: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	// What the models hold: a SupportVector and a coefficient per support
	// vector, and the rest of a Model (under 2 KB).
	nsv := 0
	for _, pm := range fr.Model.Pairs {
		nsv += len(pm.SupportVectors)
	}
	models := int64(nsv)*int64(unsafe.Sizeof(SupportVector{})+8) + 2048*int64(len(fr.Model.Pairs))
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	t.Logf("live after the pairs: %d bytes; the models about %d (%d support vectors), the pairs' rows %d", live, models, nsv, pairRows)
	if bound := models + 16*int64(pairRows); live > bound {
		t.Errorf("%.2f MB live once the pairs are solved, more than their models (%.2f MB) and 16 bytes a pair row (%.2f MB): the pairs' solves are held", float64(live)/1e6, float64(models)/1e6, 16*float64(pairRows)/1e6)
	}
}

// TestPredictClassesStreams: a one-vs-one prediction with shared support
// vectors allocates less than the pairs' decision values on all its rows
// would take (8 bytes a pair and a row): each block of rows is voted and
// its values dropped, the kernel block in one array (on letter's training
// rows, 325 pairs, the values of every pair on every row and a new 16 MB
// block at a time took the live heap from 11 to 35 MB after the fit).
func TestPredictClassesStreams(t *testing.T) {
	train := blobs(26, 80, 4)
	fr, err := Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.1), Margin: L1, C: 10, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := fr.Model
	n, d := train.X.Dims()
	X := mat.NewDense(3*n, d, nil) // the rows three times
	for i := range 3 * n {
		X.SetRow(i, train.X.RawRowView(i%n))
	}
	var got []int
	a := allocated(func() { got = m.PredictClassesNormalized(X) })
	values := int64(8 * len(m.Pairs) * 3 * n)
	t.Logf("predicting %d rows allocated %d bytes; the pairs' values on them %d", 3*n, a, values)
	if int64(a) >= values {
		t.Errorf("predicting %d rows with %d pairs allocated %.1f MB, more than their decision values on every row (%.1f MB)", 3*n, len(m.Pairs), float64(a)/1e6, float64(values)/1e6)
	}
	if want := Vote(m.PairDecisionsNormalized(X), len(m.Classes)); !slices.Equal(got, want) {
		t.Fatal("the streamed classes differ from the vote of the pairs' decisions")
	}
}

// overlapping returns k classes of per rows each in d dimensions, all drawn
// from one distribution, so that nearly every row of a pair is a support
// vector.
func overlapping(k, per, d int) *dataio.Dataset {
	ds := blobs(k, per, d)
	for i := range ds.Len() {
		ds.X.Set(i, 0, ds.X.At(i, 0)-8*float64(ds.Class[i]))
	}
	return ds
}

// TestMultiClassPairsHoldSupportVectorRows: while a dense multi-class fit
// solves its pairs, each finished pair keeps its support vectors as rows
// of the training matrix (4 bytes each; its coefficients are its model's
// coef), not as SupportVector structs (80 bytes each), which it gets back
// when the model is assembled, the same as denseSVs made them. On letter
// (325 pairs, about 60,000 support vectors) the structs were 4.8 MB of the
// pairs' live heap, and train's resident peak went from 40.9-42.3 to
// 37.3-38.1 MB with streamRows.
func TestMultiClassPairsHoldSupportVectorRows(t *testing.T) {
	train := overlapping(26, 40, 4) // 325 pairs of 80 rows
	pairRows := 0
	for _, ij := range train.Subproblems() {
		pairRows += len(train.SubRows(ij))
	}
	var before, after runtime.MemStats
	held := 0
	afterPairs = func(fits []pairFit) {
		runtime.GC()
		runtime.ReadMemStats(&after)
		for _, f := range fits {
			if f.pm.SupportVectors != nil {
				t.Errorf("a pair holds %d SupportVectors before the model is assembled", len(f.pm.SupportVectors))
				break
			}
			held += len(f.svRows)
		}
	}
	defer func() { afterPairs = nil }()
	runtime.GC()
	runtime.ReadMemStats(&before)
	fr, err := Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.1), Margin: L1, C: 0.1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	nsv := 0
	for p, pm := range fr.Model.Pairs {
		nsv += len(pm.SupportVectors)
		if len(pm.SupportVectors) != pm.Training.NSV {
			t.Fatalf("pair %d: %d support vectors, its solve had %d", p, len(pm.SupportVectors), pm.Training.NSV)
		}
		for j, sv := range pm.SupportVectors {
			if sv.Coef != pm.coef.AtVec(j) || len(sv.X) != train.Dim() {
				t.Fatalf("pair %d, support vector %d: coef %g (model's %g), %d features", p, j, sv.Coef, pm.coef.AtVec(j), len(sv.X))
			}
		}
	}
	if held != nsv || nsv < pairRows/2 {
		t.Fatalf("%d support vector rows held, %d in the model, of %d pair rows: want them equal, and most rows support vectors", held, nsv, pairRows)
	}
	live := int64(after.HeapAlloc) - int64(before.HeapAlloc)
	structs := int64(nsv) * int64(unsafe.Sizeof(SupportVector{}))
	bound := int64(nsv)*24 + 2048*int64(len(fr.Model.Pairs)) + 16*int64(pairRows)
	t.Logf("live after the pairs: %d bytes for %d support vectors (as structs %d); bound %d", live, nsv, structs, bound)
	if live > bound {
		t.Errorf("%.2f MB live once the pairs are solved, more than 24 bytes a support vector, 2 KB a pair and 16 bytes a pair row (%.2f MB): the pairs hold their support vectors as structs (%.2f MB)", float64(live)/1e6, float64(bound)/1e6, float64(structs)/1e6)
	}
}

// TestPredictClassesBlockBound: a one-vs-one prediction goes through its
// rows in blocks of streamRows, whose kernel block (8 bytes a row and a
// support vector) is at most streamBlockBytes unless 16 rows take more:
// on letter's 10,221 support vectors the earlier 64-row floor and 4 MB
// made it 5.2 MB, the largest thing in train's heap after the pairs.
func TestPredictClassesBlockBound(t *testing.T) {
	train := overlapping(26, 80, 4)
	fr, err := Fit(context.Background(), FitSettings{Train: train, Kernel: iso(0.1), Margin: L1, C: 0.1, Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	m := fr.Model
	n, d := train.X.Dims()
	X := mat.NewDense(4*n, d, nil)
	for i := range 4 * n {
		X.SetRow(i, train.X.RawRowView(i%n))
	}
	sh := m.shared
	if sh == nil {
		t.Fatal("the model's pairs share no support vectors")
	}
	nsv, _ := sh.X.Dims()
	most, blocks := 0, 0
	sh.eachDecisionBlock(m, X, 0, func(_ int, dec [][]float64) {
		most, blocks = max(most, len(dec[0])), blocks+1
	})
	t.Logf("%d support vectors: %d blocks of up to %d rows (%d bytes of kernel values)", nsv, blocks, most, 8*most*nsv)
	if most != streamRows(nsv) || 8*most*nsv > streamBlockBytes {
		t.Errorf("blocks of %d rows against %d support vectors (streamRows %d): %.2f MB of kernel values, over streamBlockBytes (%.2f MB)", most, nsv, streamRows(nsv), float64(8*most*nsv)/1e6, float64(streamBlockBytes)/1e6)
	}
	if got := streamRows(10221); got != 16 {
		t.Errorf("streamRows(10221) = %d, want 16 (letter's support vectors: 1.3 MB a block)", got)
	}
	if got := streamRows(1); got != blockRows {
		t.Errorf("streamRows(1) = %d, want blockRows (%d)", got, blockRows)
	}
}
