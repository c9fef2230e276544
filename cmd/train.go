package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

type trainOptions struct {
	*globalOptions
	data dataOptions

	Kernel    string
	C         float64
	Gamma     float64
	Sigma     float64
	QFile     string
	Theta     string
	Margin    string
	Eps       float64
	CacheMB   int
	MaxIter   int
	WeightPos float64
	WeightNeg float64
	Output    string
	Format    string
	Prob      bool

	margin  model.Margin
	command string // the command line, for the model's provenance
}

func init() { subcommands = append(subcommands, newTrainCmd) }

func newTrainCmd(g *globalOptions) *cobra.Command {
	o := &trainOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:     "train DATA",
		Short:   "Train one SVM with a given kernel and C, report its accuracy, save the model",
		Long:    help("train") + dataHelp,
		Example: help("train-examples"),
		Args:    oneDataArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd.Flags()); err != nil {
				return err
			}
			o.command = commandLine(cmd, args)
			return runTrain(cmd.Context(), o, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.Kernel, "kernel", model.KernelGaussian, "kernel: gaussian, l1 or linear")
	f.Float64VarP(&o.C, "C", "c", 1, "soft-margin constant C (LIBSVM's -c); for --margin l2, ν = 1/C")
	f.Float64VarP(&o.Gamma, "gamma", "g", 0, "Gaussian γ of exp(-γ‖x-z‖²) (LIBSVM's -g; default 1/d)")
	f.Float64Var(&o.Sigma, "sigma", 0, "Gaussian width σ of exp(-‖x-z‖²/(2σ²)) (γ = 1/(2σ²))")
	f.StringVar(&o.QFile, "Q", "", "file with a d×d SPD metric Q for exp(-½(x-z)ᵀQ(x-z))")
	f.StringVar(&o.Theta, "theta", "", "L1-kernel widths: one value or d comma-separated values (default 1)")
	f.StringVar(&o.Margin, "margin", "l1", "margin: l1 (C-SVC), l2 (K + I/C) or hard")
	f.Float64Var(&o.Eps, "eps", 1e-3, "SMO stopping tolerance on the maximal KKT violation (LIBSVM's -e)")
	f.IntVar(&o.CacheMB, "cache-mb", 200, "kernel-column cache in MB (LIBSVM's -m)")
	f.IntVar(&o.MaxIter, "max-iter", 0, "SMO iteration limit (0 = max(10⁷, 100n))")
	f.Float64Var(&o.WeightPos, "weight-pos", 1, "multiply C for the +1 class (LIBSVM's -w1; l1 margin)")
	f.Float64Var(&o.WeightNeg, "weight-neg", 1, "multiply C for the -1 class (LIBSVM's -w-1; l1 margin)")
	f.StringVarP(&o.Output, "output", "o", "", "save the model to this JSON file (read by 'kerneltune predict')")
	f.BoolVar(&o.Prob, "probability", false, "fit probability estimates as LIBSVM's -b 1 (Platt's sigmoid on 5-fold CV decision values; 5 more SVM solves per SVM), for predict --probability")
	f.StringVar(&o.Format, "format", formatTable, "output: table or json")
	o.data.addReadFlags(f)
	o.data.addSplitFlags(f)
	return c
}

// validate checks the flags alone (usage errors, exit code 2); what depends
// on the data (the number of features) is checked in runTrain.
func (o *trainOptions) validate(fs *pflag.FlagSet) error {
	m, err := model.ParseMargin(o.Margin)
	o.margin = m
	notPositive := func(name string, v float64) error {
		return usageIf(!positive(v), "--%s must be a positive number, got %v", name, v)
	}
	return cmp.Or(
		checkFormat(o.Format, formatTable, formatJSON),
		o.data.check(),
		usageIf(err != nil, "--margin: unknown margin %q (want l1, l2 or hard)", o.Margin),
		usageIf(m == model.Hard && fs.Changed("C"), "--C has no meaning with --margin hard (there is no slack to penalise)"),
		usageIf(m != model.Hard && !positive(o.C), "--C must be a positive number, got %v", o.C),
		notPositive("eps", o.Eps),
		notPositive("weight-pos", o.WeightPos),
		usageIf(fs.Changed("weight-pos") && m != model.L1, "--weight-pos applies to --margin l1 only"),
		notPositive("weight-neg", o.WeightNeg),
		usageIf(fs.Changed("weight-neg") && m != model.L1, "--weight-neg applies to --margin l1 only"),
		usageIf(o.CacheMB < 1, "--cache-mb must be at least 1, got %d", o.CacheMB),
		usageIf(o.MaxIter < 0, "--max-iter must be ≥ 0, got %d", o.MaxIter),
		o.checkKernel(fs))
}

