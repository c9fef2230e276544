package cmd

// The flags → complete settings tests (issue 31): each command's flags and
// DATA become one settings value before anything is read or run, and these
// tests compare that whole value with the one expected, so that a flag that
// no longer reaches the settings fails here, without running a pipeline.

import (
	"context"
	"reflect"
	"strings"
	"testing"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

// tuneSettingsOf is parseTune that fails the test on an error; Stdin (the
// command's standard input, which executeHooked makes) is checked to be
// set and left out, so that the rest compares with reflect.DeepEqual.
func tuneSettingsOf(t *testing.T, args ...string) tuneSettings {
	t.Helper()
	s, err := parseTune(t, args...)
	if err != nil || s == nil {
		t.Fatalf("tune %v: %v (runF called: %v)", args, err, s != nil)
	}
	if s.Split.Stdin == nil {
		t.Errorf("tune %v: no standard input in the settings", args)
	}
	s.Split.Stdin = nil
	return *s
}

// defaultRead are the read options of the read flags' defaults.
var defaultRead = dataio.ReadOptions{Missing: "error"}

// wantTune is the settings of `kerneltune tune d.csv --method=spd` (the
// defaults), changed by set; command is the command line it records.
func wantTune(command string, set func(*tuneSettings)) tuneSettings {
	s := tuneSettings{
		TuneSettings: experiment.TuneSettings{Data: "d.csv", Spec: methods.SPDSettings{Common: tuneBase},
			MemBytes: sysmem.Bound(0), Version: buildinfo.Version(), Command: "kerneltune tune d.csv " + command},
		Split:  dataio.SplitSettings{Read: defaultRead, Seed: 1, Normalize: dataio.Auto},
		Format: formatTable,
	}
	if set != nil {
		set(&s)
	}
	s.Split.Read.MemBytes = s.MemBytes // DATA and --test are read within the run's bound
	return s
}

// TestTuneFlagsBuildSettings: tune's flags and DATA become the whole
// settings of the run (the method's spec with the loop flags, how DATA and
// its test part are read, split and normalised, the seed, the memory bound,
// the files written, the output format and the command line), checked
// without reading or running anything.
func TestTuneFlagsBuildSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want tuneSettings
	}{
		{[]string{"--method", "spd"}, wantTune("--method=spd", nil)},
		{[]string{"--method", "spd", "--param", "full", "--mode", "lbfgs", "--max-iter", "9", "--tol", "1e-4", "--rho", "0.5", "--init", "cv", "--folds", "4", "--kernel-rows", "-1", "--workers", "2"},
			wantTune("--folds=4 --init=cv --kernel-rows=-1 --max-iter=9 --method=spd --mode=lbfgs --param=full --rho=0.5 --tol=0.0001 --workers=2", func(s *tuneSettings) {
				s.Spec = methods.SPDSettings{Common: withBase(func(c *methods.Common) { c.Folds, c.KernelRows, c.Workers = 4, -1, 2 }),
					Param: "full", Mode: "lbfgs", MaxIter: 9, Tol: 1e-4, Rho: 0.5, Init: "cv"}
			})},
		{[]string{"--method", "svm", "--log2c", "-1,3,2", "--log2g", "2,-4", "--weight-pos", "2", "--weight-neg", "0.5", "--grid-rows", "100", "--eps", "1e-4", "--cache-mb", "50", "--seed", "7"},
			wantTune("--cache-mb=50 --eps=0.0001 --grid-rows=100 --log2c=-1,3,2 --log2g=2,-4,-2 --method=svm --seed=7 --weight-neg=0.5 --weight-pos=2", func(s *tuneSettings) {
				s.Spec = methods.SVMSettings{Common: methods.Common{Seed: 7, GridRows: 100, Eps: 1e-4, CacheMB: 50, WeightPos: 2, WeightNeg: 0.5},
					Space: methods.Space{Log2C: methods.Log2Grid{Begin: -1, End: 3, Step: 2}, Log2Gamma: methods.Log2Grid{Begin: 2, End: -4, Step: -2}}}
				s.Split.Seed = 7
			})},
		{[]string{"--method", "halving", "--class-weight", "balanced", "-c", "2"},
			wantTune("--C=2 --class-weight=balanced --method=halving", func(s *tuneSettings) {
				s.Spec = methods.HalvingSettings{Common: withBase(func(c *methods.Common) { c.C, c.ClassWeight = 2, "balanced" })}
			})},
		// --test, the files written, the format, the memory bound and
		// the probabilities.
		{[]string{"--method", "gi", "--steps", "3", "--margin", "hard", "--test", "t.csv", "--normalize", "minmax01", "--probability", "-o", "m.json", "--trace", "tr.csv", "--export-libsvm", "ex", "--format", "json", "--mem-mb", "512", "--resume"},
			wantTune("--export-libsvm=ex --format=json --margin=hard --mem-mb=512 --method=gi --normalize=minmax01 --output=m.json --probability=true --steps=3 --test=t.csv --trace=tr.csv", func(s *tuneSettings) {
				s.Spec = methods.GISettings{Common: tuneBase, Steps: 3, Margin: "hard"}
				s.TestFile, s.Split.Test, s.Split.Normalize = "t.csv", "t.csv", "minmax01"
				s.Probability, s.Output, s.Trace, s.Export, s.Format = true, "m.json", "tr.csv", "ex", formatJSON
				s.Resume = true // and the model's command line leaves it out
				s.MemMB, s.MemBytes = 512, 512<<20
			})},
		// A study entry's read options, as flags, and a held-out part.
		{[]string{"--method", "random", "--budget", "12", "--input-format", "csv", "--header", "yes", "--label-col", "class", "--classes", "a,b", "--positive", "a",
			"--categorical", "onehot", "--missing", "drop", "--multiclass", "ovr", "--test-fraction", "0.25", "--mem-mb", "-1"},
			wantTune("--budget=12 --categorical=onehot --classes=[a,b] --header=yes --input-format=csv --label-col=class --mem-mb=-1 --method=random --missing=drop --multiclass=ovr --positive=a --test-fraction=0.25", func(s *tuneSettings) {
				s.Spec = methods.RandomSettings{Common: tuneBase, Budget: 12}
				s.Split.Read = dataio.ReadOptions{Format: "csv", Header: "yes", LabelCol: "class", Classes: []string{"a", "b"}, Positive: "a",
					Categorical: "codes", Missing: "drop", Multiclass: "ovr"}
				s.Split.TestFraction, s.MemMB, s.MemBytes = 0.25, -1, 0
			})},
		{[]string{"--method", "rcsc", "--schedule", "paper", "--input-format", "libsvm", "--features", "123"},
			wantTune("--features=123 --input-format=libsvm --method=rcsc --schedule=paper", func(s *tuneSettings) {
				s.Spec = methods.RCSCSettings{Common: tuneBase, Schedule: "paper"}
				s.Split.Read = dataio.ReadOptions{Format: "libsvm", Missing: "error", Features: 123}
			})},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			if got := tuneSettingsOf(t, append([]string{"d.csv"}, tc.args...)...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("settings %+v\nwant     %+v", got, tc.want)
			}
		})
	}
}

