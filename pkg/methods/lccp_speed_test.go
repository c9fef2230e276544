package methods

import (
	"context"
	"fmt"
	"math"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

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
	t.Parallel()
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
				r, err := s.tuneInexact(ctx, tc.ds, rel)
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

// BenchmarkLCCPHeart times a whole lccp run (C by CV, as compare runs it)
// on the first heart partition of the default compare, with the inner
// problems solved exactly (to 1e-6) and inexactly (the default).
func BenchmarkLCCPHeart(b *testing.B) {
	heart, seed := lccpHeartPartition(b, 0)
	for _, rel := range []float64{0, lccpInnerRelTol} {
		b.Run(fmt.Sprintf("innerRelTol=%g", rel), func(b *testing.B) {
			for b.Loop() {
				if _, err := (LCCPSettings{Common: Common{Seed: seed}}).tuneInexact(context.Background(), heart, rel); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
