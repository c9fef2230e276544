package methods

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

// Spec is one method with its settings: SVMSettings, SPDSettings,
// GISettings, LCCPSettings, RCSCSettings or TwoLevelSettings. Each holds
// only what means something to its method, documents its zero values (the
// method's default) and is the one place that checks them (Check). The
// registry (New, Parse) builds one from a method name and the command
// line's param and mode; a Go program builds its settings type directly.
type Spec interface {
	// Name is the method ID ("svm", "spd", "gi", "lccp", "rcsc",
	// "twolevel").
	Name() string
	// Check returns the error Tune would return for these settings on any
	// data (an *OptionError naming the setting), or nil. Tune calls it
	// first; compare calls it for every entry before any job runs.
	Check() error
	// tune learns a kernel and SVM parameters on the (already normalised)
	// binary training part of at most the rows the method learns on. It is
	// unexported: methods.Tune is the one entry, which dispatches
	// multi-class data, takes the large-data subset and turns a panic into
	// an error (a Go program's own method is a Custom). An iteration limit
	// is a Status; the error is non-nil
	// only when the run cannot go on (bad settings or data, numerical
	// breakdown, cancellation), and then names the method and, for a
	// breakdown (*BreakdownError) or a cancellation during the run, the
	// iteration.
	tune(ctx context.Context, train *dataio.Dataset) (*Result, error)
	// PeakBytes estimates the peak memory in bytes of Tune on n rows of d
	// features: the runtime's share, the data (three copies: as read,
	// normalised, and a method's working copy) and the method's work.
	PeakBytes(n, d int) int64
	// Base returns the settings every method shares.
	Base() Common
	// WithBase returns a copy of the spec with the shared settings c.
	WithBase(c Common) Spec
}

// sizeLimiter is implemented by the specs that refuse a number of training
// rows before any work (CheckSize).
type sizeLimiter interface {
	checkSize(n int) error
}

// OptionError is a setting a method refuses whatever the data. Option is
// the setting's name in the command line's words, which are the flags'
// names ("C", "param", "mode", "margin", "max-iter", "steps", "tol", "rho",
// "init", "folds", "eps", "cache-mb", "grid-rows", "kernel-rows", "workers", "log2c", "log2g",
// "weight-pos", "weight-neg", "class-weight"), so that the
// command line maps it to its flag by type, not by reading the words. Every
// method words one condition the same way: "<method>: <option> <value>:
// want <what is accepted>".
type OptionError struct {
	Method string
	Option string
	Value  string    // the refused value as the user would write it
	Want   hint.Text // what is accepted, and why where it is not obvious
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s: %s", e.Method, e.Reason())
}

// Reason is the message without the method's name: "<option> <value>: want
// <what>" (the command line puts a flag's name in front of it).
func (e *OptionError) Reason() string {
	return fmt.Sprintf("%s %s: want %s", e.Option, e.Value, e.Want.String())
}

// optErr returns an *OptionError for a value printed with %v (strings
// quoted).
func optErr(method, option string, value any, want string) *OptionError {
	v := fmt.Sprint(value)
	switch x := value.(type) {
	case string:
		v = strconv.Quote(x)
	case float64:
		v = strconv.FormatFloat(x, 'g', -1, 64)
	}
	return &OptionError{Method: method, Option: option, Value: v, Want: hint.T(want)}
}

// finiteNonNeg reports whether v is a finite number ≥ 0.
func finiteNonNeg(v float64) bool { return v >= 0 && !math.IsInf(v, 0) }

// checkChoice refuses a value outside allowed ("" is the default).
func checkChoice(method, option, v string, allowed []string, why string) error {
	if v == "" || slices.Contains(allowed, v) {
		return nil
	}
	want := strings.Join(allowed, ", ")
	if why != "" {
		want += " (" + why + ")"
	}
	return optErr(method, option, v, want)
}

// checkC refuses a C that is not 0 (the method's own choice) or a positive
// number.
func checkC(method string, c float64) error {
	return CRange.check(method, "C", c, "0 for the method's own choice")
}

// checkMaxIter refuses a negative iteration limit (0 is the default).
func checkMaxIter(method, option string, n int) error {
	if n < 0 {
		return optErr(method, option, n, "a number ≥ 0 (0 for the default)")
	}
	return nil
}

// checkTol refuses a tolerance that is negative or not finite (0 is the
// default).
func checkTol(method string, tol float64) error {
	if !finiteNonNeg(tol) {
		return optErr(method, "tol", tol, "a number ≥ 0 (0 for the default)")
	}
	return nil
}