// everyFlagReachesSettings checks that each flag of the command name (and
// the root's persistent ones), given with its arguments in set, changes
// the settings that settingsOf returns for them (the command line they
// record left out): a flag that is declared but no longer read fails, and
// so does a new flag until it has its arguments in set. The help and
// --quiet, the run's own output, are not settings, nor the flags in skip
// (with why).
func everyFlagReachesSettings(t *testing.T, name string, set map[string][]string, skip map[string]string, settingsOf func(args ...string) any) {
	t.Helper()
	def := settingsOf()
	root := newRootCmd(&globalOptions{})
	c, _, err := root.Find([]string{name})
	if err != nil {
		t.Fatal(err)
	}
	flags := c.Flags()
	flags.AddFlagSet(root.PersistentFlags())
	n := 0
	flags.VisitAll(func(f *pflag.Flag) {
		if _, ok := skip[f.Name]; ok || f.Name == "help" || f.Name == "quiet" {
			return
		}
		n++
		if args, ok := set[f.Name]; !ok {
			t.Errorf("%s --%s: no arguments in this test: add them (and the field the flag sets to the settings)", name, f.Name)
		} else if reflect.DeepEqual(settingsOf(args...), def) {
			t.Errorf("%s %v leaves the settings as they are: the flag does not reach them", name, args)
		}
	})
	if n < len(set) {
		t.Errorf("%s: %d flags checked, %d in the test: did the command lose flags?", name, n, len(set))
	}
}

