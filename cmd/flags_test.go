package cmd

// Tests of flag parsing that stop before any work: tune and compare are
// built with a runF (newTuneCmdWith, newCompareCmdWith) that records the
// options validate built and returns, so no data is read and no method
// runs. DATA is a path that need not exist: validate checks flags only.
// The pipeline itself is tested end to end by the golden tests.

import (
	"context"
	"errors"
	"io"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// executeHooked runs `kerneltune args...` as run does (the root's
// persistent flags such as --seed, errors marked as usage errors or
// failures), with the subcommand of the same name replaced by sub(g).
func executeHooked(t *testing.T, sub func(g *globalOptions) *cobra.Command, args ...string) error {
	t.Helper()
	g := &globalOptions{In: strings.NewReader(""), Out: io.Discard, ErrOut: io.Discard}
	root := newRootCmd(g)
	hooked := sub(g)
	for _, c := range root.Commands() {
		if c.Name() == hooked.Name() {
			root.RemoveCommand(c)
		}
	}
	markRunErrors(hooked)
	root.AddCommand(hooked)
	root.SetArgs(args)
	_, err := root.ExecuteContextC(context.Background())
	return err
}

// isUsageError reports whether run would exit with ExitUsage on err: a
// flagError, or cobra's own parse error (not a runError).
func isUsageError(err error) bool {
	var (
		fe *flagError
		re *runError
	)
	return err != nil && (errors.As(err, &fe) || !errors.As(err, &re))
}

// parseTune runs `kerneltune tune args...` up to the point where tune would
// start its work and returns the complete settings its runF got (nil if it
// was not called) and the error: nothing is read and nothing runs.
func parseTune(t *testing.T, args ...string) (*tuneSettings, error) {
	t.Helper()
	var got *tuneSettings
	err := executeHooked(t, func(g *globalOptions) *cobra.Command {
		return newTuneCmdWith(g, func(_ context.Context, _ *globalOptions, s tuneSettings) error {
			got = &s
			return nil
		})
	}, append([]string{"tune"}, args...)...)
	return got, err
}

// parseCompare is parseTune for compare.
func parseCompare(t *testing.T, args ...string) (*compareOptions, error) {
	t.Helper()
	var got *compareOptions
	err := executeHooked(t, func(g *globalOptions) *cobra.Command {
		return newCompareCmdWith(g, func(_ context.Context, o *compareOptions, _ []string) error {
			got = o
			return nil
		})
	}, append([]string{"compare"}, args...)...)
	return got, err
}

// tuneBase is the shared settings tune builds from its flags' defaults.
var tuneBase = methods.Common{Seed: 1, Eps: 1e-3, CacheMB: 200}

// withBase returns tuneBase changed by set.
func withBase(set func(*methods.Common)) methods.Common {
	c := tuneBase
	set(&c)
	return c
}

// TestTuneFlagsBuildSpec: each flag lands in its method's own field of the
// typed settings, and nothing else changes.
func TestTuneFlagsBuildSpec(t *testing.T) {
	t.Parallel()
	c2 := withBase(func(c *methods.Common) { c.C = 2 })
	for _, tc := range []struct {
		args []string
		want methods.Spec
	}{
		{[]string{"--method", "svm"}, methods.SVMSettings{Common: tuneBase}},
		{[]string{"--method", "svm", "--seed", "7", "--C", "0.5", "--folds", "3", "--grid-rows", "100", "--eps", "1e-4", "--cache-mb", "50", "--workers", "2"},
			methods.SVMSettings{Common: methods.Common{Seed: 7, C: 0.5, Folds: 3, GridRows: 100, Eps: 1e-4, CacheMB: 50, Workers: 2}}},
		{[]string{"--method", "svm", "-c", "2", "--grid-rows", "-1"}, methods.SVMSettings{Common: withBase(func(c *methods.Common) { c.C, c.GridRows = 2, -1 })}},
		// gi: --max-iter is its Steps, and --steps the same flag.
		{[]string{"--method", "gi", "--max-iter", "7", "--tol", "1e-3", "--margin", "hard", "--C", "2"},
			methods.GISettings{Common: c2, Steps: 7, Tol: 1e-3, Margin: "hard"}},
		{[]string{"--method", "gi", "--steps", "7", "--tol", "1e-3", "--margin", "hard", "--C", "2"},
			methods.GISettings{Common: c2, Steps: 7, Tol: 1e-3, Margin: "hard"}},
		{[]string{"--method", "gi", "--param", "D", "--margin", "l2", "--tol", "-1"}, methods.GISettings{Common: tuneBase, Param: "D", Margin: "l2", Tol: -1}},
		// rcsc: --mode is its Schedule, and --schedule the same flag.
		{[]string{"--method", "rcsc", "--schedule", "paper"}, methods.RCSCSettings{Common: tuneBase, Schedule: "paper"}},
		{[]string{"--method", "rcsc", "--mode", "paper", "--param", "diag", "--max-iter", "4", "--tol", "1e-5"},
			methods.RCSCSettings{Common: tuneBase, Param: "diag", Schedule: "paper", MaxIter: 4, Tol: 1e-5}},
		{[]string{"--method", "spd", "--rho", "0.5", "--init", "sigma=2"}, methods.SPDSettings{Common: tuneBase, Rho: 0.5, Init: "sigma=2"}},
		{[]string{"--method", "spd", "--param", "full", "--mode", "lbfgs", "--max-iter", "9", "--tol", "1e-4", "--init", "cv", "--folds", "4"},
			methods.SPDSettings{Common: withBase(func(c *methods.Common) { c.Folds = 4 }), Param: "full", Mode: "lbfgs", MaxIter: 9, Tol: 1e-4, Init: "cv"}},
		{[]string{"--method", "spd", "--margin", "l1"}, methods.SPDSettings{Common: tuneBase}},
		{[]string{"--method", "lccp", "--param", "single", "--margin", "l2", "--max-iter", "4", "--tol", "1e-6"},
			methods.LCCPSettings{Common: tuneBase, Param: "single", Margin: "l2", MaxIter: 4, Tol: 1e-6}},
		{[]string{"--method", "twolevel", "--param", "diag", "--mode", "paper", "--max-iter", "5"},
			methods.TwoLevelSettings{Common: tuneBase, Param: "diag", Mode: "paper", MaxIter: 5}},
		// --budget is the CV evaluations of random and bo; halving has none.
		{[]string{"--method", "random", "--budget", "12"}, methods.RandomSettings{Common: tuneBase, Budget: 12}},
		{[]string{"--method", "bo", "--param", "ard", "--budget", "20", "--C", "2"}, methods.BOSettings{Common: c2, Param: "ard", Budget: 20}},
		{[]string{"--method", "halving", "--folds", "3"}, methods.HalvingSettings{Common: withBase(func(c *methods.Common) { c.Folds = 3 })}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseTune(t, append([]string{"no-such-data.csv"}, tc.args...)...)
			if err != nil {
				t.Fatal(err)
			}
			if o == nil {
				t.Fatal("runF was not called")
			}
			if !reflect.DeepEqual(o.Spec, tc.want) {
				t.Errorf("spec %#v\nwant %#v", o.Spec, tc.want)
			}
		})
	}
}