// checkKernel checks the kernel flags: which belong to --kernel, and their
// values.
func (o *trainOptions) checkKernel(fs *pflag.FlagSet) error {
	set := 0
	for _, name := range []string{"gamma", "sigma", "Q"} {
		if fs.Changed(name) {
			set++
		}
	}
	switch o.Kernel {
	case model.KernelGaussian:
		g := 1 / (2 * o.Sigma * o.Sigma)
		return cmp.Or(
			usageIf(set > 1, "give at most one of --gamma, --sigma and --Q"),
			usageIf(fs.Changed("gamma") && !positive(o.Gamma), "--gamma must be a positive number, got %v", o.Gamma),
			usageIf(fs.Changed("sigma") && !positive(o.Sigma), "--sigma must be a positive number, got %v", o.Sigma),
			usageIf(fs.Changed("sigma") && (g == 0 || math.IsInf(g, 0)), "--sigma %v gives γ = 1/(2σ²) = %v, which a kernel cannot use: σ must be between 1e-150 and 1e150", o.Sigma, g),
			usageIf(fs.Changed("Q") && o.QFile == "", "--Q needs a file name"),
			usageIf(fs.Changed("theta"), "--theta belongs to --kernel l1"))
	case model.KernelL1, model.KernelLinear:
		if err := cmp.Or(
			usageIf(set > 0, "--gamma, --sigma and --Q belong to --kernel gaussian"),
			usageIf(o.Kernel == model.KernelLinear && fs.Changed("theta"), "--theta belongs to --kernel l1")); err != nil {
			return err
		}
		if o.Kernel == model.KernelL1 && fs.Changed("theta") {
			_, err := parseTheta(o.Theta)
			return err
		}
		return nil
	}
	return usageErrorf("--kernel: unknown kernel %q (want gaussian, l1 or linear)", o.Kernel)
}

// parseTheta parses --theta: comma-separated positive numbers.
func parseTheta(s string) ([]float64, error) {
	var out []float64
	for _, f := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(f), 64)
		if err != nil || !(v > 0) || math.IsInf(v, 0) {
			return nil, usageErrorf("--theta: %q is not a positive number", strings.TrimSpace(f))
		}
		out = append(out, v)
	}
	return out, nil
}

func runTrain(ctx context.Context, o *trainOptions, path string) error {
	if err := checkOutputDirs([2]string{"-o", o.Output}); err != nil {
		return err
	}
	train, test, norm, err := o.data.loadTrainTest(path, o.Seed)
	if err != nil {
		return err
	}
	ks, err := o.kernelSettings()
	if err != nil {
		return err
	}
	defer sysmem.LimitGCTo(0, model.FitGCLimit(train, test, o.CacheMB))() // the heap within the fit's live data
	r, err := model.Train(ctx, model.TrainSettings{
		Train: train, Test: test, Norm: norm, Data: path, TestFile: o.data.Test,
		Kernel: ks, Margin: o.margin, C: o.C, WeightPos: o.WeightPos, WeightNeg: o.WeightNeg,
		Eps: o.Eps, MaxIter: o.MaxIter, CacheMB: o.CacheMB,
		Seed: o.Seed, Version: buildinfo.Version(), Command: o.command, Probability: o.Prob,
	})
	var pe *model.ParamError
	switch {
	case errors.As(err, &pe) && pe.Param == "Q":
		return fmt.Errorf("--Q %s: %w", o.QFile, pe.Err)
	case errors.As(err, &pe):
		return fmt.Errorf("--%s: %w", pe.Param, pe.Err)
	case errors.Is(err, model.ErrNotSeparable):
		return fmt.Errorf("%w\nhint: no hyperplane in this kernel's feature space separates the two classes (always so when one point carries both labels); use --margin l1 or l2, which allow training errors", err)
	case errors.Is(err, model.ErrNaN):
		return fmt.Errorf("%w\nhint: the kernel parameters are too extreme for this data (e.g. --gamma 1e308 overflows the scaled distances); try a --gamma, --sigma, --Q or --theta nearer the default", err)
	case err != nil:
		return err
	}
	r.ModelFile = o.Output
	if o.Output != "" {
		if err := r.Model.SaveFile(o.Output); err != nil {
			return err
		}
	}
	if o.Format == formatJSON {
		return renderJSON(o.Out, r)
	}
	return renderTables(o.Out, formatTable, report.TrainTables(r)...)
}

// kernelSettings are the kernel flags: --kernel, --gamma, --sigma, --Q (the
// file read here) and --theta.
func (o *trainOptions) kernelSettings() (model.KernelSettings, error) {
	ks := model.KernelSettings{Kind: o.Kernel, Gamma: o.Gamma, Sigma: o.Sigma}
	if o.Kernel == model.KernelL1 && o.Theta != "" {
		t, err := parseTheta(o.Theta)
		if err != nil {
			return ks, err
		}
		ks.Theta = t
	}
	if o.Kernel == model.KernelGaussian && o.QFile != "" {
		f, err := os.Open(o.QFile)
		if err != nil {
			return ks, fmt.Errorf("--Q: %w", err)
		}
		defer f.Close()
		if ks.Q, err = dataio.ReadMatrix(f, o.QFile); err != nil {
			return ks, fmt.Errorf("--Q %w", err) // "--Q FILE:LINE:COL: problem"
		}
		ks.QName = o.QFile
	}
	return ks, nil
}
