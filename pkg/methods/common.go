package methods

import (
	"fmt"
	"runtime"

	"github.com/kerneltune/kerneltune/pkg/solver"
)

// Common holds the settings every method shares; each method's settings type
// (SVMSettings, SPDSettings, GISettings, LCCPSettings, RCSCSettings,
// TwoLevelSettings) embeds it. The zero value of every field means its
// default.
type Common struct {
	// Seed seeds every random choice of the method: the cross-validation
	// folds (PCG stream "cv") and twolevel's split of the training part.
	Seed uint64
	// C is a fixed SVM C; 0 lets the method choose it (each method's
	// settings type says how). twolevel learns C and refuses a fixed one.
	C float64
	// Folds is the number of cross-validation folds wherever the method
	// cross-validates (svm's grid, spd's cv start, the choice of C of gi,
	// lccp and rcsc); 0 means 5.
	Folds int
	// Workers is the number of goroutines the method may use; 0 means
	// GOMAXPROCS.
	Workers int
	// Eps is the SVM solver's stopping tolerance; 0 means the solver's 1e-3
	// (lccp and twolevel use tighter defaults of their own).
	Eps float64
	// CacheMB bounds the SVM solver's kernel cache in MB; 0 means 200.
	CacheMB int
	// GridRows is the most training rows the baseline's grid search (svm;
	// gi's C; spd's cv start) runs the full grid on: on more, it runs the
	// grid on a stratified subset of GridRows rows and refines the choice
	// on all rows (gridProposer). 0 means 5,000; -1 the full grid on
	// all rows whatever their number.
	GridRows int
	// KernelRows is the most training rows a kernel-learning method (spd,
	// gi, lccp, rcsc, twolevel) learns its kernel and C on: on more, it
	// runs on a stratified subset of KernelRows rows and the final SVM is
	// trained on all rows (tuneBinary). 0 means 5,000; -1 all rows
	// whatever their number (dense n×n matrices: mind --mem-mb).
	KernelRows int
	// WeightPos and WeightNeg multiply C for the +1 and the -1 class in
	// every SVM solve of the search and in the final SVM (LIBSVM's -w1 and
	// -w-1; binary data only); 0 means 1. ClassWeight "balanced" (the one
	// value besides "") sets them from the class counts instead, and per
	// class on multi-class data (SubproblemWeights). Only the searches
	// whose criterion is the CV accuracy of C-SVMs honour them (svm,
	// halving, random, bo); the others refuse them (Check).
	WeightPos, WeightNeg float64
	ClassWeight          string
	// Recorder, if non-nil, is called after every iteration of the method's
	// outer loop (traces, progress).
	Recorder func(Step)
	// Progress, if non-nil, receives the run's progress: the method
	// announces its stages (its searches, its outer loop, its choice of C)
	// with their estimated costs and reports their parts as they finish
	// (see Progress). Like Recorder, a run sets it; it is not a setting.
	Progress *Progress
	// jobs: cvCounts reports its (γ, fold) jobs as the parts of the stage
	// in progress (a round of svm's grid or halving), not a point search's
	// single points.
	jobs bool
	// workers, if set, keeps cvCounts' worker buffers from one call to
	// the next (a point search's evaluations, halving's rounds).
	cvWorkers *cvPool
	// pairShare, when set, is the share of a fold's training rows that the
	// largest pair of one-vs-one multi-class data holds: the estimates
	// count a pair's matrices for a dense-route CV job, not the fold's
	// (memModel.foldJob, foldSweepPairsD). Only PeakBytesMultiClass sets
	// it, on a copy of the settings.
	pairShare float64
	// Grids, if non-nil, shares the grid search (svm; gi's C) between the jobs of a run that search the same training part
	// with the same settings (GridMemo); it changes no result. A run sets
	// it per job, like Recorder; it is not a setting of the run.
	Grids *GridMemo
	// Checkpoint, if non-nil, keeps each step's outcome as the run goes
	// and gives a resumed run the outcomes of the steps already done (see
	// Checkpoint); it changes no result. Like Progress, a run sets it; it
	// is not a setting.
	Checkpoint Checkpoint
	// scope prefixes the checkpoint's keys (a subproblem's: within);
	// cvKey names the rows a search's cross-validation scores (dataKey),
	// "" for none: its jobs are then not kept. A job's key adds only γ, the
	// Cs and the fold (cvJobKeys): a caller of cvCounts whose kernel is not
	// exp(-γ‖x-z‖²) of those rows must name its kernel in cvKey too (as
	// bo:ard names its scaling).
	scope, cvKey string
}

// gridRows returns the most rows the full grid runs on, 0 for no limit.
func (c Common) gridRows() int { return rowLimit(c.GridRows, defaultGridRows) }

// rowLimit reads a row-count setting: -1 (any negative) no limit (0), 0 its
// default def, else itself.
func rowLimit(v, def int) int {
	switch {
	case v < 0:
		return 0
	case v == 0:
		return def
	}
	return v
}

// subsetNote returns what an Init says of selectC's cross-validation on
// n rows: "" on all of them, else which subset.
func (c Common) subsetNote(n int) string {
	if m := c.gridRows(); m > 0 && n > m {
		return fmt.Sprintf(" (on a stratified subset of %d of the %d rows)", m, n)
	}
	return ""
}

// workers returns the number of goroutines a method may use.
func (c Common) workers() int {
	if c.Workers > 0 {
		return c.Workers
	}
	return runtime.GOMAXPROCS(0)
}

// settings returns the SVM solver settings of c.
func (c Common) settings() solver.Settings {
	// A method that may use one goroutine solves serially; otherwise a
	// solve of kernel columns from data rows may take a second core.
	s := solver.Settings{Eps: c.Eps, Workers: min(c.Workers, 2)}
	if c.CacheMB > 0 {
		s.CacheBytes = c.CacheMB << 20
	}
	return s
}

// record passes st to the Recorder, if any.
func (c Common) record(st Step) {
	if c.Recorder != nil {
		c.Recorder(st)
	}
}