// TestTuneFlagErrors: a bad flag is a usage error (exit code 2) naming the
// flag and its value, with the method's words for what it wants, and tune
// stops there: runF is never called. (These used to run through the whole
// command, and `--method spd --folds 1` ran a whole tuning.)
func TestTuneFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"DATA"}, "--method is required"},
		{[]string{"DATA", "--method", "nope"}, `--method: unknown method "nope"`},
		{[]string{"--method", "spd"}, "tune needs exactly one DATA argument, got 0"},
		{[]string{"a", "b", "--method", "spd"}, "tune needs exactly one DATA argument, got 2"},
		{[]string{"DATA", "--method", "spd", "--bogus"}, "unknown flag: --bogus"},
		{[]string{"DATA", "--method", "spd", "--format", "xml"}, "--format"},
		{[]string{"DATA", "--method", "svm", "--normalize", "nope"}, "--normalize"},
		{[]string{"DATA", "--method", "svm", "--test-fraction", "1"}, "--test-fraction: must be in (0, 1), got 1"},
		{[]string{"DATA", "--method", "svm", "--mem-mb", "-2"}, "--mem-mb must be"},
		{[]string{"DATA", "--method", "svm", "--eps", "0"}, "--eps 0: want a number from 1e-15 to 1: the KKT violation at the start is 2"},
		{[]string{"DATA", "--method", "svm", "--cache-mb", "0"}, "--cache-mb must be at least 1, got 0"},
		// Aliases: not both.
		{[]string{"DATA", "--method", "svm", "--steps", "3", "--max-iter", "4"}, "give --steps or --max-iter, not both"},
		{[]string{"DATA", "--method", "gi", "--steps", "3", "--max-iter", "4"}, "give --steps or --max-iter, not both"},
		{[]string{"DATA", "--method", "spd", "--mode", "paper", "--schedule", "paper"}, "give --mode or --schedule, not both"},
		// The methods' refusals (methods.OptionError), named by flag.
		{[]string{"DATA", "--method", "svm", "--C", "-1"}, "--C -1: svm: want a number from 2^-40 (9.095e-13) to 2^40 (1.1e+12) (or 0 for the method's own choice)"},
		{[]string{"DATA", "--method", "gi", "--C", "NaN"}, "--C NaN: gi: want a number from 2^-40"},
		{[]string{"DATA", "--method", "twolevel", "--C", "1"}, "--C 1: twolevel: want 0: twolevel learns C"},
		{[]string{"DATA", "--method", "spd", "--rho", "-1"}, "--rho -1: spd: want a positive number (0 for the default 30/n)"},
		{[]string{"DATA", "--method", "svm", "--folds", "1"}, "--folds 1: svm: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--method", "spd", "--folds", "1"}, "--folds 1: spd: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--method", "twolevel", "--folds", "-1"}, "--folds -1: twolevel: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--method", "svm", "--grid-rows", "3"}, "--grid-rows 3: svm: want -1 (no limit), 0 (the default 5,000) or at least 50"},
		{[]string{"DATA", "--method", "svm", "--grid-rows", "10"}, "--grid-rows 10: svm: want -1 (no limit), 0 (the default 5,000) or at least 50"},
		{[]string{"DATA", "--method", "svm", "--workers", "-1"}, "--workers -1: svm: want a number ≥ 0 (0 for all cores)"},
		{[]string{"DATA", "--method", "spd", "--param", "nope"}, `--param "nope": spd: want diag, full`},
		{[]string{"DATA", "--method", "twolevel", "--param", "full"}, `--param "full": twolevel: want iso, diag`},
		{[]string{"DATA", "--method", "spd", "--mode", "nosuch"}, `--mode "nosuch": spd: want paper, riemannian, backtrack, lbfgs`},
		{[]string{"DATA", "--method", "twolevel", "--schedule", "robust"}, `--schedule "robust": twolevel: want select, paper`},
		{[]string{"DATA", "--method", "rcsc", "--schedule", "nosuch"}, `--schedule "nosuch": rcsc: want robust, paper`},
		{[]string{"DATA", "--method", "gi", "--mode", "paper"}, `--mode "paper": gi: want nothing: gi has no modes`},
		{[]string{"DATA", "--method", "gi", "--margin", "l1"}, `--margin "l1": gi: want l2, hard`},
		{[]string{"DATA", "--method", "spd", "--margin", "l3"}, `--margin "l3": spd: want l1`},
		{[]string{"DATA", "--method", "twolevel", "--margin", "hard"}, `--margin "hard": twolevel: want l2`},
		{[]string{"DATA", "--method", "spd", "--init", "bogus"}, `--init "bogus": spd: want heuristic, cv or sigma=S`},
		{[]string{"DATA", "--method", "spd", "--init", "sigma=-2"}, `--init "sigma=-2": spd: want sigma=S with S a positive number`},
		{[]string{"DATA", "--method", "spd", "--init", "sigma=1e200"}, `--init "sigma=1e200": spd: want sigma=S with 1/S^2 in range`},
		{[]string{"DATA", "--method", "gi", "--max-iter", "-1"}, "--max-iter -1: gi: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--method", "gi", "--steps", "-1"}, "--steps -1: gi: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--method", "lccp", "--max-iter", "-1"}, "--max-iter -1: lccp: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--method", "gi", "--tol", "NaN"}, "--tol NaN: gi: want a finite number"},
		{[]string{"DATA", "--method", "spd", "--tol", "-1"}, "--tol -1: spd: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--method", "random", "--budget", "-1"}, "--budget -1: random: want a number of CV evaluations between 1 and 100000 (0 for the default 60)"},
		{[]string{"DATA", "--method", "bo", "--budget", "5"}, "--budget 5: bo: want at least 6: 5 initial points and one chosen by expected improvement (0 for the default 30)"},
		{[]string{"DATA", "--method", "bo", "--param", "full"}, `--param "full": bo: want iso, ard`},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseTune(t, tc.args...)
			if !isUsageError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v (usage error: %v); want a usage error with %q", err, isUsageError(err), tc.want)
			}
			if o != nil {
				t.Error("runF was called")
			}
		})
	}
}

