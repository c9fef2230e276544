package methods

import (
	"context"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
)

// The grid's references for the tests, written apart from the search
// loop (searchCV) so that the tests compare the loop with them: pickGrid
// is grid.py's choice with the tie rule stated as the grid states it, and
// gridCounts the grid's CV counts through the one worker pool.

// pickGrid returns the grid point with the most correct CV predictions; ties
// go to the γ nearest gammaH in log2 (a moderate kernel), then to the
// smaller C, then to the larger γ.
func pickGrid(correct [][]int, gammas, Cs []float64, gammaH float64) (bg, bc int) {
	bestCnt, bestDist := -1, math.Inf(1)
	for g, gamma := range gammas {
		dist := math.Abs(math.Log2(gamma / gammaH))
		for c, C := range Cs {
			cnt := correct[g][c]
			better := cnt > bestCnt ||
				cnt == bestCnt && (dist < bestDist-1e-9 ||
					math.Abs(dist-bestDist) <= 1e-9 && (C < Cs[bc] || C == Cs[bc] && gamma > gammas[bg]))
			if better {
				bg, bc, bestCnt, bestDist = g, c, cnt, dist
			}
		}
	}
	return bg, bc
}

// gridCounts returns correct[g][c], the number of rows predicted correctly
// over the folds of plan with the isotropic kernel exp(-γ_g D) and C_c (Cs
// ascending), D the squared distances of the rows, and the number of SVM
// solves. With D nil the kernel is computed from the rows of train column
// by column (the bounded-memory route, cvGroup).
func gridCounts(ctx context.Context, D *mat.SymDense, train *dataio.Dataset, plan cvPlan, gammas, Cs []float64, cm Common) (correct [][]int, solves int, err error) {
	groups := make([]cvGroup, len(gammas))
	order := make([]int, len(gammas))
	for g, gamma := range gammas {
		groups[g] = cvGroup{D: D, Gamma: gamma, Cs: Cs}
		if D == nil {
			groups[g].X = train.X
		}
		// The small γ go first: their solves take the most SMO
		// iterations at large C, and a long job left for the end would
		// keep one core idle. The counts are sums of integers, so the
		// order changes nothing else.
		order[g] = len(gammas) - 1 - g
	}
	cs := cvSet{y: train.Y}
	if train.MultiClass() {
		cs = cvSet{class: train.Class, k: train.NumClasses(), scheme: train.Multiclass}
	}
	correct, solves, err = cvCounts(ctx, groups, order, cs, plan, cm,
		func(g int) string { return fmt.Sprintf("gamma = 2^%g, ", math.Log2(gammas[g])) })
	if err != nil {
		return nil, solves, fmt.Errorf("grid search: %w", err)
	}
	return correct, solves, nil
}