// check refuses shared settings no method can use: a C, solver tolerance,
// cache, worker count, grid size or fold count out of range. A fold count
// below 2 is refused even by a method that does not cross-validate with
// the other settings given (spd without its cv start, twolevel): it is no
// number of folds, and silently ignoring it hid a typo.
func (c Common) check(method string) error {
	if err := checkC(method, c.C); err != nil {
		return err
	}
	if err := EpsRange.check(method, "eps", c.Eps, "0 for the default 1e-3"); err != nil {
		return err
	}
	if c.CacheMB < 0 {
		return optErr(method, "cache-mb", c.CacheMB, "a number ≥ 0 (0 for the default 200)")
	}
	if c.Workers < 0 {
		return optErr(method, "workers", c.Workers, "a number ≥ 0 (0 for all cores)")
	}
	if c.GridRows < -1 || c.GridRows > 0 && c.GridRows < MinGridRows {
		return optErr(method, "grid-rows", c.GridRows, fmt.Sprintf("-1 (no limit), 0 (the default 5,000) or at least %d", MinGridRows))
	}
	if c.KernelRows < -1 || c.KernelRows > 0 && c.KernelRows < MinGridRows {
		return optErr(method, "kernel-rows", c.KernelRows, fmt.Sprintf("-1 (no limit), 0 (the default 5,000) or at least %d", MinGridRows))
	}
	if c.Folds != 0 && c.Folds < 2 {
		return optErr(method, "folds", c.Folds, "at least 2 (0 for the default 5)")
	}
	return c.checkWeights(method, slices.Contains(weightedSearches, method))
}

// weightedSearches are the methods that honour class weights: their
// criterion is the CV accuracy of C-SVMs, whose solves take a C per class.
var weightedSearches = []string{"svm", "halving", "random", "bo"}

// MinGridRows is Common.GridRows's smallest value other than 0 and -1.
const MinGridRows = 50

// Base returns the shared settings (Spec).
func (c Common) Base() Common { return c }

// checkTrain refuses a training part a method cannot run on: empty, or
// without both classes. Every method words it the same way.
func checkTrain(method string, train *dataio.Dataset) error {
	if train == nil || (train.X == nil && train.Sparse == nil) || train.Len() == 0 || train.Dim() == 0 {
		return fmt.Errorf("%s: the training part is empty", method)
	}
	if train.MultiClass() {
		for c, n := range train.ClassSizes() {
			if n == 0 {
				return fmt.Errorf("%s: class %q has no training rows", method, train.ClassLabels[c])
			}
		}
		return nil
	}
	if pos, neg := train.ClassCounts(); pos == 0 || neg == 0 {
		return fmt.Errorf("%s: the training part needs both classes (%d positive, %d negative)", method, pos, neg)
	}
	return nil
}

// CheckSize returns a *SizeError when s refuses n training rows (twolevel
// above TwoLevelMaxRows without an iteration limit), nil otherwise.
//
// It judges the rows the method learns on (learnRows): on large data the
// kernel-learning methods see a subset of KernelRows rows, so twolevel is
// refused only when --kernel-rows asks it to learn on more than its limit.
func CheckSize(s Spec, n int) error {
	if l, ok := s.(sizeLimiter); ok {
		return l.checkSize(learnRows(s, n))
	}
	return nil
}

// featureLimiter is implemented by the specs that refuse a number of
// features before any work (CheckFeatures).
type featureLimiter interface {
	checkFeatures(d int) error
}

// CheckFeatures returns the error Tune would return, before any work, for
// d features (bo:ard above BOARDMaxFeatures), nil otherwise: compare
// refuses such a run up front instead of recording every job as failed.
func CheckFeatures(s Spec, d int) error {
	if l, ok := s.(featureLimiter); ok {
		return l.checkFeatures(d)
	}
	return nil
}

// Sizes a method refuses up front (issue 11: at n = 20,000 every method
// either finishes within 30 minutes on 2 cores or says before any work why
// it will not). Only twolevel has such a limit (TwoLevelMaxRows); the others
// either finish at 20,000 rows or are refused by the memory bound
// (CheckMemory).

// SizeError is a refusal to run before any work: the method is known to
// take hours on this many training rows.
type SizeError struct {
	Method string
	N, Max int    // training rows, and the most the method takes
	Reason string // why, with what was measured
}

func (e *SizeError) Error() string { return e.Words().String() }

// Words is the message of e, naming the settings that avoid the refusal.
func (e *SizeError) Words() hint.Text {
	return hint.T(fmt.Sprintf("%s refuses to learn on %d training rows, more than %d: %s; use fewer rows (a ", e.Method, e.N, e.Max, e.Reason),
		hint.S("kernel-rows", ""), " subset), or set an iteration limit to run that many steps anyway")
}
