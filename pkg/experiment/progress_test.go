package experiment

import (
	"context"
	"math/rand/v2"
	"slices"
	"sync"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// events runs Tune of spec on train with a Progress and returns every
// event it reported.
func progressEvents(t *testing.T, spec methods.Spec, train *dataio.Dataset) []methods.Event {
	t.Helper()
	var (
		mu  sync.Mutex
		evs []methods.Event
	)
	base := spec.Base()
	base.Progress = methods.NewProgress(func(e methods.Event) {
		mu.Lock()
		evs = append(evs, e)
		mu.Unlock()
	})
	if _, err := Tune(context.Background(), TuneSettings{Train: train, Data: "weston", Spec: spec.WithBase(base)}); err != nil {
		t.Fatalf("%s: %v", spec.Name(), err)
	}
	return evs
}

func keys(plan []methods.Stage) []string {
	var k []string
	for _, s := range plan {
		k = append(k, s.Key)
	}
	return k
}

// checkWhole checks that the events of one tune cover the whole run: the
// first already plans every stage, the final fit last; the share done
// never goes back, starts at 0 and ends at 100 %.
func checkWhole(t *testing.T, name string, evs []methods.Event, want []string) {
	t.Helper()
	if len(evs) < 2 {
		t.Fatalf("%s: %d events", name, len(evs))
	}
	if got := keys(evs[0].Plan); !slices.Equal(got, want) {
		t.Errorf("%s: the first event plans %q, want %q", name, got, want)
	}
	if f := evs[0].Fraction(); f != 0 {
		t.Errorf("%s: the first event has %v done", name, f)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].Fraction() < evs[i-1].Fraction() {
			t.Errorf("%s: event %d went back from %.6f to %.6f (%s %d/%d → %s %d/%d)", name, i, evs[i-1].Fraction(), evs[i].Fraction(),
				evs[i-1].Name(), evs[i-1].Done, evs[i-1].Total, evs[i].Name(), evs[i].Done, evs[i].Total)
		}
	}
	last := evs[len(evs)-1]
	if last.Fraction() != 1 || last.Plan[last.Stage].Key != "final fit" || last.Done != 1 || last.Total != 1 {
		t.Errorf("%s: the last event is %s %d/%d at %v, want the final fit 1/1 at 1", name, last.Name(), last.Done, last.Total, last.Fraction())
	}
}

// A multi-stage svm tune (the grid on a subset of 100 rows, the refinement
// on all 300, the final fit) plans its three stages from its first event,
// with their weights (squared-row solves: 0.4 × points × folds × training
// rows², and n² for the final fit), reports every (γ, fold) job of both
// rounds, and its share of the whole work done grows to 100 %.
func TestTuneProgressSVMStages(t *testing.T) {
	train := dataio.Weston(300, 8, rand.New(rand.NewPCG(3, 4)))
	evs := progressEvents(t, methods.SVMSettings{Common: methods.Common{Seed: 1, GridRows: 100, Workers: 2}}, train)
	checkWhole(t, "svm", evs, []string{"grid", "refine", "final fit"})
	plan := evs[0].Plan
	want := []float64{0.4 * 110 * 5 * 80 * 80, 0.4 * 9 * 5 * 240 * 240, 300 * 300}
	for i, w := range want {
		if d := plan[i].Weight - w; d > 1e-6*w || d < -1e-6*w {
			t.Errorf("stage %s weighs %v, want %v", plan[i].Key, plan[i].Weight, w)
		}
	}
	jobs := map[string]int{}
	for _, e := range evs {
		k := e.Plan[e.Stage].Key
		jobs[k] = max(jobs[k], e.Done)
		if k == "grid" && e.Total != 50 || k == "refine" && e.Total != 15 {
			t.Errorf("%s reports %d parts, want 10 γ × 5 folds and 3 γ × 5 folds", k, e.Total)
		}
	}
	if jobs["grid"] != 50 || jobs["refine"] != 15 || jobs["final fit"] != 1 {
		t.Errorf("jobs done per stage: %v", jobs)
	}
	// Half way through the refinement, the share done is the grid's
	// weight and half the refinement's over the whole.
	for _, e := range evs {
		if e.Plan[e.Stage].Key == "refine" && e.Done == 7 {
			var all float64
			for _, s := range e.Plan {
				all += s.Weight
			}
			if want := (e.Plan[0].Weight + e.Plan[1].Weight*7/15) / all; e.Fraction() != want {
				t.Errorf("refinement 7/15: %v done, want %v", e.Fraction(), want)
			}
		}
	}
}

// Every method reports every phase, from a plan that ends with the final
// fit: its iterations (or points, or rounds), its choice of C where it has
// one, the final fit; bo's and random's parts are their budget.
func TestTuneProgressEveryMethod(t *testing.T) {
	train := dataio.Weston(120, 6, rand.New(rand.NewPCG(5, 6)))
	c := methods.Common{Seed: 1, Workers: 2}
	for _, tc := range []struct {
		spec methods.Spec
		plan []string
	}{
		{methods.SPDSettings{Common: c, MaxIter: 3}, []string{"iterations", "final fit"}},
		{methods.GISettings{Common: c, Steps: 3}, []string{"grid", "iterations", "final fit"}},
		{methods.LCCPSettings{Common: c, MaxIter: 3}, []string{"choose C", "iterations", "final fit"}},
		{methods.RCSCSettings{Common: c, MaxIter: 3}, []string{"iterations", "choose C", "final fit"}},
		{methods.TwoLevelSettings{Common: c, MaxIter: 3}, []string{"iterations", "final fit"}},
		{methods.RandomSettings{Common: c, Budget: 7}, []string{"search", "final fit"}},
		{methods.BOSettings{Common: c, Budget: 8}, []string{"search", "final fit"}},
		{methods.HalvingSettings{Common: c}, nil},
	} {
		evs := progressEvents(t, tc.spec, train)
		want := tc.plan
		if want == nil { // halving: its rounds
			for _, s := range evs[0].Plan {
				want = append(want, s.Key)
			}
			if len(want) < 3 || want[0] != "round 1" {
				t.Errorf("halving plans %q", want)
			}
		}
		checkWhole(t, tc.spec.Name(), evs, want)
		seen := map[string]bool{}
		for _, e := range evs {
			seen[e.Plan[e.Stage].Key] = true
			if k := e.Plan[e.Stage].Key; k == "search" {
				if b := map[string]int{"random": 7, "bo": 8}[tc.spec.Name()]; e.Total != b {
					t.Errorf("%s: %d points, want its budget %d", tc.spec.Name(), e.Total, b)
				}
			}
		}
		for _, k := range want {
			if !seen[k] && tc.spec.Name() != "halving" {
				t.Errorf("%s: stage %s never reported", tc.spec.Name(), k)
			}
		}
	}
}

// A multi-class tune of a kernel-learning method reports its subproblems
// as one stage (each one's share done summed), then the final fit.
func TestTuneProgressMultiClass(t *testing.T) {
	train := dataio.Blobs(90, 3, 2, rand.New(rand.NewPCG(7, 8)))
	evs := progressEvents(t, methods.RCSCSettings{Common: methods.Common{Seed: 1, Workers: 2}, MaxIter: 3}, train)
	checkWhole(t, "rcsc on 3 classes", evs, []string{"subproblems", "final fit"})
	for _, e := range evs {
		if e.Plan[e.Stage].Key == "subproblems" && e.Total != 3*1000 {
			t.Fatalf("subproblems: %d parts, want 3 × 1000", e.Total)
		}
	}
}
