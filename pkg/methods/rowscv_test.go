package methods

import (
	"context"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// TestRowsRouteMatchesColdSolves checks the bounded-memory route of the
// cross-validation (cvGroup with X: kernel columns from the rows through
// kernel.Sub, test decisions one column over the support vectors) against
// independent cold solves on every point, as the dense route is checked in
// TestGridCountsMatchColdSolves.
func TestRowsRouteMatchesColdSolves(t *testing.T) {
	d := heartHead(t, 60)
	opts := Common{Seed: 5, Eps: 1e-9, Workers: 2}
	plan, err := newCVPlan(d.Y, opts)
	if err != nil {
		t.Fatal(err)
	}
	gammas := []float64{math.Exp2(-1), math.Exp2(-5), math.Exp2(-9)}
	Cs := []float64{math.Exp2(-3), 1, math.Exp2(5)}
	got, solves, err := gridCounts(context.Background(), nil, d, plan, gammas, Cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	if solves != 3*3*5 {
		t.Errorf("%d solves, want 45", solves)
	}
	dense, _, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, gammas, Cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for g, gamma := range gammas {
		for c, C := range Cs {
			want := coldCV(t, d, plan, gamma, C, solver.Settings{Eps: 1e-9})
			if got[g][c] != want || dense[g][c] != want {
				t.Errorf("γ = %g, C = %g: rows route %d correct, dense route %d, cold solves %d", gamma, C, got[g][c], dense[g][c], want)
			}
		}
	}
}

// TestRowsRouteSparseData runs the bounded-memory route on sparse one-hot
// rows (the sparse kernel route under kernel.Sub) and checks it against
// cold solves at a point where the folds have many support vectors.
func TestRowsRouteSparseData(t *testing.T) {
	g, err := dataio.Generate(context.Background(), dataio.GenerateSettings{Kind: dataio.GenSparse, N: 300, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	d := g.Data
	opts := Common{Seed: 2, Eps: 1e-9, Workers: 2}
	plan, err := newCVPlan(d.Y, opts)
	if err != nil {
		t.Fatal(err)
	}
	gammas, Cs := []float64{math.Exp2(-5)}, []float64{1, 8}
	got, _, err := gridCounts(context.Background(), nil, d, plan, gammas, Cs, opts)
	if err != nil {
		t.Fatal(err)
	}
	for c, C := range Cs {
		if want := coldCV(t, d, plan, gammas[0], C, solver.Settings{Eps: 1e-9}); got[0][c] != want {
			t.Errorf("C = %g: rows route %d correct, cold solves %d", C, got[0][c], want)
		}
	}
}

// TestRowsRouteRefusesMultiClass: the bounded-memory route is binary only,
// and says so instead of scoring the wrong thing.
func TestRowsRouteRefusesMultiClass(t *testing.T) {
	groups := []cvGroup{{X: nil, Gamma: 1, Cs: []float64{1}}}
	_, _, err := cvCounts(context.Background(), groups, []int{0}, cvSet{class: []int{0, 1, 2}, k: 3}, cvPlan{}, Common{}, func(int) string { return "" })
	if err == nil {
		t.Fatal("no error for multi-class data on the bounded-memory route")
	}
}