// compareBase is the shared settings compare builds from its flags'
// defaults (the seed is each job's own).
var compareBase = methods.Common{Folds: 5, Eps: 1e-3, CacheMB: 200}

// TestCompareFlagsBuildSpecs: --methods lists the entries, each with its
// parameterisation and mode; the shared flags are the Base every job runs
// with, and --max-iter goes to each entry's own limit field (Configure).
func TestCompareFlagsBuildSpecs(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		base methods.Common
		want []methods.Spec // nil: every method, or the preset's (Entries left nil)
	}{
		{[]string{"DATA"}, compareBase, nil},
		{[]string{"DATA", "--max-iter", "9", "--methods", "gi,spd:full,rcsc@paper"}, compareBase, []methods.Spec{
			methods.GISettings{Common: compareBase, Steps: 9},
			methods.SPDSettings{Common: compareBase, Param: "full", MaxIter: 9},
			methods.RCSCSettings{Common: compareBase, Schedule: "paper", MaxIter: 9},
		}},
		{[]string{"DATA", "--methods", "svm,lccp:single,twolevel:diag@paper", "--folds", "3", "--grid-rows", "-1", "--eps", "1e-4", "--cache-mb", "10", "--C", "0"},
			methods.Common{Folds: 3, GridRows: -1, Eps: 1e-4, CacheMB: 10}, []methods.Spec{
				methods.SVMSettings{Common: methods.Common{Folds: 3, GridRows: -1, Eps: 1e-4, CacheMB: 10}},
				methods.LCCPSettings{Common: methods.Common{Folds: 3, GridRows: -1, Eps: 1e-4, CacheMB: 10}, Param: "single"},
				methods.TwoLevelSettings{Common: methods.Common{Folds: 3, GridRows: -1, Eps: 1e-4, CacheMB: 10}, Param: "diag", Mode: "paper"},
			}},
		// --C reaches Base; a method that refuses it is told by compare's
		// run (TestCompareRefusesMethodOptionsUpFront), not here.
		{[]string{"DATA", "--methods", "svm", "--C", "4"}, withCompareBase(func(c *methods.Common) { c.C = 4 }), []methods.Spec{
			methods.SVMSettings{Common: withCompareBase(func(c *methods.Common) { c.C = 4 })},
		}},
		// compare's --workers is concurrent jobs, not a method's setting.
		{[]string{"DATA", "--methods", "svm", "--workers", "3"}, compareBase, []methods.Spec{methods.SVMSettings{Common: compareBase}}},
		{[]string{"--preset", "gi-chessboard", "--max-iter", "2"}, compareBase, nil},
		// "default" names the default list (Entries nil), "all" every method.
		{[]string{"DATA", "--methods", "default"}, compareBase, nil},
		{[]string{"DATA", "--methods", "all", "--budget", "7"}, compareBase, []methods.Spec{
			methods.SVMSettings{Common: compareBase}, methods.SPDSettings{Common: compareBase}, methods.GISettings{Common: compareBase},
			methods.LCCPSettings{Common: compareBase}, methods.RCSCSettings{Common: compareBase}, methods.TwoLevelSettings{Common: compareBase},
			methods.RandomSettings{Common: compareBase, Budget: 7}, methods.HalvingSettings{Common: compareBase},
			methods.BOSettings{Common: compareBase, Budget: 7},
		}},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseCompare(t, tc.args...)
			if err != nil {
				t.Fatal(err)
			}
			if o == nil {
				t.Fatal("runF was not called")
			}
			if !reflect.DeepEqual(o.s.Base, tc.base) {
				t.Errorf("Base %#v\nwant %#v", o.s.Base, tc.base)
			}
			if tc.want == nil {
				if o.s.Entries != nil {
					t.Errorf("entries %v, want nil (every method, or the preset's)", o.s.Entries)
				}
				return
			}
			if len(o.s.Entries) != len(tc.want) {
				t.Fatalf("%d entries, want %d", len(o.s.Entries), len(tc.want))
			}
			for i, e := range o.s.Entries {
				spec, err := methods.ApplyLoop(e.Spec, o.s.Loop)
				if err != nil {
					t.Fatalf("entry %s: %v", e, err)
				}
				if got := spec.WithBase(o.s.Base); !reflect.DeepEqual(got, tc.want[i]) {
					t.Errorf("entry %s: spec %#v\nwant %#v", e, got, tc.want[i])
				}
			}
		})
	}
}

