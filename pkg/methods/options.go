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
	// on all rows (gridSearchLarge). 0 means 5,000; -1 the full grid on
	// all rows whatever their number.
	GridRows int
	// Recorder, if non-nil, is called after every iteration of the method's
	// outer loop (traces, progress).
	Recorder func(Step)
}

// gridRows returns the most rows the full grid runs on, 0 for no limit.
func (c Common) gridRows() int {
	switch {
	case c.GridRows < 0:
		return 0
	case c.GridRows == 0:
		return defaultGridRows
	}
	return c.GridRows
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

// Options is the command line's flat view of a tuning run: one bag with a
// field for every flag of `tune` and `compare`, whatever the method. The
// registry's Method.Tune converts it into the method's own settings type
// (SPDSettings, GISettings, ...), refusing what that method does not offer,
// and runs the same code as the settings type's Tune; a Go program that knows
// its method can build the settings type directly. The zero value of every
// field means the method's documented default.
type Options struct {
	Param    string  // parameterisation: spd diag|full; gi A–E|auto; twolevel iso|diag; rcsc iso|diag; lccp multi|single
	Seed     uint64  // Common.Seed
	C        float64 // Common.C: fixed SVM C; 0 lets the method choose it
	Margin   string  // gi and lccp: "l2" or "hard"; other methods accept only their own margin
	MaxIter  int     // iteration limit (gi's Steps, the others' MaxIter)
	Tol      float64 // stopping tolerance of the method's outer loop
	Rho      float64 // SPDSettings.Rho: weight of the Frobenius regulariser
	Init     string  // SPDSettings.Init: heuristic|cv|sigma=S
	Mode     string  // algorithm variant: spd's Mode, rcsc's Schedule, twolevel's Mode; "" = the method's default
	Folds    int     // Common.Folds: cross-validation folds (svm grid, choice of C)
	Workers  int     // Common.Workers: goroutines a method may use; 0 = all cores
	Eps      float64 // Common.Eps: SVM solver tolerance; 0 = 1e-3
	CacheMB  int     // Common.CacheMB: SVM kernel cache; 0 = 200
	GridRows int     // Common.GridRows: most rows of the full grid search; 0 = 5,000, -1 = all

	// Recorder, if non-nil, is called after every iteration (traces, progress).
	Recorder func(Step)
}

// common returns the fields of o that every method shares.
func (o Options) common() Common {
	return Common{Seed: o.Seed, C: o.C, Folds: o.Folds, Workers: o.Workers, Eps: o.Eps, CacheMB: o.CacheMB, GridRows: o.GridRows, Recorder: o.Recorder}
}

// svmSettingsFrom converts the command line's options for svm, refusing
// a parameterisation other than iso and a margin other than l1.
func svmSettingsFrom(opts Options) (SVMSettings, error) {
	if opts.Param != "" && opts.Param != "iso" {
		return SVMSettings{}, fmt.Errorf("methods: svm: unknown param %q (svm has only iso)", opts.Param)
	}
	if opts.Margin != "" && opts.Margin != "l1" {
		return SVMSettings{}, fmt.Errorf("methods: svm: margin %q not offered (the baseline is the L1 soft margin)", opts.Margin)
	}
	return SVMSettings{Common: opts.common()}, nil
}

// spdSettingsFrom converts the command line's options for spd (MaxIter,
// Tol, Rho, Init and Mode are spd's own), refusing a margin other than l1.
func spdSettingsFrom(opts Options) (SPDSettings, error) {
	if opts.Margin != "" && opts.Margin != "l1" {
		return SPDSettings{}, fmt.Errorf("methods: spd: margin %q not offered (Laanaya's criterion is the C-SVC dual, l1)", opts.Margin)
	}
	return SPDSettings{Common: opts.common(), Param: opts.Param, Mode: opts.Mode, Rho: opts.Rho,
		Init: opts.Init, MaxIter: opts.MaxIter, Tol: opts.Tol}, nil
}

// giSettingsFrom converts the command line's options for gi: MaxIter is
// gi's Steps (--steps).
func giSettingsFrom(opts Options) GISettings {
	return GISettings{Common: opts.common(), Param: opts.Param, Margin: opts.Margin, Steps: opts.MaxIter, Tol: opts.Tol}
}

// lccpSettingsFrom converts the command line's options for lccp.
func lccpSettingsFrom(opts Options) LCCPSettings {
	return LCCPSettings{Common: opts.common(), Param: opts.Param, Margin: opts.Margin, MaxIter: opts.MaxIter, Tol: opts.Tol}
}

// rcscSettingsFrom converts the command line's options for rcsc (Mode is
// rcsc's Schedule), refusing a margin other than l1.
func rcscSettingsFrom(opts Options) (RCSCSettings, error) {
	if opts.Margin != "" && opts.Margin != "l1" {
		return RCSCSettings{}, fmt.Errorf("methods: rcsc: margin %q not offered (rcsc tunes γ for the L1 soft margin, as the paper)", opts.Margin)
	}
	return RCSCSettings{Common: opts.common(), Param: opts.Param, Schedule: opts.Mode, MaxIter: opts.MaxIter, Tol: opts.Tol}, nil
}

// twoLevelSettingsFrom converts the command line's options for twolevel,
// refusing a margin other than l2.
func twoLevelSettingsFrom(opts Options) (TwoLevelSettings, error) {
	if opts.Margin != "" && opts.Margin != "l2" {
		return TwoLevelSettings{}, fmt.Errorf("methods: twolevel: margin %q not offered (the method is built on the L2 soft margin)", opts.Margin)
	}
	return TwoLevelSettings{Common: opts.common(), Param: opts.Param, Mode: opts.Mode, MaxIter: opts.MaxIter, Tol: opts.Tol}, nil
}
