package methods

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// TestTuneLargeDataSubset: above KernelRows a kernel-learning method learns
// on the stratified subset svm's grid draws (the same rows, each class's
// share kept), gives the result it gives on that subset, and says so
// (LearnedOn, a note); at or below KernelRows, and for the searches, the
// entry is the method itself.
func TestTuneLargeDataSubset(t *testing.T) {
	t.Parallel()
	g, err := dataio.Generate(context.Background(), dataio.GenerateSettings{Kind: dataio.GenSparse, N: 400, Seed: 2})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Data
	s := RCSCSettings{Common: Common{Seed: 3, KernelRows: 150, Workers: 1}}
	got, err := Tune(context.Background(), s, d)
	if err != nil {
		t.Fatal(err)
	}
	rows := stratifiedSubset(d.Y, 150, 3)
	want, err := s.tune(context.Background(), d.Subset(rows))
	if err != nil {
		t.Fatal(err)
	}
	if got.LearnedOn != 150 || got.C != want.C || !reflect.DeepEqual(got.Kernel, want.Kernel) || got.CriterionEnd != want.CriterionEnd {
		t.Errorf("learned on %d rows, C %v, kernel %+v; the subset's own run: C %v, kernel %+v", got.LearnedOn, got.C, got.Kernel, want.C, want.Kernel)
	}
	if n := len(got.Notes); n == 0 || !strings.Contains(got.Notes[n-1].String(), "150 of the 400 training rows") {
		t.Errorf("notes %q", got.Notes)
	}
	pos, _ := d.Subset(rows).ClassCounts()
	allPos, _ := d.ClassCounts()
	if share, all := float64(pos)/150, float64(allPos)/400; share < all-0.01 || share > all+0.01 {
		t.Errorf("subset's positive share %.3f, the data's %.3f", share, all)
	}
	// At KernelRows rows, all of them; svm handles its rows itself.
	at, err := Tune(context.Background(), RCSCSettings{Common: Common{Seed: 3, KernelRows: 400, Workers: 1}}, d)
	if err != nil || at.LearnedOn != 0 {
		t.Errorf("at KernelRows: learned on %d (%v), want all", at.LearnedOn, err)
	}
	if m := learnRows(SVMSettings{Common: Common{KernelRows: 150}}, 400); m != 400 {
		t.Errorf("svm learns on %d of 400 rows, want all (its grid subsets itself)", m)
	}
	if m := learnRows(SPDSettings{Common: Common{KernelRows: -1}}, 40_000); m != 40_000 {
		t.Errorf("--kernel-rows -1: %d rows, want all", m)
	}
}