// TestTuneEveryFlagReachesSettings: everyFlagReachesSettings for tune,
// each flag on top of DATA and --method spd.
func TestTuneEveryFlagReachesSettings(t *testing.T) {
	t.Parallel()
	everyFlagReachesSettings(t, "tune", map[string][]string{
		"method": {"--method", "svm"}, "param": {"--param", "full"}, "C": {"--C", "2"}, "margin": {"--margin", "hard", "--method", "gi"},
		"max-iter": {"--max-iter", "5"}, "steps": {"--steps", "5", "--method", "gi"}, "tol": {"--tol", "1e-3"}, "rho": {"--rho", "0.5"},
		"init": {"--init", "cv"}, "mode": {"--mode", "lbfgs"}, "schedule": {"--schedule", "lbfgs"}, "budget": {"--budget", "9", "--method", "random"},
		"log2c": {"--log2c", "1,3", "--method", "svm"}, "log2g": {"--log2g", "1,3", "--method", "svm"},
		"weight-pos": {"--weight-pos", "2", "--method", "svm"}, "weight-neg": {"--weight-neg", "2", "--method", "svm"},
		"class-weight": {"--class-weight", "balanced", "--method", "svm"}, "folds": {"--folds", "3"}, "grid-rows": {"--grid-rows", "-1"},
		"kernel-rows": {"--kernel-rows", "-1"}, "eps": {"--eps", "1e-2"}, "cache-mb": {"--cache-mb", "9"}, "workers": {"--workers", "3"},
		"mem-mb": {"--mem-mb", "64"}, "output": {"--output", "m.json"}, "resume": {"--output", "m.json", "--resume"}, "trace": {"--trace", "t.csv"}, "probability": {"--probability"},
		"format": {"--format", "json"}, "export-libsvm": {"--export-libsvm", "ex"}, "input-format": {"--input-format", "csv"},
		"header": {"--header", "no"}, "label-col": {"--label-col", "2"}, "positive": {"--positive", "x"}, "classes": {"--classes", "x,y"},
		"categorical": {"--categorical", "onehot"}, "features": {"--features", "9"}, "missing": {"--missing", "drop"},
		"multiclass": {"--multiclass", "ovr"}, "storage": {"--storage", "sparse"}, "test": {"--test", "t.csv"}, "test-fraction": {"--test-fraction", "0.5"},
		"normalize": {"--normalize", "none"}, "seed": {"--seed", "2"},
	}, nil, func(args ...string) any {
		s := tuneSettingsOf(t, append([]string{"d.csv", "--method", "spd"}, args...)...)
		s.Command = ""
		return s
	})
}

// TestTrainEveryFlagReachesSettings: everyFlagReachesSettings for train,
// each flag on top of DATA.
func TestTrainEveryFlagReachesSettings(t *testing.T) {
	t.Parallel()
	everyFlagReachesSettings(t, "train", map[string][]string{
		"kernel": {"--kernel", "linear"}, "C": {"--C", "2"}, "gamma": {"--gamma", "2"}, "sigma": {"--sigma", "2"}, "Q": {"--Q", "q.txt"},
		"theta": {"--theta", "2", "--kernel", "l1"}, "margin": {"--margin", "l2"}, "eps": {"--eps", "1e-2"}, "cache-mb": {"--cache-mb", "9"},
		"max-iter": {"--max-iter", "9"}, "weight-pos": {"--weight-pos", "2"}, "weight-neg": {"--weight-neg", "2"}, "output": {"--output", "m.json"},
		"probability": {"--probability"}, "format": {"--format", "json"}, "input-format": {"--input-format", "csv"},
		"header": {"--header", "no"}, "label-col": {"--label-col", "2"}, "positive": {"--positive", "x"}, "classes": {"--classes", "x,y"},
		"categorical": {"--categorical", "onehot"}, "features": {"--features", "9"}, "missing": {"--missing", "drop"},
		"multiclass": {"--multiclass", "ovr"}, "storage": {"--storage", "sparse"}, "test": {"--test", "t.csv"}, "test-fraction": {"--test-fraction", "0.5"},
		"normalize": {"--normalize", "none"}, "seed": {"--seed", "2"}, "mem-mb": {"--mem-mb", "64"},
	}, nil, func(args ...string) any {
		s := trainSettingsOf(t, append([]string{"d.csv"}, args...)...)
		s.Command = ""
		return s
	})
}

