package methods

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// OptionChecker is implemented by methods that can tell, before seeing any
// data, which options their Tune refuses whatever the data.
type OptionChecker interface {
	CheckOptions(opts Options) error
}

// CheckOptions returns the error m's Tune would return for opts on any
// data, or nil: C, the solver's Eps and cache, the folds of a method that
// cross-validates, and the method's own parameterisation, mode, margin and
// limits. compare calls it for every --methods entry so that an option one
// method refuses stops the run at once instead of failing every one of its
// jobs (TestCheckOptionsAgreesWithTune holds it to Tune's own checks).
func CheckOptions(m Method, opts Options) error {
	name := m.Name()
	if opts.C < 0 || math.IsNaN(opts.C) || math.IsInf(opts.C, 0) {
		return fmt.Errorf("methods: %s: C must be positive, got %v", name, opts.C)
	}
	if opts.Eps < 0 || math.IsNaN(opts.Eps) || math.IsInf(opts.Eps, 0) {
		return fmt.Errorf("methods: %s: solver Eps = %g, want a positive number", name, opts.Eps)
	}
	if opts.CacheMB < 0 {
		return fmt.Errorf("methods: %s: kernel cache %d MB, want ≥ 0", name, opts.CacheMB)
	}
	if opts.Param != "" && !slices.Contains(m.Params(), opts.Param) {
		return fmt.Errorf("methods: %s: unknown parameterisation %q (want %s)", name, opts.Param, strings.Join(m.Params(), ", "))
	}
	if opts.Mode != "" {
		ml, ok := m.(ModeLister)
		if !ok {
			return fmt.Errorf("methods: %s: no modes (got %q)", name, opts.Mode)
		}
		if !slices.Contains(ml.Modes(), opts.Mode) {
			return fmt.Errorf("methods: %s: unknown mode %q (want %s)", name, opts.Mode, strings.Join(ml.Modes(), ", "))
		}
	}
	if c, ok := m.(OptionChecker); ok {
		return c.CheckOptions(opts)
	}
	return nil
}

// checkFolds refuses a fold count cross-validation cannot use (newCVPlan's
// check; 0 is the default 5).
func checkFolds(name string, opts Options) error {
	if opts.Folds != 0 && opts.Folds < 2 {
		return fmt.Errorf("methods: %s: cross-validation needs at least 2 folds, got %d", name, opts.Folds)
	}
	return nil
}

// checkMargin refuses a margin outside allowed ("" is the default).
func checkMargin(name string, opts Options, why string, allowed ...string) error {
	if opts.Margin != "" && !slices.Contains(allowed, opts.Margin) {
		return fmt.Errorf("methods: %s: margin %q not offered (%s)", name, opts.Margin, why)
	}
	return nil
}

// CheckOptions: svm's Tune refuses any margin but l1 and, in its grid
// search, a bad fold count.
func (SVM) CheckOptions(opts Options) error {
	if err := checkMargin("svm", opts, "the baseline is the L1 soft margin", "l1"); err != nil {
		return err
	}
	return checkFolds("svm", opts)
}

// CheckOptions: spd's Tune refuses any margin but l1, a negative rho, an
// unknown start, and with --init cv a bad fold count.
func (SPD) CheckOptions(opts Options) error {
	if err := checkMargin("spd", opts, "Laanaya's criterion is the C-SVC dual, l1", "l1"); err != nil {
		return err
	}
	if opts.Rho < 0 || math.IsNaN(opts.Rho) || math.IsInf(opts.Rho, 0) {
		return fmt.Errorf("methods: spd: rho must be positive, got %v", opts.Rho)
	}
	switch init := opts.Init; {
	case init == "", init == "heuristic":
	case init == "cv":
		return checkFolds("spd", opts)
	case strings.HasPrefix(init, "sigma="):
		_, _, err := SPDInitSigma(init)
		return err
	default:
		return fmt.Errorf("methods: spd: unknown init %q (want heuristic, cv or sigma=S)", opts.Init)
	}
	return nil
}

// CheckOptions: gi's Tune refuses the l1 margin, a negative step count and,
// when it chooses C by the baseline's grid search, a bad fold count.
func (GI) CheckOptions(opts Options) error {
	if err := checkMargin("gi", opts, "want hard or l2: the radius-margin bound needs 2D* = ‖w‖²", "l2", "hard"); err != nil {
		return err
	}
	if opts.MaxIter < 0 {
		return fmt.Errorf("methods: gi: steps must be ≥ 0, got %d", opts.MaxIter)
	}
	if opts.Margin != "hard" && opts.C == 0 {
		return checkFolds("gi", opts)
	}
	return nil
}

// CheckOptions: lccp's Tune refuses the l1 margin and, when it chooses C by
// cross-validation, a bad fold count.
func (LCCP) CheckOptions(opts Options) error {
	if err := checkMargin("lccp", opts, "want l2 or hard: the radius-margin bound and its convexity need ‖w‖² = 2D*", "l2", "hard"); err != nil {
		return err
	}
	if opts.Margin != "hard" && opts.C == 0 {
		return checkFolds("lccp", opts)
	}
	return nil
}

// CheckOptions: rcsc's Tune refuses any margin but l1 and, when it chooses
// C by cross-validation, a bad fold count.
func (RCSC) CheckOptions(opts Options) error {
	if err := checkMargin("rcsc", opts, "rcsc tunes γ for the L1 soft margin, as the paper", "l1"); err != nil {
		return err
	}
	if opts.C == 0 {
		return checkFolds("rcsc", opts)
	}
	return nil
}

// CheckOptions: twolevel's Tune refuses any margin but l2 and a fixed C
// (ν = 1/C is one of its optimisation variables).
func (TwoLevel) CheckOptions(opts Options) error {
	if err := checkMargin("twolevel", opts, "the method is built on the L2 soft margin", "l2"); err != nil {
		return err
	}
	if opts.C != 0 {
		return fmt.Errorf("methods: twolevel: C is learned (ν = 1/C is an optimisation variable); do not fix it")
	}
	return nil
}
