package methods

import (
	"context"
	"errors"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/solver"
)

// selectC picks C from Cs by k-fold cross-validation (cm.Folds, default 5,
// folds drawn from cm.Seed) for the fixed kernel matrix K of the training
// part, with the given margin (for the L2 margin C enters as K + I/C). It
// is one round of the one search loop (searchCV, scored by cvCounts), its
// points differing only in C, so that the grid's tie rule
// (cvPoint.better) gives ties to the smaller C (the smoother decision
// function). It returns the chosen C, its CV accuracy and the number of
// SVM solves.
//
// On more than cm.GridRows rows (default 5,000) the cross-validation runs
// on a stratified random subset of that many rows (stratifiedSubset; the
// folds index K's rows, nothing is copied), as the grid search does
// (gridProposer), without its refinement: one C of a short list is
// well chosen on 5,000 rows, and on all 20,000 lccp's choice at θ0 did
// not finish in 19 minutes. The accuracy is then the subset's.
func selectC(ctx context.Context, K mat.Symmetric, y []float64, Cs []float64, margin solver.Margin, cm Common) (C, acc float64, solves int, err error) {
	n := len(y)
	if K.SymmetricDim() != n {
		panic("methods: selectC: kernel matrix and labels differ in size")
	}
	if len(Cs) == 0 {
		return 0, 0, 0, errors.New("selectC: no candidate C")
	}
	plan, err := selectCPlan(y, cm)
	if err != nil {
		return 0, 0, 0, err
	}
	sorted := slices.Clone(Cs)
	slices.Sort(sorted) // ascending: foldSweep warm-starts up the Cs
	pts := make([]cvPoint, len(sorted))
	for i, c := range sorted {
		pts[i] = cvPoint{Log2C: math.Log2(c), Log2Gamma: []float64{0}, C: c}
	}
	ev := &isoEval{K: K, margin: margin, cs: cvSet{y: y}, plan: plan, cm: cm}
	round := &cvRound{ev: ev, rows: plan.tested(), what: "cross-validation, ", stage: selectCStage(n, len(Cs), cm)}
	sc := &searchCV{method: "selectC", iters: 1, bare: true,
		prop: proposerFunc(func(it int, _ []cvPoint, _ cvPoint) (batch, error) {
			return batch{points: pts, round: round}, nil
		})}
	if _, err := sc.loop(ctx, func(Step) {}); err != nil {
		return 0, 0, 0, err
	}
	return sc.best.C, sc.best.Accuracy(), sc.solves, nil
}

// selectCPlan is selectC's folds: of all rows labelled y, or, on more than
// cm.GridRows, of a stratified subset of them, its folds indexing all rows
// (ascending stays ascending: the subset ascends).
func selectCPlan(y []float64, cm Common) (cvPlan, error) {
	m := cm.gridRows()
	if m <= 0 || len(y) <= m {
		return newCVPlan(y, cm)
	}
	rows := stratifiedSubset(y, m, cm.Seed)
	plan, err := newCVPlan(pick(y, rows), cm)
	if err != nil {
		return cvPlan{}, err
	}
	for f := range plan.train {
		for _, part := range [][]int{plan.train[f], plan.test[f]} {
			for i, r := range part {
				part[i] = rows[r]
			}
		}
	}
	return plan, nil
}