// TestComparePartitionsFlagGiven: compare's default --partitions (30) yields to
// a preset's own number of trials unless --partitions is given, even as 30
// (TestPresetChessboardPartitions runs it).
func TestComparePartitionsFlagGiven(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args  []string
		given bool
	}{
		{[]string{"--preset", "gi-chessboard"}, false},
		{[]string{"--preset", "gi-chessboard", "--partitions", "30"}, true},
	} {
		o, err := parseCompare(t, tc.args...)
		if err != nil || o == nil {
			t.Fatalf("%v: %v", tc.args, err)
		}
		if o.Partitions != 30 || o.partitionsSet != tc.given {
			t.Errorf("%v: partitions %d, given %v; want 30, given %v", tc.args, o.Partitions, o.partitionsSet, tc.given)
		}
	}
}

// withCompareBase returns compareBase changed by set.
func withCompareBase(set func(*methods.Common)) methods.Common {
	c := compareBase
	set(&c)
	return c
}

// TestCompareFlagErrors: as TestTuneFlagErrors for compare; a method's
// refusal names the flag and the first entry that refuses it.
func TestCompareFlagErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"DATA", "--folds", "1"}, "--folds 1: svm: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--folds", "1", "--methods", "svm"}, "--folds 1: svm: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--folds", "1", "--methods", "spd,twolevel"}, "--folds 1: spd: want at least 2 (0 for the default 5)"},
		{[]string{"DATA", "--methods", "nosuch"}, `--methods: method entry "nosuch": unknown method "nosuch"`},
		{[]string{"DATA", "--methods", "spd:nosuch"}, `--methods: method entry "spd:nosuch": spd: param "nosuch": want diag, full`},
		{[]string{"DATA", "--methods", "svm,svm"}, "--methods: method entry svm listed twice"},
		{[]string{"DATA", "--eps", "0"}, "--eps 0: want a number from 1e-15 to 1"},
		{[]string{"DATA", "--grid-rows", "-2"}, "--grid-rows -2: svm: want -1 (no limit), 0 (the default 5,000) or at least 50"},
		{[]string{"DATA", "--cache-mb", "0"}, "--cache-mb must be at least 1"},
		{[]string{"DATA", "--max-iter", "-3"}, "--max-iter -3: spd: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--max-iter", "-3", "--methods", "gi"}, "--max-iter -3: gi: want a number ≥ 0 (0 for the default)"},
		{[]string{"DATA", "--workers", "-1"}, "--workers must be ≥ 0"},
		{[]string{"DATA", "--mem-mb", "-2"}, "--mem-mb must be"},
		{[]string{"DATA", "--partitions", "0"}, "--partitions must be between 1 and"},
		// Drawn up front: these were the runtime's out-of-memory crash.
		{[]string{"DATA", "--methods", "svm", "--partitions", "100000000000"}, "--partitions must be between 1 and"},
		{[]string{"--preset", "laanaya-weston", "--train-size", "100000000000"}, "--preset laanaya-weston draws --train-size + --test-size points per partition: at most"},
		{[]string{"DATA", "--train-fraction", "1"}, "--train-fraction must be in (0, 1)"},
		{[]string{"DATA", "--train-fraction", "NaN"}, "--train-fraction must be in (0, 1), got NaN"},
		{[]string{"DATA", "--splits", "nope"}, "--splits: want random or predefined"},
		{[]string{"DATA", "--select", "nope"}, "--select: want cv or laanaya"},
		{[]string{"--shard", "3/2"}, "--shard: want i/N"},
		{[]string{"--resume"}, "--resume needs --out FILE"},
		{[]string{"--format", "xml"}, "--format"},
		{[]string{"DATA", "--plot-format", "xyz"}, `--plot-format: want svg, png or pdf, got "xyz"`},
		{[]string{"--preset", "nosuch"}, `--preset: unknown preset "nosuch"`},
		{[]string{"--preset", "laanaya-weston", "DATA"}, "--preset generates its own data: give no DATA"},
		{[]string{"--preset", "laanaya-weston", "--train-size", "-5"}, "each must be at least 1"}, // used to panic in SplitAt
		{[]string{"--preset", "laanaya-weston", "--test-size", "0"}, "each must be at least 1"},
		// Flags a preset would ignore silently (gi-chessboard draws 500/10000).
		{[]string{"--preset", "gi-chessboard", "--train-size", "200"}, "--train-size does not apply to --preset gi-chessboard"},
		{[]string{"--preset", "laanaya-weston", "--stratified"}, "--stratified does not apply to --preset laanaya-weston"},
		{[]string{"--preset", "laanaya-weston", "--train-fraction", "0.5"}, "--train-fraction does not apply to --preset laanaya-weston"},
		{[]string{"--preset", "laanaya-weston", "--test", "T"}, "--test does not apply to --preset"},
		{[]string{"A", "B", "--test", "T"}, "--test FILE is the test part of one training DATA: give exactly one DATA, got 2"},
		{[]string{"DATA", "--test", "T", "--splits", "predefined"}, "--splits predefined does not apply"},
		{[]string{"DATA", "--test", "T", "--test-size", "30"}, "--test-size and --train-fraction do not apply"},
		{[]string{"DATA", "--test", "T", "--train-fraction", "0.5"}, "--test-size and --train-fraction do not apply"},
		{[]string{"DATA", "--methods", "svm", "--partitions", "2", "--shard", "1/2", "--out", "s.jsonl", "--html", "r.html"}, "--html: a shard holds part of a run"},
		{[]string{"DATA", "--shard", "1/2"}, "--shard needs --out FILE"},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			o, err := parseCompare(t, tc.args...)
			if !isUsageError(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v (usage error: %v); want a usage error with %q", err, isUsageError(err), tc.want)
			}
			if o != nil {
				t.Error("runF was called")
			}
		})
	}
}