// trainSettingsOf is tuneSettingsOf for train.
func trainSettingsOf(t *testing.T, args ...string) trainSettings {
	t.Helper()
	var got *trainSettings
	err := executeHooked(t, func(g *globalOptions) *cobra.Command {
		return newTrainCmdWith(g, func(_ context.Context, _ *globalOptions, s trainSettings) error {
			got = &s
			return nil
		})
	}, append([]string{"train"}, args...)...)
	if err != nil || got == nil {
		t.Fatalf("train %v: %v (runF called: %v)", args, err, got != nil)
	}
	if got.Split.Stdin == nil {
		t.Errorf("train %v: no standard input in the settings", args)
	}
	got.Split.Stdin = nil
	return *got
}

// wantTrain is the settings of `kerneltune train d.csv` (the defaults),
// changed by set; command is the flags the command line records.
func wantTrain(command string, set func(*trainSettings)) trainSettings {
	s := trainSettings{
		TrainSettings: model.TrainSettings{Data: "d.csv", Kernel: model.KernelSettings{Kind: model.KernelGaussian}, Margin: model.L1, C: 1,
			WeightPos: 1, WeightNeg: 1, Eps: 1e-3, CacheMB: 200, Seed: 1, Version: buildinfo.Version(), Command: strings.TrimSpace("kerneltune train d.csv " + command)},
		Split:  dataio.SplitSettings{Read: defaultRead, Seed: 1, Normalize: dataio.Auto},
		Format: formatTable,
	}
	if set != nil {
		set(&s)
	}
	s.Split.Read.MemBytes = sysmem.Bound(s.MemMB) // --mem-mb bounds the reading
	return s
}

// TestTrainFlagsBuildSettings is TestTuneFlagsBuildSettings for train: the
// kernel, the SVM and its solver, the data's reading and split, the seed,
// the model file and the output format.
func TestTrainFlagsBuildSettings(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want trainSettings
	}{
		{nil, wantTrain("", nil)},
		{[]string{"--gamma", "0.5", "-c", "4", "--weight-pos", "2", "--weight-neg", "0.5", "--eps", "1e-4", "--cache-mb", "50", "--max-iter", "1000", "--seed", "3"},
			wantTrain("--C=4 --cache-mb=50 --eps=0.0001 --gamma=0.5 --max-iter=1000 --seed=3 --weight-neg=0.5 --weight-pos=2", func(s *trainSettings) {
				s.Kernel.Gamma, s.C, s.WeightPos, s.WeightNeg, s.Eps, s.CacheMB, s.MaxIter, s.Seed, s.Split.Seed = 0.5, 4, 2, 0.5, 1e-4, 50, 1000, 3, 3
			})},
		{[]string{"--sigma", "2", "--margin", "l2", "--test", "t.csv", "--normalize", "none", "--probability", "-o", "m.json", "--format", "json"},
			wantTrain("--format=json --margin=l2 --normalize=none --output=m.json --probability=true --sigma=2 --test=t.csv", func(s *trainSettings) {
				s.Kernel.Sigma, s.Margin, s.TestFile, s.Split.Test, s.Split.Normalize = 2, model.L2, "t.csv", "t.csv", "none"
				s.Probability, s.Output, s.Format = true, "m.json", formatJSON
			})},
		{[]string{"--Q", "q.txt", "--margin", "hard", "--input-format", "csv", "--label-col", "y", "--missing", "drop", "--test-fraction", "0.3"},
			wantTrain("--Q=q.txt --input-format=csv --label-col=y --margin=hard --missing=drop --test-fraction=0.3", func(s *trainSettings) {
				s.Kernel.QName, s.Margin = "q.txt", model.Hard
				s.Split.Read, s.Split.TestFraction = dataio.ReadOptions{Format: "csv", LabelCol: "y", Missing: "drop"}, 0.3
			})},
		{[]string{"--kernel", "l1", "--theta", "1,2.5", "--classes", "a,b", "--multiclass", "ovr"},
			wantTrain("--classes=[a,b] --kernel=l1 --multiclass=ovr --theta=1,2.5", func(s *trainSettings) {
				s.Kernel = model.KernelSettings{Kind: model.KernelL1, Theta: []float64{1, 2.5}}
				s.Split.Read = dataio.ReadOptions{Classes: []string{"a", "b"}, Missing: "error", Multiclass: "ovr"}
			})},
		{[]string{"--kernel", "linear"}, wantTrain("--kernel=linear", func(s *trainSettings) { s.Kernel.Kind = model.KernelLinear })},
		{[]string{"--mem-mb", "64"}, wantTrain("--mem-mb=64", func(s *trainSettings) { s.MemMB, s.Split.Read.MemBytes = 64, 64<<20 })},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			if got := trainSettingsOf(t, append([]string{"d.csv"}, tc.args...)...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("settings %+v\nwant     %+v", got, tc.want)
			}
		})
	}
}

