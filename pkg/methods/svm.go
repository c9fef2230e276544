package methods

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// SVMSettings configure the baseline of every paper: an L1-soft-margin SVM
// (C-SVC) with the isotropic Gaussian kernel exp(-γ‖x-z‖²), (C, γ) chosen
// by k-fold cross-validation over LIBSVM grid.py's default grid (see
// gridSearchCV).
//
// It has one parameterisation (iso), the L1 soft margin, and no iteration: Common is all there is.
//   - C: 0 (the default) searches (C, γ) over the whole grid; C > 0 fixes C
//     and searches γ only.
//   - Folds: the grid search's k (default 5), folds drawn from Seed.
//   - Space: the user's grid of log2 C and log2 γ (grid.py's -log2c and
//     -log2g), each zero for grid.py's.
type SVMSettings struct {
	Common
	Space
}

// Name returns "svm".
func (SVMSettings) Name() string { return "svm" }

// Check refuses shared settings out of range (Common.check; svm
// cross-validates).
func (s SVMSettings) Check() error {
	if err := s.Common.check("svm"); err != nil {
		return err
	}
	return s.Space.check("svm", s.C)
}

// WithBase returns s with the shared settings c.
func (s SVMSettings) WithBase(c Common) Spec { s.Common = c; return s }

// svmInfo is svm's entry in the registry (All).
var svmInfo = Info{
	Name: "svm", Summary: hint.T("isotropic Gaussian, (C, γ) by k-fold CV over LIBSVM grid.py's grid (the baseline)"),
	Params: []string{"iso"}, Margins: []string{"l1"}, marginWhy: "the baseline is the L1 soft margin",
	build: func(string, string) Spec { return SVMSettings{} },
}

// PeakBytes: the grid search; the final fit afterwards needs only a cache.
func (s SVMSettings) PeakBytes(n, d int) int64 {
	m := newMemModel(s.Common)
	return peak(n, d, max(m.grid(n, d, s.Common), m.finalFit(n, d)))
}

// Tune runs the baseline's grid search (see SVM) on the (already
// normalised) training part. The search runs on the one search loop
// (searchCV, gridProposer); the Result is built here from its gridResult,
// not by searchCV.result: the grid's outcome is what GridMemo shares with
// gi's choice of C (and spd's cv start runs the same search), and svm's
// records say one iteration with one trace step at iteration 1 whatever
// the rounds, where the loop's trace has a step at iteration 0 (and 1 for
// the large-data refinement): every svm record's trace would change.
func (s SVMSettings) tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	start := time.Now()
	if err := s.Check(); err != nil {
		return nil, err
	}
	if err := checkTrain("svm", train); err != nil {
		return nil, err
	}
	s.Progress.Announce(gridStages(train.Len(), s.Common, s.Space)...)
	g, err := gridSearchCV(ctx, train, s.Common, s.Space)
	if err != nil {
		return nil, fmt.Errorf("svm: %w", err)
	}
	folds := s.Folds
	if folds == 0 {
		folds = defaultFolds
	}
	res := &Result{
		Method:         "svm",
		Param:          "iso",
		Kernel:         kernel.Spec{Kind: kernel.KindGaussian, Gamma: g.Gamma},
		Margin:         solver.L1,
		C:              g.C,
		Status:         status.Converged,
		Iter:           1,
		Solves:         g.Solves,
		Credit:         g.credit,
		Criterion:      fmt.Sprintf("%d-fold CV accuracy", folds),
		CriterionStart: g.Accuracy,
		CriterionEnd:   g.Accuracy,
		Figures: []Figure{
			{Name: "cv accuracy", Value: g.Accuracy},
			{Name: "log2 C", Value: math.Log2(g.C)},
			{Name: "log2 gamma", Value: math.Log2(g.Gamma)},
		},
	}
	switch {
	case s.C > 0 && !s.Log2Gamma.IsSet():
		res.Init = fmt.Sprintf("C = %g fixed; gamma by %d-fold CV over log2 gamma = 3..-15 step -2", s.C, folds)
	case s.C > 0:
		res.Init = fmt.Sprintf("C = %g fixed; gamma by %d-fold CV over the user's log2 gamma = %g..%g step %g", s.C, folds, s.Log2Gamma.Begin, s.Log2Gamma.End, s.Log2Gamma.Step)
	default:
		res.Init = fmt.Sprintf("(C, gamma) by %d-fold CV over %s; ties go to the gamma nearest the median heuristic, then the smaller C", folds, s.describe())
	}
	res.Init += weightsNote(s.Common)
	res.Init += g.note(train.Len())
	noteShared(res, cvSetOf(train))
	// Whether the chosen kernel is degenerate is judged for every method
	// after the final fit (ClassifyDegenerate), not here.
	st := Step{Iter: 1, Objective: g.Accuracy, Elapsed: time.Since(start)}
	res.Trace = []Step{st}
	s.record(st)
	res.Elapsed = time.Since(start)
	return res, nil
}

// medianKernel returns exp(-γ m), m the median of ‖x_i-x_j‖² over the
// pairs of training rows: the median off-diagonal kernel value (for an even
// number of pairs, exp of the middle two distances' mean, not the mean of
// their kernel values: close enough to flag a degenerate kernel).
func medianKernel(d *dataio.Dataset, gamma float64) float64 {
	return math.Exp(-gamma * kernel.SquaredDistancesPacked(d.Features()).MedianOffDiag())
}

// noteShared says in a search's Criterion and Init how it scored
// multi-class data (cs): one (C, γ) for all the final model's SVMs, each
// fold predicted as the final model predicts. Nothing for binary data.
func noteShared(res *Result, cs cvSet) {
	k := cs.k
	switch {
	case cs.class == nil:
	case cs.scheme == dataio.OneVsRest:
		res.Criterion += " (one-vs-rest, the largest decision value)"
		res.Init += fmt.Sprintf("; %d classes: one (C, gamma) for all %d class-against-the-rest SVMs, each fold predicted by the largest decision value", k, k)
	default:
		res.Criterion += " (one-vs-one vote)"
		res.Init += fmt.Sprintf("; %d classes: one (C, gamma) for all %d pairs, each fold predicted by LIBSVM's one-vs-one vote (grid.py on multi-class data)", k, k*(k-1)/2)
	}
}
