// Package methods holds the kernel-tuning methods of kerneltune behind one small
// interface, and the registry that `tune` and `compare` both use:
//
//	svm       isotropic Gaussian, (C, γ) by k-fold CV over LIBSVM grid.py's grid
//	spd       Laanaya et al. 2011, Algorithm 1 (margin criterion on the SPD manifold)
//	gi        Glasmachers & Igel 2005 (radius-margin quotient, parameterisations A–E)
//	lccp      Boughorbel et al. (log convex-concave procedure, multi-θ L1 kernel)
//	rcsc      Yang, Xiong & Yang 2010 (regularised class-separability criterion)
//	twolevel  Schittkowski (validation error minimised by SQP over an L2-SVM)
//
// and three baselines a practitioner runs today, opt-in (Info.OptIn: not in
// compare's default list, Defaults), each scored by svm's k-fold CV:
//
//	random    random search over grid.py's box (Bergstra & Bengio 2012)
//	halving   successive halving over the grid (scikit-learn's HalvingGridSearchCV)
//	bo        Bayesian optimisation: GP (Matérn 5/2) and expected improvement; bo:ard one γ per feature
//
// A method learns a kernel and the SVM parameters to train with it; the final
// SVM is then trained on the whole training part by the caller (pkg/model), so
// every method's model is built, saved and evaluated the same way.
//
// A method is one typed value, its settings type (a Spec): SVMSettings,
// SPDSettings, GISettings, LCCPSettings, RCSCSettings and TwoLevelSettings.
// Each embeds the shared Common (seed, C, folds, workers, the SVM solver's
// tolerance and cache, a progress recorder) and adds what means something
// to that method only (spd's ρ and start, gi's steps, rcsc's schedule, a
// parameterisation, a margin where there is a choice, the limits of the
// method's own loop). Each is the one place its settings are checked
// (Check, errors typed as *OptionError) and knows its own memory estimate
// (PeakBytes). The registry (All, New, ParseEntry) builds one from a
// method name and the command line's param and mode; the command line sets
// the rest of its fields from flags.
package methods

import (
	"fmt"
	"time"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/solver"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// Result is what a method learned and how it got there.
type Result struct {
	Method string      `json:"method"`
	Param  string      `json:"param,omitempty"`
	Kernel kernel.Spec `json:"kernel"`
	// B is Glasmachers–Igel's matrix (Q = B²), set by gi only, on its full
	// path (d ≤ 128, or param D and E).
	B [][]float64 `json:"b,omitempty"`
	// BDiag is B's diagonal where gi took its diagonal path (param A, B
	// or C above 128 features, giDiagPathMinDim): B = diag(b_diag), and B
	// is nil. The d×d form cost 4.8 MB a result at 778 features, in each
	// of a 10-class run's 45 pairs, and 87 MB of its model file.
	BDiag []float64 `json:"b_diag,omitempty"`
	// Margin (JSON "l1", "l2" or "hard") and C say how to train the final
	// SVM with Kernel; for the L2 margin the kernel matrix is K + I/C
	// (ν = 1/C).
	Margin solver.Margin `json:"margin"`
	C      float64       `json:"C"`

	Status  status.Status `json:"status"`
	Iter    int           `json:"iterations"`
	Solves  int           `json:"svm_solves"`
	Elapsed time.Duration `json:"elapsed_ns"`
	// Credit is work another job did for this one and that belongs to this
	// method's cost: the time of a grid search read from Common.Grids (its
	// solves are in Solves), less the time spent waiting for it. A
	// comparison adds it to the job's time.
	Credit time.Duration `json:"-"`

	// Criterion names the quantity the method optimised; Start and End are its
	// values at the start point and at the end.
	Criterion      string  `json:"criterion,omitempty"`
	CriterionStart float64 `json:"criterion_start"`
	CriterionEnd   float64 `json:"criterion_end"`

	// Init says how the start point (and C) were chosen; Notes carry warnings
	// and facts a user should read.
	Init  string      `json:"init,omitempty"`
	Notes []hint.Text `json:"notes,omitempty"`
	// Figures are the method's own numbers (e.g. twolevel's e*, e0, μ*), in
	// the order they should be printed.
	Figures []Figure `json:"figures,omitempty"`
	Trace   []Step   `json:"trace,omitempty"`
	// Pairs, for multi-class data tuned per subproblem (tuneMultiClass),
	// are the result of every pair of classes (one-vs-one) or of every
	// class against the rest (one-vs-rest); the fields above then summarise
	// them. nil for binary data and the svm baseline (one kernel for all).
	Pairs []PairResult `json:"pairs,omitempty"`
	// LearnedOn is the number of training rows the kernel and C were
	// learned on when it is fewer than the training part's (large data,
	// Common.KernelRows: a stratified subset); 0 when all of them.
	LearnedOn int `json:"learned_on_rows,omitempty"`
}

// Figure is one named number of a method's own output.
type Figure struct {
	Name  string  `json:"name"`
	Value float64 `json:"value"`
}

// Step is one iteration of a method's outer loop.
type Step struct {
	Iter      int           `json:"iter"`
	Objective float64       `json:"objective"`
	StepSize  float64       `json:"step"`
	NSV       int           `json:"nsv"`
	Elapsed   time.Duration `json:"elapsed_ns"`
}

// Summary is the step for a progress line: its objective, and its number
// of support vectors when the step has an SVM (the searches' steps are CV
// scores, with none).
func (s Step) Summary() string {
	if s.NSV == 0 {
		return fmt.Sprintf("objective %.6g", s.Objective)
	}
	return fmt.Sprintf("objective %.6g  #SV %d", s.Objective, s.NSV)
}

// BreakdownError is a numerical breakdown inside a method: it names the method
// and the iteration at which it happened ("spd: iteration 7: ...", the form
// of the methods' cancellation errors too).
type BreakdownError struct {
	Method string
	Iter   int
	Err    error
}

func (e *BreakdownError) Error() string {
	return fmt.Sprintf("%s: iteration %d: %v", e.Method, e.Iter, e.Err)
}
func (e *BreakdownError) Unwrap() error { return e.Err }
