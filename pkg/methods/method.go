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
// A method learns a kernel and the SVM parameters to train with it; the final
// SVM is then trained on the whole training part by the caller (pkg/model), so
// every method's model is built, saved and evaluated the same way.
//
// Each method has its own settings type, which embeds the shared Common
// (seed, C, folds, workers, the SVM solver's tolerance and cache, a progress
// recorder) and adds what means something to that method only (spd's ρ and
// start, gi's steps, rcsc's schedule, a parameterisation, a margin where
// there is a choice, the limits of the method's own loop): SVMSettings,
// SPDSettings, GISettings, LCCPSettings, RCSCSettings and TwoLevelSettings,
// each with a Tune method for a Go program that knows its method. The
// registry (All, Lookup) serves the command line: its Method.Tune takes the
// flat Options, converts them into the method's settings and runs the same
// code.
package methods

import (
	"context"
	"fmt"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// Method is one kernel-tuning method.
type Method interface {
	// Name returns the method ID: "svm", "spd", "gi", "lccp", "rcsc" or "twolevel".
	Name() string
	// Params lists the accepted values of Options.Param; the first is the default.
	Params() []string
	// Tune learns a kernel and SVM parameters on the (already normalised)
	// training part. An iteration limit is a status.Status; the error is non-nil only
	// when the run cannot go on (bad options or data, numerical breakdown,
	// cancellation), and then names the method and, for a breakdown
	// (*BreakdownError) or a cancellation during the run, the iteration.
	Tune(ctx context.Context, train *dataio.Dataset, opts Options) (*Result, error)
}

// ModeLister is implemented by methods that offer algorithm variants
// (Options.Mode); the first mode is the default. compare and tune use it to
// check a mode before running.
type ModeLister interface {
	Modes() []string
}

// Result is what a method learned and how it got there.
type Result struct {
	Method string      `json:"method"`
	Param  string      `json:"param,omitempty"`
	Kernel kernel.Spec `json:"kernel"`
	// B is Glasmachers–Igel's matrix (Q = B²), set by gi only.
	B [][]float64 `json:"b,omitempty"`
	// Margin ("l1", "l2" or "hard") and C say how to train the final SVM with
	// Kernel; for the L2 margin the kernel matrix is K + I/C (ν = 1/C).
	Margin string  `json:"margin"`
	C      float64 `json:"C"`

	Status  status.Status `json:"status"`
	Iter    int           `json:"iterations"`
	Solves  int           `json:"svm_solves"`
	Elapsed time.Duration `json:"elapsed_ns"`

	// Criterion names the quantity the method optimised; Start and End are its
	// values at the start point and at the end.
	Criterion      string  `json:"criterion,omitempty"`
	CriterionStart float64 `json:"criterion_start"`
	CriterionEnd   float64 `json:"criterion_end"`

	// Init says how the start point (and C) were chosen; Notes carry warnings
	// and facts a user should read.
	Init  string   `json:"init,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Figures are the method's own numbers (e.g. twolevel's e*, e0, μ*), in
	// the order they should be printed.
	Figures []Figure `json:"figures,omitempty"`
	Trace   []Step   `json:"trace,omitempty"`
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

// BreakdownError is a numerical breakdown inside a method: it names the method
// and the iteration at which it happened, after the package prefix every
// error of the package carries ("methods: spd: iteration 7: ...", the form
// of the methods' cancellation and option errors).
type BreakdownError struct {
	Method string
	Iter   int
	Err    error
}

func (e *BreakdownError) Error() string {
	return fmt.Sprintf("methods: %s: iteration %d: %v", e.Method, e.Iter, e.Err)
}
func (e *BreakdownError) Unwrap() error { return e.Err }
