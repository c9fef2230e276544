package cmd

import (
	"errors"

	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// methodFlags are the flags that set a method's settings, shared by tune
// (all of them) and compare (those that apply to every method). A flag's
// value goes straight into a field of the method's settings type (apply),
// which is the one place that checks it (methods.Spec.Check); a refusal
// names the flag (optionError).
type methodFlags struct {
	C                    float64
	Margin               string
	MaxIter              int
	Tol, Rho             float64
	Init                 string
	Folds                int
	GridRows, KernelRows int
	Eps                  float64
	CacheMB              int
	Workers              int
	Budget               int
	methods.Space        // --log2c, --log2g
	WeightPos, WeightNeg float64
	ClassWeight          string

	fs *pflag.FlagSet
}

// base returns the settings every method shares, with seed and rec.
func (f *methodFlags) base(seed uint64, rec func(methods.Step)) methods.Common {
	return methods.Common{Seed: seed, C: f.C, Folds: f.Folds, Workers: f.Workers, Eps: f.Eps,
		CacheMB: f.CacheMB, GridRows: f.GridRows, KernelRows: f.KernelRows, Recorder: rec,
		WeightPos: f.WeightPos, WeightNeg: f.WeightNeg, ClassWeight: f.ClassWeight}
}

// loop is the loop settings the flags give (--margin, --max-iter, --tol,
// --rho, --init, --budget, --log2c, --log2g): each method takes those it
// has (methods.ApplyLoop); a flag left at its default keeps the spec's
// value (a preset's hard margin for gi). Check refuses bad values.
func (f *methodFlags) loop() methods.Loop {
	return methods.Loop{MaxIter: f.MaxIter, Tol: f.Tol, Rho: f.Rho, Init: f.Init, Margin: f.Margin, Budget: f.Budget, Space: f.Space}
}

// addSpaceFlags declares the search space's flags, tune's and compare's.
func (f *methodFlags) addSpaceFlags(fs *pflag.FlagSet) {
	fs.Var(&f.Log2C, "log2c", help("flag-log2c"))
	fs.Var(&f.Log2Gamma, "log2g", help("flag-log2g"))
	fs.Float64Var(&f.WeightPos, "weight-pos", 0, help("flag-weight-pos"))
	fs.Float64Var(&f.WeightNeg, "weight-neg", 0, help("flag-weight-neg"))
	fs.StringVar(&f.ClassWeight, "class-weight", "", help("flag-class-weight"))
}

// optionError words a method's refusal of a setting (*methods.OptionError)
// as a usage error naming the flag that set it (exit code 2); other errors
// are returned as they are.
func (f *methodFlags) optionError(err error) error {
	var oe *methods.OptionError
	if !errors.As(err, &oe) {
		return err
	}
	flag := oe.Option
	switch {
	case flag == "steps" && f.fs != nil && !f.fs.Changed("steps"):
		flag = "max-iter" // gi's steps, given as --max-iter
	case flag == "mode" && f.fs != nil && f.fs.Changed("schedule"):
		flag = "schedule"
	}
	return usageErrorf("--%s %s: %s: want %s", flag, oe.Value, oe.Method, oe.Want.Spell(flagSpell))
}
