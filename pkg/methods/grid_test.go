package methods

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// sparseSet returns n rows of dataio.SparseBinary (the a1a-like set of
// `kerneltune generate sparse`), z-scored as tune does by default.
func sparseSet(t testing.TB, n int, seed uint64) *dataio.Dataset {
	t.Helper()
	d := dataio.SparseBinary(n, rand.New(rand.NewPCG(seed, 0x7370)))
	tr, _, _ := normalizedSplit(t, d, d.Subset([]int{0}))
	return tr
}

// BenchmarkGridSearchCVSparse: the baseline's whole grid search on the
// a1a-like set, at the sizes of issue 11 (n = 5,000 takes minutes per op:
// run it with -benchtime 1x).
func BenchmarkGridSearchCVSparse(b *testing.B) {
	for _, n := range []int{1000, 5000} {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			d := sparseSet(b, n, 1)
			b.ReportAllocs()
			for b.Loop() {
				g, err := gridSearchCV(context.Background(), d, Common{Seed: 1}, Space{})
				if err != nil {
					b.Fatal(err)
				}
				b.ReportMetric(float64(g.Solves), "solves")
			}
		})
	}
}

// plainGridCounts is the grid search before issue 11, kept as the reference:
// every (γ, fold) job builds its matrices through subSym and subCross from
// the distance matrix, reads them through kernel.Precomputed, and solves
// every C of the grid in ascending order, each warm-started from the
// previous α; nothing is skipped.
func plainGridCounts(t *testing.T, d *dataio.Dataset, plan cvPlan, gammas, Cs []float64, s solver.Settings) [][]int {
	t.Helper()
	D := kernel.SquaredDistances(d.X)
	correct := make([][]int, len(gammas))
	for g, gamma := range gammas {
		correct[g] = make([]int, len(Cs))
		ex := func(v float64) float64 { return math.Exp(-gamma * v) }
		for f := range plan.test {
			tr, te := plan.train[f], plan.test[f]
			km := kernel.Precomputed(subSym(D, tr, ex))
			Kte := subCross(D, te, tr, ex)
			ytr, yte := pick(d.Y, tr), pick(d.Y, te)
			var alpha []float64
			for c, C := range Cs {
				res, err := solver.TrainSVC(context.Background(), km, ytr, solver.SVCParams{Margin: solver.L1, C: C}, s, alpha)
				if err != nil {
					t.Fatal(err)
				}
				alpha = res.Alpha
				for i, v := range solver.Decision(nil, Kte, res.Coef, res.Bias) {
					if (v > 0) == (yte[i] > 0) {
						correct[g][c]++
					}
				}
			}
		}
	}
	return correct
}

// TestGridSearchMatchesPlainGrid: the fast grid search (full-storage fold
// matrices, solves skipped after a C without bounded α, the small γ first)
// counts exactly the correct CV predictions of the plain full grid at every
// one of the 110 grid points, and so chooses the same (C, γ) with the same
// CV accuracy, on the a1a-like set (where the large γ leave no α at the
// bound and most of their solves are skipped) and on heart.
func TestGridSearchMatchesPlainGrid(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		d    *dataio.Dataset
	}{
		{"sparse-300", sparseSet(t, 300, 2)},
		{"heart-120", heartHead(t, 120)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := tc.d
			opts := Common{Seed: 3, Workers: 2}
			plan, err := newCVPlan(d.Y, opts)
			if err != nil {
				t.Fatal(err)
			}
			Cs, gammas := make([]float64, len(gridLog2C)), make([]float64, len(gridLog2Gamma))
			for i, l := range gridLog2C {
				Cs[i] = math.Exp2(l)
			}
			for i, l := range gridLog2Gamma {
				gammas[i] = math.Exp2(l)
			}
			want := plainGridCounts(t, d, plan, gammas, Cs, opts.settings())
			got, solves, err := gridCounts(context.Background(), kernel.SquaredDistances(d.X), d, plan, gammas, Cs, opts)
			if err != nil {
				t.Fatal(err)
			}
			for g := range gammas {
				if !slices.Equal(got[g], want[g]) {
					t.Errorf("log2 γ = %g: correct %v, plain grid %v", gridLog2Gamma[g], got[g], want[g])
				}
			}
			res, err := gridSearchCV(context.Background(), d, opts, Space{})
			if err != nil {
				t.Fatal(err)
			}
			gammaH := moderateGamma(kernel.SquaredDistances(d.X))
			bg, bc := pickGrid(want, gammas, Cs, gammaH)
			if res.C != Cs[bc] || res.Gamma != gammas[bg] || res.Accuracy != float64(want[bg][bc])/float64(d.Len()) {
				t.Errorf("chose (C, γ) = (%g, %g) at accuracy %g, the plain grid (%g, %g) at %g",
					res.C, res.Gamma, res.Accuracy, Cs[bc], gammas[bg], float64(want[bg][bc])/float64(d.Len()))
			}
			if res.Solves != solves {
				t.Errorf("gridSearchCV reports %d solves, gridCounts %d", res.Solves, solves)
			}
			t.Logf("%s: %d of %d solves, (log2 C, log2 γ) = (%g, %g), accuracy %.4f", tc.name, solves, 110*len(plan.test), math.Log2(res.C), math.Log2(res.Gamma), res.Accuracy)
			if tc.name == "sparse-300" && solves > 110*len(plan.test)*3/4 {
				t.Errorf("%d solves of %d on the sparse set: the skip after an unbounded solution did not happen", solves, 110*len(plan.test))
			}
		})
	}
}