// compareSettings runs `kerneltune compare args...` up to where compare
// would start its work and returns the complete settings it would run
// (compareOptions.settings): nothing is read and no job runs.
func compareSettings(t *testing.T, args ...string) experiment.CompareSettings {
	t.Helper()
	var s experiment.CompareSettings
	called := false
	err := executeHooked(t, func(g *globalOptions) *cobra.Command {
		return newCompareCmdWith(g, func(_ context.Context, o *compareOptions, data []string) error {
			s, called = o.settings(data), true
			return nil
		})
	}, append([]string{"compare"}, args...)...)
	if err != nil || !called {
		t.Fatalf("compare %v: %v (runF called: %v)", args, err, called)
	}
	return s
}

// TestCompareFlagsBuildSettings (issue 31): the flags and DATA become the
// whole settings of the run — every dataset's reading and partitions, the
// seed, the normalisation, the shard, the preset, the results file and
// the entries — checked here without reading or running anything.
func TestCompareFlagsBuildSettings(t *testing.T) {
	t.Parallel()
	s := compareSettings(t, "a.csv", "b.libsvm", "--partitions", "4", "--train-size", "50", "--test-size", "60", "--stratified",
		"--seed", "9", "--normalize", "minmax01", "--label-col", "3", "--methods", "svm,rcsc", "--shard", "2/3", "--out", "x.jsonl", "--folds", "4")
	each := experiment.DatasetSettings{Partitions: 4, TrainSize: 50, TestSize: 60, Stratified: true, PartitionsGiven: true, TrainSizeGiven: true}
	got := slices.Clone(s.Datasets)
	for i, d := range got {
		if r := d.Read; r.LabelCol != "3" || r.Missing != "error" || r.Format != "" || len(r.Classes) != 0 || r.Categorical != "" {
			t.Errorf("dataset %d read with %+v, want label column 3 and the defaults", i, r)
		}
		got[i].Read = dataio.ReadOptions{}
	}
	if want := experiment.FileSpecs([]string{"a.csv", "b.libsvm"}, each); !reflect.DeepEqual(got, want) {
		t.Errorf("datasets %+v\nwant %+v", got, want)
	}
	if s.Seed != 9 || s.Normalize != "minmax01" || s.Shard != 2 || s.Shards != 3 || s.Out != "x.jsonl" || s.Preset.Name != "" {
		t.Errorf("seed %d, normalize %q, shard %d/%d, out %q, preset %+v", s.Seed, s.Normalize, s.Shard, s.Shards, s.Out, s.Preset)
	}
	if len(s.Entries) != 2 || s.Entries[0].String() != "svm" || s.Entries[1].String() != "rcsc" || s.Base.Folds != 4 {
		t.Errorf("entries %v, base %+v", s.Entries, s.Base)
	}

	s = compareSettings(t, "tr.csv", "--test", "te.csv", "--train-size", "80")
	if len(s.Datasets) != 1 || s.Datasets[0].Path != "tr.csv" || s.Datasets[0].Test != "te.csv" || s.Datasets[0].TrainSize != 80 || !s.Datasets[0].TrainSizeGiven || s.Datasets[0].PartitionsGiven {
		t.Errorf("--test: datasets %+v", s.Datasets)
	}

	s = compareSettings(t, "--preset", "laanaya-weston", "--train-size", "30", "--test-size", "40")
	if s.Preset != (experiment.PresetRun{Name: "laanaya-weston", TrainSize: 30, TestSize: 40}) {
		t.Errorf("--preset laanaya-weston: %+v (partitions 0: the preset's own)", s.Preset)
	}
	s = compareSettings(t, "--preset", "laanaya-weston", "--partitions", "5")
	if s.Preset.Partitions != 5 {
		t.Errorf("--preset with --partitions 5: %+v", s.Preset)
	}
}

