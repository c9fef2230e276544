package methods

import (
	"context"
	"fmt"
	"math"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
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

// Tune runs the grid search on the training part.
func (m SVM) Tune(ctx context.Context, train *dataio.Dataset, opts Options) (*Result, error) {
	start := time.Now()
	if opts.Param != "" && opts.Param != "iso" {
		return nil, fmt.Errorf("methods: svm: unknown param %q (svm has only iso)", opts.Param)
	}
	if opts.Margin != "" && opts.Margin != "l1" {
		return nil, fmt.Errorf("methods: svm: margin %q not offered (the baseline is the L1 soft margin)", opts.Margin)
	}
	if opts.C < 0 || math.IsNaN(opts.C) || math.IsInf(opts.C, 0) {
		return nil, fmt.Errorf("methods: svm: C must be positive, got %v", opts.C)
	}
	g, err := gridSearchCV(ctx, train, opts)
	if err != nil {
		return nil, fmt.Errorf("methods: svm: %w", err)
	}
	folds := opts.Folds
	if folds == 0 {
		folds = defaultFolds
	}
	res := &Result{
		Method:         "svm",
		Param:          "iso",
		Kernel:         kernel.Spec{Kind: kernel.KindGaussian, Gamma: g.Gamma},
		Margin:         "l1",
		C:              g.C,
		Status:         Converged,
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
	if opts.C > 0 {
		res.Init = fmt.Sprintf("C = %g fixed; gamma by %d-fold CV over log2 gamma = 3..-15 step -2", opts.C, folds)
	} else {
		res.Init = fmt.Sprintf("(C, gamma) by %d-fold CV over LIBSVM grid.py's grid (log2 C = -5..15, log2 gamma = 3..-15, step 2); ties go to the gamma nearest the median heuristic, then the smaller C", folds)
	}
	// Whether the chosen kernel is degenerate is judged for every method
	// after the final fit (ClassifyDegenerate), not here.
	st := Step{Iter: 1, Objective: g.Accuracy, Elapsed: time.Since(start)}
	res.Trace = []Step{st}
	if opts.Recorder != nil {
		opts.Recorder(st)
	}
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
