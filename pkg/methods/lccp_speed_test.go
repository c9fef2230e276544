package methods

import (
	"context"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// TestLCCPKMul checks the O(nd) product K_θv over presorted features
// against the dense Gram matrix, on data with tied values (binary and
// rounded features, as LIBSVM's one-hot sets have) and on a1a.
func TestLCCPKMul(t *testing.T) {
	X, y := lccpToy(150, 6, 0.5, 3)
	for i := 0; i < 150; i++ { // ties: two binary and one rounded feature
		X.Set(i, 0, float64(i%2))
		X.Set(i, 1, float64((i/3)%2))
		X.Set(i, 2, math.Round(X.At(i, 2)))
	}
	a1a, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	a1a = a1a.Subset(seq(300))
	for _, tc := range []struct {
		name string
		ds   *dataio.Dataset
	}{{"toy", &dataio.Dataset{X: X, Y: y}}, {"a1a", a1a}} {
		n, d := tc.ds.X.Dims()
		p := newLCCPProblem(tc.ds.X, tc.ds.Y, false, solver.L2, 1, solver.Settings{})
		phi := make([]float64, d)
		for k := range phi {
			phi[k] = 0.5 + float64(k%5)*0.7
		}
		K, err := p.gram(phi) // sets p.theta
		if err != nil {
			t.Fatal(err)
		}
		v := make([]float64, n)
		for i := range v {
			v[i] = float64((i*7)%11) / 11
		}
		got := make([]float64, n)
		p.kmul(got, v)
		var worst, scale float64
		for i := range n {
			var want float64
			for j := range n {
				want += K.At(i, j) * v[j]
			}
			worst = math.Max(worst, math.Abs(got[i]-want))
			scale = math.Max(scale, math.Abs(want))
		}
		if worst > 1e-12*scale {
			t.Errorf("%s: max |K_θv - Gram·v| = %.3g (scale %.3g)", tc.name, worst, scale)
		}
	}
}

// lccpHeartPartition is partition k of `kerneltune compare builtin:heart`,
// normalised as compare does.
func lccpHeartPartition(t testing.TB, k int) (*dataio.Dataset, uint64) {
	train, _, seed := tlComparePartition(t, "builtin:heart", k)
	return train, seed
}

// TestLCCPInexactInner runs the LCCP on real data, the first heart
// partition of the default compare (C by CV as compare does) and 250 rows of
// a1a (sparse one-hot, z-scored), with the inner problems solved only to a
// tenth of their starting gradient (the default) and to the absolute 1e-6
// (innerRelTol 0, as before), and checks Theorem 1's monotone decrease in
// every step of both runs, that the two reach the same J (1e-4 relative) and
// C, and that the inexact run needs at most 60% of the radius solves.
func TestLCCPInexactInner(t *testing.T) {
	if testing.Short() {
		t.Skip("two full LCCP runs on a1a rows")
	}
	ctx := context.Background()
	heart, seed := lccpHeartPartition(t, 0)
	a1a, err := dataio.Load("../../testdata/libsvm/a1a", dataio.ReadOptions{Features: 123})
	if err != nil {
		t.Fatal(err)
	}
	a1a = a1a.Subset(seq(250))
	nz, err := dataio.FitNormalizer(dataio.ZScore, a1a.X)
	if err != nil {
		t.Fatal(err)
	}
	a1a = nz.ApplyDataset(a1a)
	for _, tc := range []struct {
		name string
		ds   *dataio.Dataset
		s    LCCPSettings
	}{
		{"heart", heart, LCCPSettings{Common: Common{Seed: seed, Eps: 1e-3}}},
		{"a1a-250", a1a, LCCPSettings{Common: Common{C: 1, Eps: 1e-3}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var res [2]*Result
			for i, rel := range []float64{0, lccpInnerRelTol} {
				var steps []Step
				s := tc.s
				s.Recorder = func(st Step) { steps = append(steps, st) }
				r, err := s.tune(ctx, tc.ds, rel)
				if err != nil {
					t.Fatal(err)
				}
				for k := 1; k < len(steps); k++ {
					if steps[k].Objective > steps[k-1].Objective*(1+1e-9) {
						t.Errorf("inner tolerance %g: J increased at step %d: %.12g → %.12g", rel, k, steps[k-1].Objective, steps[k].Objective)
					}
				}
				if !(r.CriterionEnd < r.CriterionStart) {
					t.Errorf("inner tolerance %g: J %.6g → %.6g", rel, r.CriterionStart, r.CriterionEnd)
				}
				res[i] = r
				t.Logf("inner tolerance %g: J %.9g → %.9g in %d steps, %.0f radius solves, %.0f inner iterations, C %g, %v",
					rel, r.CriterionStart, r.CriterionEnd, r.Iter, lccpFigure(r, "radius_solves"), lccpFigure(r, "inner_iterations"), r.C, r.Elapsed)
			}
			exact, inexact := res[0], res[1]
			if exact.C != inexact.C || math.Abs(inexact.CriterionEnd-exact.CriterionEnd) > 1e-4*exact.CriterionEnd {
				t.Errorf("J %.9g (C %g) inexact, %.9g (C %g) exact", inexact.CriterionEnd, inexact.C, exact.CriterionEnd, exact.C)
			}
			if re, ri := lccpFigure(exact, "radius_solves"), lccpFigure(inexact, "radius_solves"); ri > 0.6*re {
				t.Errorf("radius solves: %.0f inexact, %.0f exact: want at most 60%%", ri, re)
			}
			if k1, k2 := exact.Kernel.Kind, inexact.Kernel.Kind; k1 != kernel.KindL1 || k2 != kernel.KindL1 {
				t.Errorf("kernels %v, %v", k1, k2)
			}
		})
	}
}
