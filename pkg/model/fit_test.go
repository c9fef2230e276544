package model

import (
	"context"
	"fmt"
	"math"
	"testing"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// The training accuracy and ‖w‖² come from the solver's decision values
// (SVCResult.F) instead of new kernel evaluations: they agree with the
// model's Decision and W2, and a row whose value is near 0 is evaluated by
// the model, so the signs, and so the accuracy, are Decision's.
func TestFitTrainDecision(t *testing.T) {
	d := loadHeart(t)
	for _, margin := range []Margin{L1, L2} {
		r, err := Fit(context.Background(), FitSettings{Train: d, Kernel: iso(0.5), Margin: margin, C: 1, Eps: 1e-5})
		if err != nil {
			t.Fatal(err)
		}
		m := r.Model
		want := m.DecisionNormalized(d.X)
		got := trainDecision(m, d, r.SVC)
		for i := range want {
			if math.Abs(got[i]-want[i]) > 1e-9*(1+math.Abs(want[i])) {
				t.Fatalf("%v: f(x_%d) = %.15g from the solver, %.15g from the model", margin, i, got[i], want[i])
			}
		}
		if c := ConfusionOf(want, d.Y); r.TrainCorrect != c.Correct() {
			t.Errorf("%v: %d correct on the training part, the model's Decision gives %d", margin, r.TrainCorrect, c.Correct())
		}
		if w2 := m.W2(); math.Abs(m.Training.W2-w2) > 1e-10*w2 {
			t.Errorf("%v: Training.W2 = %.15g, W2() = %.15g", margin, m.Training.W2, w2)
		}
		// Values pushed near 0 (and of the wrong sign) are recomputed.
		res := r.SVC
		res.F = append([]float64(nil), res.F...)
		res.F[3], res.F[7] = -math.Copysign(1e-12, want[3]), -math.Copysign(1e-12, want[7])
		got = trainDecision(m, d, res)
		if got[3] != want[3] || got[7] != want[7] {
			t.Errorf("%v: near-zero rows not evaluated by the model: %v, %v; want %v, %v", margin, got[3], got[7], want[3], want[7])
		}
	}
}

// A fitted model's SV matrix is the array its SupportVectors' X were copied
// into, not a second copy; once a support vector is replaced or edited,
// Validate rebuilds the matrix from the SupportVectors, as before.
func TestFitSVsStoredOnce(t *testing.T) {
	d := loadHeart(t)
	r, err := Fit(context.Background(), FitSettings{Train: d, Kernel: iso(0.5), Margin: L1, C: 1, Eps: 1e-5})
	if err != nil {
		t.Fatal(err)
	}
	m := r.Model
	svm, _ := m.svMatrix()
	sv := svm.(*mat.Dense)
	if nsv := len(m.SupportVectors); nsv < 2 || &sv.RawMatrix().Data[0] != &m.SupportVectors[0].X[0] ||
		&sv.RawMatrix().Data[(nsv-1)*m.NumFeatures] != &m.SupportVectors[nsv-1].X[0] {
		t.Fatal("the fitted model's SV matrix is a second copy of its support vectors")
	}
	x := d.X.RawRowView(0)
	before := m.DecisionNormalized(d.X.Slice(0, 1, 0, d.Dim()))[0]

	// Replace support vector 0 by row 0 itself: f(x_0) changes by
	// coef_0·(K(x_0, x_0) - K(sv_0, x_0)).
	k0 := m.kern.Eval(m.SupportVectors[0].X, x)
	m.SupportVectors[0].X = append([]float64(nil), x...)
	if err := m.Validate(); err != nil {
		t.Fatal(err)
	}
	if sv, _ := m.svMatrix(); m.svData != nil || &sv.(*mat.Dense).RawMatrix().Data[0] == &m.SupportVectors[0].X[0] {
		t.Error("after replacing an SV, the SV matrix still aliases the fitted array")
	}
	after := m.DecisionNormalized(d.X.Slice(0, 1, 0, d.Dim()))[0]
	want := before + m.SupportVectors[0].Coef*(1-k0)
	if math.Abs(after-want) > 1e-12 {
		t.Errorf("f(x_0) = %.15g after replacing SV 0, want %.15g", after, want)
	}
}

// The decision function's kernel block stays within blockBytes however many
// support vectors there are, with at least 64 rows.
func TestBlockRowsFor(t *testing.T) {
	for _, c := range []struct{ nsv, want int }{{1, 1024}, {2048, 1024}, {11_000, 190}, {1_000_000, 64}} {
		if got := blockRowsFor(c.nsv); got != c.want {
			t.Errorf("%d SVs: %d rows, want %d", c.nsv, got, c.want)
		}
	}
}

// FitGCLimit counts the solver's cache or the decision blocks, whichever is
// larger (the blocks are live only after the solve), with the rows and the
// runtime's 32 MB.
func TestFitGCLimit(t *testing.T) {
	rows := func(n, d int) *dataio.Dataset {
		return &dataio.Dataset{X: mat.NewDense(n, d, nil), Y: make([]float64, n)}
	}
	if got, want := FitGCLimit(rows(8000, 123), nil, 200), int64(32<<20+200<<20+8*123*3*8000); got != want {
		t.Errorf("8,000 × 123, 200 MB cache: %d, want %d (the cache, not the blocks too)", got, want)
	}
	if got, want := FitGCLimit(rows(500, 10), rows(100, 10), 200), int64(32<<20+2*blockBytes+8*10*(3*500+2*100)); got != want {
		t.Errorf("500 rows: %d, want %d (the blocks, larger than the 2 MB matrix)", got, want)
	}
}

// On multi-class data the collector's limit counts the caches of the pairs
// solved at once, not one cache over the whole training part: 26 classes of
// 1,150 rows had a 235 MB limit for 21 MB of pairs' caches, and the heap
// grew to it (train on letter: 242 MB resident, 83 MB now; issue 44).
func TestFitGCLimitMultiClassCountsPairs(t *testing.T) {
	const k, per, d = 26, 577, 16
	n := k * per
	X := mat.NewDense(n, d, nil)
	class := make([]int, n)
	labels := make([]string, k)
	for c := range k {
		labels[c] = fmt.Sprint(c)
		for r := range per {
			class[c*per+r] = c
		}
	}
	train := &dataio.Dataset{X: X, Class: class, ClassLabels: labels}
	w := int64(pairWorkers(train, train.Subproblems(), solver.Settings{CacheBytes: 200 << 20}))
	r := int64(2 * per)
	pairs := w * (8*r*r + 3*8*r*d)
	want := int64(32<<20) + max(pairs, 2*blockBytes) + 8*d*3*int64(n)
	if got := FitGCLimit(train, nil, 200); got != want {
		t.Errorf("FitGCLimit = %d, want %d (%d pairs at once of %d rows)", got, want, w, r)
	}
	if got, whole := FitGCLimit(train, nil, 200), int64(32<<20)+200<<20; got >= whole/2 {
		t.Errorf("FitGCLimit = %d MB, not well below the whole part's cache (%d MB)", got>>20, whole>>20)
	}
}
