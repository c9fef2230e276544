package methods

import (
	"context"
	"fmt"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Tune is the one entry to a method for a caller that has a training part:
// it turns a panic inside the method into an error naming it, dispatches
// multi-class data (tuneMultiClass: one tuning per subproblem, or, for the
// cross-validated searches, one shared (C, γ): cvSearch), and on binary
// data (and each subproblem) of more than Common.KernelRows rows, default
// 5,000, runs a kernel-learning method on a stratified subset (see
// tuneBinary). The final SVM is then trained on every row by the caller
// (pkg/model), whatever rows the kernel was learned on.
func Tune(ctx context.Context, s Spec, train *dataio.Dataset) (res *Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			res, err = nil, fmt.Errorf("%s: internal error: %v", s.Name(), p)
		}
	}()
	if err := CheckSparse(s, train); err != nil {
		return nil, err
	}
	if train.MultiClass() {
		res, err = tuneMultiClass(ctx, s, train)
	} else {
		res, err = tuneBinary(ctx, s, train)
	}
	if err == nil && res == nil {
		err = fmt.Errorf("%s: returned no result", s.Name())
	}
	return res, err
}

// cvSearch is implemented by the cross-validated searches (svm, random,
// halving, bo), which take any data themselves, through the one search
// loop (searchCV) and its one worker pool (cvCounts): on large data their grid or points run on a subset of
// Common.GridRows rows and their CV on all rows takes the bounded-memory
// route; on multi-class data they choose one (C, γ) for all the final
// model's SVMs, scored by its multi-class CV accuracy (LIBSVM's vote, or the
// largest decision value one-vs-rest), as grid.py does — not one per pair,
// so that a table compares like with like.
type cvSearch interface {
	crossValidatedSearch()
}

func (SVMSettings) crossValidatedSearch()     {}
func (RandomSettings) crossValidatedSearch()  {}
func (HalvingSettings) crossValidatedSearch() {}
func (BOSettings) crossValidatedSearch()      {}

// defaultKernelRows is Common.KernelRows's default.
const defaultKernelRows = 5_000

// kernelRows returns the most rows a kernel-learning method learns its
// kernel on, 0 for no limit.
func (c Common) kernelRows() int { return rowLimit(c.KernelRows, defaultKernelRows) }

// learnRows returns the rows a method learns its kernel on out of n
// training rows: n, or the subset's size on large data.
func learnRows(s Spec, n int) int {
	if _, ok := s.(cvSearch); ok {
		return n
	}
	if m := s.Base().kernelRows(); m > 0 && n > m {
		return m
	}
	return n
}

// tuneBinary runs s on binary data. The five kernel-learning methods (spd,
// gi, lccp, rcsc, twolevel) hold dense n×n matrices of the training part
// (their criteria and gradients need all pairs: the margin's and the
// radius's QPs, spd's ‖K - K′‖²_F, rcsc's class separability), which at
// 32,561 rows would be 8.5 GB each, and their iterations cost O(n²) to
// O(n³). On more than Common.KernelRows rows (default 5,000) the method
// therefore learns its kernel and C on a stratified random subset of that
// many rows (drawn from the seed as svm's grid draws its subset, so with
// KernelRows = GridRows every method of a job sees the same rows), exactly as it would on a training part of that size; the caller
// then trains the final SVM with that kernel and C on every row through the
// solver's bounded cache. This is the "stratified subsample for the kernel,
// then the final SVM on every row" approximation; the Result says so
// (LearnedOn, Init, Notes), and at n ≤ KernelRows nothing changes.
func tuneBinary(ctx context.Context, s Spec, train *dataio.Dataset) (*Result, error) {
	n := train.Len()
	m := learnRows(s, n)
	if m == n {
		return s.tune(ctx, train)
	}
	rows := stratifiedSubset(train.Y, m, s.Base().Seed)
	res, err := s.tune(ctx, train.Subset(rows))
	if err != nil || res == nil {
		return res, err
	}
	res.LearnedOn = m
	note := hint.T(fmt.Sprintf("large data: the kernel and C were learned on a stratified random subset of %d of the %d training rows (", m, n),
		hint.S("kernel-rows", ""), fmt.Sprintf("), the final SVM trained on all %d", n))
	res.Notes = append(res.Notes, note)
	return res, nil
}
