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

// TestRowsRouteMultiClass: on multi-class data the bounded-memory route
// scores every fold as the dense route does (each subproblem read through
// kernel.Sub, its test decisions over its support vectors), one-vs-one and
// one-vs-rest.
func TestRowsRouteMultiClass(t *testing.T) {
	for _, scheme := range []string{dataio.OneVsOne, dataio.OneVsRest} {
		d, err := dataio.Load("../../testdata/multiclass/wine.scale", dataio.ReadOptions{Multiclass: scheme})
		if err != nil {
			t.Fatal(err)
		}
		cm := Common{Seed: 4, Eps: 1e-9, Workers: 2}
		plan, err := newCVPlanOf(d, cm)
		if err != nil {
			t.Fatal(err)
		}
		gammas, Cs := []float64{math.Exp2(-3), math.Exp2(-7)}, []float64{math.Exp2(-1), math.Exp2(3)}
		rows, _, err := gridCounts(context.Background(), nil, d, plan, gammas, Cs, cm)
		if err != nil {
			t.Fatal(err)
		}
		dense, _, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, gammas, Cs, cm)
		if err != nil {
			t.Fatal(err)
		}
		for g := range gammas {
			for c := range Cs {
				if rows[g][c] != dense[g][c] || rows[g][c] < 50 {
					t.Errorf("%s γ = %g, C = %g: rows route %d correct, dense route %d (of %d)", scheme, gammas[g], Cs[c], rows[g][c], dense[g][c], d.Len())
				}
			}
		}
	}
}
