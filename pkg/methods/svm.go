package methods

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// SVM is the baseline of every paper: an L1-soft-margin SVM (C-SVC) with the
// isotropic Gaussian kernel exp(-γ‖x-z‖²), (C, γ) chosen by k-fold
// cross-validation over LIBSVM grid.py's default grid (see gridSearchCV).
type SVM struct{}

// NewSVM returns the baseline method.
func NewSVM() Method { return SVM{} }

// Name returns "svm".
func (SVM) Name() string { return "svm" }

// Params lists the one parameterisation: "iso".
func (SVM) Params() []string { return []string{"iso"} }

// Tune runs the grid search on the training part with the settings opts
// gives (svmSettingsFrom).
func (SVM) Tune(ctx context.Context, train *dataio.Dataset, opts Options) (*Result, error) {
	s, err := svmSettingsFrom(opts)
	if err != nil {
		return nil, err
	}
	return s.Tune(ctx, train)
}

// SVMSettings configure the svm baseline. It has one parameterisation
// (iso), the L1 soft margin, and no iteration: Common is all there is.
//   - C: 0 (the default) searches (C, γ) over the whole grid; C > 0 fixes C
//     and searches γ only.
//   - Folds: the grid search's k (default 5), folds drawn from Seed.
type SVMSettings struct {
	Common
}

// Tune runs the baseline's grid search (see SVM) on the (already
// normalised) training part.
func (s SVMSettings) Tune(ctx context.Context, train *dataio.Dataset) (*Result, error) {
	start := time.Now()
	if s.C < 0 || math.IsNaN(s.C) || math.IsInf(s.C, 0) {
		return nil, fmt.Errorf("methods: svm: C must be positive, got %v", s.C)
	}
	g, err := gridSearchCV(ctx, train, s.Common)
	if err != nil {
		return nil, fmt.Errorf("methods: svm: %w", err)
	}
	folds := s.Folds
	if folds == 0 {
		folds = defaultFolds
	}
	res := &Result{
		Method:         "svm",
		Param:          "iso",
		Kernel:         kernel.Spec{Kind: kernel.KindGaussian, Gamma: g.Gamma},
		Margin:         "l1",
		C:              g.C,
		Status:         status.Converged,
		Iter:           1,
		Solves:         g.Solves,
		Criterion:      fmt.Sprintf("%d-fold CV accuracy", folds),
		CriterionStart: g.Accuracy,
		CriterionEnd:   g.Accuracy,
		Figures: []Figure{
			{Name: "cv accuracy", Value: g.Accuracy},
			{Name: "log2 C", Value: math.Log2(g.C)},
			{Name: "log2 gamma", Value: math.Log2(g.Gamma)},
		},
	}
	if s.C > 0 {
		res.Init = fmt.Sprintf("C = %g fixed; gamma by %d-fold CV over log2 gamma = 3..-15 step -2", s.C, folds)
	} else {
		res.Init = fmt.Sprintf("(C, gamma) by %d-fold CV over LIBSVM grid.py's grid (log2 C = -5..15, log2 gamma = 3..-15, step 2); ties go to the gamma nearest the median heuristic, then the smaller C", folds)
	}
	res.Init += g.note(train.Len())
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
	return math.Exp(-gamma * medianOffDiag(kernel.SquaredDistances(d.X)))
}
