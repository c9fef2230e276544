package methods

import (
	"context"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// columnCounter is a kernel.Matrix that counts the columns asked of it
// and their entries.
type columnCounter struct {
	kernel.Matrix
	columns int
	entries int64
}

func (c *columnCounter) Column(i int, idx []int, dst []float64) {
	c.columns++
	if idx == nil {
		c.entries += int64(len(dst))
	} else {
		c.entries += int64(len(idx))
	}
	c.Matrix.Column(i, idx, dst)
}

// TestRowsDecideAllSameBits: on the bounded-memory route the test rows'
// decision values of a sweep's solutions, computed at once after the sweep
// from one kernel column per test row (rowsDecideAll), are those of one
// column per solution and test row (rowsFoldOf's decider, the route before)
// to the last bit, on real Adult rows (a1a, a fold of 1,284 training and
// 321 test rows, γ = 2⁻⁵, C = 2⁰…2⁸ along the solver path: 5 solutions of
// 526 to 581 support vectors), and take a fifth of the columns.
func TestRowsDecideAllSameBits(t *testing.T) {
	d, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	cm := Common{Seed: 1}
	plan, err := newCVPlanOf(d, cm)
	if err != nil {
		t.Fatal(err)
	}
	tr, te := plan.train[0], plan.test[0]
	ytr := pick(d.Y, tr)
	gamma := math.Exp2(-5)
	all := isoRows(d.X, gamma)
	path, err := solver.NewSVCPath(kernel.Sub(all, tr), ytr, 1, 1, solver.Settings{Workers: 1})
	if err != nil {
		t.Fatal(err)
	}
	defer path.Close()
	var sols []svCoef
	var coefs [][]float64
	for _, l := range []float64{0, 2, 4, 6, 8} {
		res, err := path.Train(context.Background(), math.Exp2(l))
		if err != nil {
			t.Fatal(err)
		}
		sols = append(sols, compactCoef(res.Coef, res.Bias))
		coefs = append(coefs, res.Coef)
	}
	one := &columnCounter{Matrix: all}
	_, decide := rowsFoldOf(one, tr, te)
	batch := &columnCounter{Matrix: all}
	got := rowsDecideAll(batch, tr, te)(sols)
	if len(got) != len(sols) {
		t.Fatalf("%d solutions' decision values, want %d", len(got), len(sols))
	}
	want := make([]float64, len(te))
	for k, coef := range coefs {
		decide(want, coef, sols[k].bias)
		if n := len(sols[k].sv); n < 500 {
			t.Errorf("solution %d: %d support vectors, want a sweep of many (≥ 500)", k, n)
		}
		for i := range want {
			if math.Float64bits(got[k][i]) != math.Float64bits(want[i]) {
				t.Fatalf("solution %d, test row %d: decision value %.17g at once, %.17g one solution at a time", k, i, got[k][i], want[i])
			}
		}
	}
	if batch.columns != len(te) || one.columns != len(te)*len(sols) {
		t.Errorf("%d columns at once, %d one solution at a time: want %d and %d", batch.columns, one.columns, len(te), len(te)*len(sols))
	}
	var nsv []int
	for _, sl := range sols {
		nsv = append(nsv, len(sl.sv))
	}
	t.Logf("support vectors %v; kernel entries: %d at once, %d one solution at a time", nsv, batch.entries, one.entries)
}

// TestRowsRouteGridSameChoice: the cross-validation of a grid on the
// bounded-memory route (cvCounts with X: every fold's decisions after its
// sweep, rowsDecideAll) gives every point the count of correct test rows
// that the sweep with one decision column per solution gives (rowsFoldOf's
// decider, the route before), and so the same choice of (C, γ), on the real
// Adult rows a1a: 3 γ × 6 C, 5 folds.
func TestRowsRouteGridSameChoice(t *testing.T) {
	d, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	cm := Common{Seed: 1, Workers: 2}
	plan, err := newCVPlanOf(d, cm)
	if err != nil {
		t.Fatal(err)
	}
	gammas := []float64{math.Exp2(-3), math.Exp2(-5), math.Exp2(-7)}
	var Cs []float64
	for _, l := range []float64{-1, 1, 3, 5, 7, 9} {
		Cs = append(Cs, math.Exp2(l))
	}
	ev := &isoEval{X: d.X, cs: cvSetOf(d), plan: plan, cm: cm}
	got, _, err := ev.together(context.Background(), gridPoints(gammas, Cs))
	if err != nil {
		t.Fatal(err)
	}
	s := cm.settings()
	s.Workers = 1
	want := gridPoints(gammas, Cs)
	for g, gamma := range gammas {
		all := isoRows(d.X, gamma)
		for f := range plan.train {
			tr, te := plan.train[f], plan.test[f]
			km, one := rowsFoldOf(all, tr, te)
			cnt, _, err := foldSweep(context.Background(), km, foldDecider{one: one}, pick(d.Y, tr), pick(d.Y, te), Cs, solver.L1, [2]float64{}, s, true)
			if err != nil {
				t.Fatal(err)
			}
			for c, v := range cnt {
				want[g*len(Cs)+c].Correct += v
			}
		}
	}
	for i := range want {
		want[i].Total = plan.tested()
		if got[i].Correct != want[i].Correct {
			t.Errorf("log2 γ = %g, log2 C = %g: %d correct with the decisions after the sweep, %d one solution at a time", got[i].Log2Gamma[0], got[i].Log2C, got[i].Correct, want[i].Correct)
		}
	}
	b, w := rankCV(got, 0)[0], rankCV(want, 0)[0]
	if b.C != w.C || b.Gamma != w.Gamma || b.Correct != w.Correct {
		t.Errorf("chose C = %g, γ = %g (%d correct), want C = %g, γ = %g (%d)", b.C, b.Gamma, b.Correct, w.C, w.Gamma, w.Correct)
	}
	if b.Log2C != 5 || b.Log2Gamma[0] != -7 || b.Correct != 1338 || b.Total != 1605 {
		t.Errorf("chose log2 C = %g, log2 γ = %g at %d of %d correct, want 5, -7 at 1338 of 1605", b.Log2C, b.Log2Gamma[0], b.Correct, b.Total)
	}
}