// predictSettingsOf is tuneSettingsOf for predict.
func predictSettingsOf(t *testing.T, args ...string) predictSettings {
	t.Helper()
	var got *predictSettings
	err := executeHooked(t, func(g *globalOptions) *cobra.Command {
		return newPredictCmdWith(g, func(_ context.Context, _ *globalOptions, s predictSettings) error {
			got = &s
			return nil
		})
	}, append([]string{"predict"}, args...)...)
	if err != nil || got == nil {
		t.Fatalf("predict %v: %v (runF called: %v)", args, err, got != nil)
	}
	return *got
}

// TestPredictFlagsBuildSettings is TestTuneFlagsBuildSettings for predict:
// the model and data files, how DATA is read, what to do with another
// number of features, the checksum's policy and the output.
func TestPredictFlagsBuildSettings(t *testing.T) {
	t.Parallel()
	want := func(set func(*predictSettings)) predictSettings {
		s := predictSettings{PredictSettings: model.PredictSettings{Data: "d.csv", ModelFile: "m.json"}, Read: defaultRead, Format: formatTable}
		if set != nil {
			set(&s)
		}
		s.Read.MemBytes = sysmem.Bound(s.MemMB) // --mem-mb bounds the reading
		return s
	}
	for _, tc := range []struct {
		args []string
		want predictSettings
	}{
		{nil, want(nil)},
		{[]string{"--format", "csv", "-o", "p.csv", "--probability", "--strict", "--features", "pad"}, want(func(s *predictSettings) {
			s.Format, s.Output, s.Probability, s.Strict, s.Features = formatCSV, "p.csv", true, true, model.FeaturesPad
		})},
		{[]string{"--per-point", "--ignore-checksum", "--no-labels", "--features", "12", "--input-format", "libsvm"}, want(func(s *predictSettings) {
			s.PerPoint, s.IgnoreChecksum, s.NoLabels, s.Features = true, true, true, "12"
			s.Read = dataio.ReadOptions{Format: "libsvm", Missing: "error", Features: 12}
		})},
		{[]string{"--format", "labels", "--header", "no", "--label-col", "1", "--classes", "a,b", "--categorical", "onehot", "--missing", "drop", "--multiclass", "ovr"},
			want(func(s *predictSettings) {
				s.Format = report.FormatLabels
				s.Read = dataio.ReadOptions{Header: "no", LabelCol: "1", Classes: []string{"a", "b"}, Categorical: "codes", Missing: "drop", Multiclass: "ovr"}
			})},
		{[]string{"--mem-mb", "64"}, want(func(s *predictSettings) { s.MemMB, s.Read.MemBytes = 64, 64<<20 })},
	} {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			t.Parallel()
			if got := predictSettingsOf(t, append([]string{"m.json", "d.csv"}, tc.args...)...); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("settings %+v\nwant     %+v", got, tc.want)
			}
		})
	}
}

// TestPredictEveryFlagReachesSettings: everyFlagReachesSettings for
// predict, each flag on top of MODEL and DATA.
func TestPredictEveryFlagReachesSettings(t *testing.T) {
	t.Parallel()
	everyFlagReachesSettings(t, "predict", map[string][]string{
		"output": {"--output", "p.csv"}, "format": {"--format", "json"}, "no-labels": {"--no-labels"}, "strict": {"--strict"},
		"ignore-checksum": {"--ignore-checksum"}, "per-point": {"--per-point"}, "probability": {"--probability"}, "features": {"--features", "pad"},
		"input-format": {"--input-format", "csv"}, "header": {"--header", "no"}, "label-col": {"--label-col", "2"}, "classes": {"--classes", "x,y"},
		"categorical": {"--categorical", "onehot"}, "missing": {"--missing", "drop"}, "multiclass": {"--multiclass", "ovr"}, "storage": {"--storage", "sparse"},
		"mem-mb": {"--mem-mb", "64"},
	}, map[string]string{
		"positive": "refused: the model fixes the label mapping",
		"seed":     "predict draws nothing at random",
	}, func(args ...string) any { return predictSettingsOf(t, append([]string{"m.json", "d.csv"}, args...)...) })
}