// TestCompareFlagsBuildWholeSettings (issue 31): with no function left in
// them, compare's settings are compared whole, every field, against the
// value the flags mean — the loop flags as a methods.Loop, the shared ones
// as the Base — so that a flag that stops reaching its field fails here
// without reading data or running a job.
func TestCompareFlagsBuildWholeSettings(t *testing.T) {
	t.Parallel()
	s := compareSettings(t, "a.csv", "--methods", "svm,bo", "--max-iter", "7", "--budget", "12", "--log2c", "-1,3,2",
		"--eps", "0.01", "--cache-mb", "64", "--workers", "2", "--mem-mb", "900", "--seed", "4",
		"--partitions", "3", "--train-fraction", "0.4", "--select", "laanaya", "--out", "r.jsonl", "--resume", "--name", "A")
	entries, err := experiment.ParseEntries("svm,bo")
	if err != nil {
		t.Fatal(err)
	}
	var log2c methods.Log2Grid
	if err := log2c.Set("-1,3,2"); err != nil {
		t.Fatal(err)
	}
	each := experiment.DatasetSettings{Name: "A", Partitions: 3, TrainSize: 100, TestSize: 100, TrainFraction: 0.4,
		PartitionsGiven: true, Read: dataio.ReadOptions{Missing: "error"}}
	want := experiment.CompareSettings{
		Entries: entries, Datasets: experiment.FileSpecs([]string{"a.csv"}, each), Seed: 4, Normalize: "auto",
		Base: methods.Common{Folds: 5, Eps: 0.01, CacheMB: 64}, Workers: 2,
		Loop:          methods.Loop{MaxIter: 7, Budget: 12, Space: methods.Space{Log2C: log2c}},
		LaanayaSelect: true, MemBytes: 900 << 20, Out: "r.jsonl", Resume: true,
	}
	got := s
	got.Stdin, got.Provenance = nil, experiment.Provenance{} // the process's stdin; version and command line
	if !reflect.DeepEqual(got, want) {
		t.Errorf("settings\n%+v\nwant\n%+v", got, want)
	}
	if s.Provenance.Command == "" || s.Stdin == nil {
		t.Errorf("provenance %+v, stdin %v: want the command line and a reader", s.Provenance, s.Stdin)
	}
}
