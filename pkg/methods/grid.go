package methods

import (
	"context"
	"errors"
	"math"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// A GridScorer scores one point (C, γ) of svm's grid, γ in LIBSVM's
// convention exp(-γ‖x-z‖²): the rows it predicted correctly, of total.
type GridScorer func(ctx context.Context, C, gamma float64) (correct, total int, err error)

// GridChoice is the point SearchGrid chose and its score.
type GridChoice struct {
	C, Gamma       float64
	Correct, Total int
}

// Accuracy returns Correct / Total.
func (g GridChoice) Accuracy() float64 { return float64(g.Correct) / float64(g.Total) }

// SearchGrid is svm's grid search under a caller's criterion: the one
// search loop (searchCV) over the grid of s (s.Space: grid.py's grid or
// the user's; s.C alone when it is fixed), each point scored by score, γ
// descending and each γ's Cs ascending, and the best kept by the grid's
// tie rule (cvPoint.better): the most rows correct; on a tie the γ nearest
// in log2 to the moderate γ_h, then the smaller C, then the earlier point.
// γ_h is the mean over the training parts train of the log2 γ_h svm's grid
// takes on each (on its stratified subset of GridRows rows when larger).
// compare's Laanaya selection scores a point by its test rate on the
// first partitions. The scorer's errors are returned as they are.
func SearchGrid(ctx context.Context, s SVMSettings, train []*dataio.Dataset, score GridScorer) (GridChoice, error) {
	if err := s.Check(); err != nil {
		return GridChoice{}, err
	}
	if len(train) == 0 {
		return GridChoice{}, errors.New("svm: grid search: no training part for the tie rule's moderate gamma")
	}
	h := 0.0
	for _, tr := range train {
		h += gridLog2GammaH(tr, s.Common)
	}
	ev := &isoEval{score: score, log2GammaH: h / float64(len(train)), cm: s.Common}
	Cs, gammas := s.Space.axes(s.C)
	sc := &searchCV{method: "svm", ev: ev, iters: 1, bare: true,
		prop: proposerFunc(func(int, []cvPoint, cvPoint) (batch, error) {
			return batch{points: gridPoints(gammas, Cs)}, nil
		})}
	if _, err := sc.loop(ctx, func(Step) {}); err != nil {
		return GridChoice{}, err
	}
	b := sc.best
	return GridChoice{C: b.C, Gamma: b.Gamma, Correct: b.Correct, Total: b.Total}, nil
}

// gridLog2GammaH is the log2 γ_h of svm's grid on train: of its rows, or
// of its stratified subset of cm.GridRows rows when it has more
// (newGridSearch).
func gridLog2GammaH(train *dataio.Dataset, cm Common) float64 {
	if m := cm.gridRows(); m > 0 && train.Len() > m {
		train = train.Subset(stratifiedSubsetOf(train, m, cm.Seed))
	}
	return math.Log2(gammaOfMedian(kernel.SquaredDistancesPacked(train.Features()).MedianOffDiag())) // packed: the median alone, half the memory
}
