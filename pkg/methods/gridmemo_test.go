package methods

import (
	"context"
	"reflect"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// The memo runs a search once per input and hands every caller the same
// outcome, the first caller's with no credit and the others' credited with
// the search's time.
func TestGridMemoSharesOneSearch(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 80)
	cm := Common{Seed: 3}
	want, err := gridSearch(context.Background(), d, cm, Space{})
	if err != nil {
		t.Fatal(err)
	}
	memo := NewGridMemo()
	var calls atomic.Int32
	compute := func(d2 *dataio.Dataset, cm2 Common) func() (gridResult, error) {
		return func() (gridResult, error) { calls.Add(1); return gridSearch(context.Background(), d2, cm2, Space{}) }
	}
	first, err := memo.search(d, cm, Space{}, compute(d, cm))
	if err != nil {
		t.Fatal(err)
	}
	second, err := memo.search(d, cm, Space{}, compute(d, cm))
	if err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 1 {
		t.Fatalf("%d searches for one input, want 1", calls.Load())
	}
	if first.credit != 0 || second.credit <= 0 {
		t.Errorf("credit: first %v (want 0), second %v (want the search's time)", first.credit, second.credit)
	}
	second.credit = 0
	if !reflect.DeepEqual(first, want) || !reflect.DeepEqual(second, want) {
		t.Errorf("memo gave %+v and %+v, the search alone %+v", first, second, want)
	}
	if want.Solves == 0 || want.C == 0 || want.Gamma == 0 {
		t.Fatalf("search %+v: no solves or no choice", want)
	}

	// Another setting or another row is another search.
	other := cm
	other.Folds = 3
	if _, err := memo.search(d, other, Space{}, compute(d, other)); err != nil {
		t.Fatal(err)
	}
	e := d.Subset(seq(d.Len()))
	e.X.Set(0, 0, e.X.At(0, 0)+1e-12)
	if _, err := memo.search(e, cm, Space{}, compute(e, cm)); err != nil {
		t.Fatal(err)
	}
	if calls.Load() != 3 {
		t.Errorf("%d searches after a new fold count and a changed row, want 3", calls.Load())
	}

	// Concurrent callers of one input: one search, one outcome.
	memo = NewGridMemo()
	calls.Store(0)
	var wg sync.WaitGroup
	got := make([]gridResult, 4)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = memo.search(d, cm, Space{}, compute(d, cm))
			got[i].credit = 0
		}()
	}
	wg.Wait()
	if calls.Load() != 1 {
		t.Errorf("%d searches by 4 concurrent callers, want 1", calls.Load())
	}
	for i, g := range got {
		if !reflect.DeepEqual(g, want) {
			t.Errorf("caller %d got %+v, want %+v", i, g, want)
		}
	}
}

// svm and gi sharing a memo choose what they choose alone, and gi's C is
// the svm baseline's.
func TestGridMemoChangesNoResult(t *testing.T) {
	t.Parallel()
	d := heartHead(t, 80)
	cm := Common{Seed: 5}
	alone, err := GISettings{Common: cm}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	cm.Grids = NewGridMemo()
	svm, err := SVMSettings{Common: cm}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	shared, err := GISettings{Common: cm}.tune(context.Background(), d)
	if err != nil {
		t.Fatal(err)
	}
	if shared.Credit <= 0 || alone.Credit != 0 || svm.Credit != 0 {
		t.Errorf("credit: gi shared %v (want > 0), gi alone %v, svm %v (want 0)", shared.Credit, alone.Credit, svm.Credit)
	}
	if shared.C != svm.C || shared.C != alone.C {
		t.Errorf("gi's C: shared %g, alone %g; svm's %g", shared.C, alone.C, svm.C)
	}
	for _, r := range []*Result{alone, shared} {
		r.Elapsed, r.Credit = 0, 0
		for i := range r.Trace {
			r.Trace[i].Elapsed = 0
		}
	}
	if !reflect.DeepEqual(alone, shared) {
		t.Errorf("gi with a shared grid differs from gi alone:\n%+v\n%+v", shared, alone)
	}
}

// A multi-class search's key names the scheme: one-vs-one and one-vs-rest
// on the same rows are two searches (their folds predict differently),
// while one-vs-one data keep the key they had before one-vs-rest existed
// (the empty scheme adds no bytes).
func TestGridKeyScheme(t *testing.T) {
	d := mcData(t, "iris.scale")
	ovo := gridKey(d, Common{Seed: 1}, Space{})
	r := *d
	r.Multiclass = dataio.OneVsRest
	if gridKey(&r, Common{Seed: 1}, Space{}) == ovo {
		t.Error("one-vs-rest and one-vs-one share a grid-search key")
	}
	r.Multiclass = ""
	if gridKey(&r, Common{Seed: 1}, Space{}) != ovo {
		t.Error("the key of the same one-vs-one data changed")
	}
}
