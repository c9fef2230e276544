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
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

type trainOptions struct {
	*globalOptions
	data dataOptions
	s    trainSettings // the flags that are settings as they are

	Margin, QFile, Theta string
}

// trainSettings are the complete settings of the run the flags and DATA
// describe (trainOptions.settings; nothing read, nothing run): runTrain
// runs them, and flag tests check them whole. TrainSettings' Train, Test
// and Norm are left nil, read from Data with Split, and Kernel.Q is read
// from the file Kernel.QName (--Q).
type trainSettings struct {
	model.TrainSettings
	Split          dataio.SplitSettings
	Output, Format string
	MemMB          int // --mem-mb: Split.Read.MemBytes, the collector's limit, a refusal's words
}

func init() { subcommands = append(subcommands, newTrainCmd) }

func newTrainCmd(g *globalOptions) *cobra.Command { return newTrainCmdWith(g, runTrain) }

// newTrainCmdWith is newTuneCmdWith for train.
func newTrainCmdWith(g *globalOptions, runF func(context.Context, *globalOptions, trainSettings) error) *cobra.Command {
	o := &trainOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:     "train DATA",
		Short:   "Train one SVM with a given kernel and C, report its accuracy, save the model",
		Long:    help("train") + dataHelp,
		Example: help("train-examples"),
		Args:    oneDataArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := o.settings(cmd, args)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), g, s)
		},
	}
	f := c.Flags()
	f.StringVar(&o.s.Kernel.Kind, "kernel", model.KernelGaussian, "kernel: gaussian, l1 or linear")
	f.Float64VarP(&o.s.C, "C", "c", 1, "soft-margin constant C (LIBSVM's -c); for --margin l2, ν = 1/C")
	f.Float64VarP(&o.s.Kernel.Gamma, "gamma", "g", 0, "Gaussian γ of exp(-γ‖x-z‖²) (LIBSVM's -g; default 1/d)")
	f.Float64Var(&o.s.Kernel.Sigma, "sigma", 0, "Gaussian width σ of exp(-‖x-z‖²/(2σ²)) (γ = 1/(2σ²))")
	f.StringVar(&o.QFile, "Q", "", "file with a d×d SPD metric Q for exp(-½(x-z)ᵀQ(x-z))")
	f.StringVar(&o.Theta, "theta", "", "L1-kernel widths: one value or d comma-separated values (default 1)")
	f.StringVar(&o.Margin, "margin", "l1", "margin: l1 (C-SVC), l2 (K + I/C) or hard")
	f.Float64Var(&o.s.Eps, "eps", 1e-3, "SMO stopping tolerance on the maximal KKT violation (LIBSVM's -e)")
	f.IntVar(&o.s.CacheMB, "cache-mb", 200, "kernel-column cache in MB (LIBSVM's -m)")
	f.IntVar(&o.s.MaxIter, "max-iter", 0, "SMO iteration limit (0 = max(10⁷, 100n))")
	f.Float64Var(&o.s.WeightPos, "weight-pos", 1, "multiply C for the +1 class (LIBSVM's -w1; l1 margin)")
	f.Float64Var(&o.s.WeightNeg, "weight-neg", 1, "multiply C for the -1 class (LIBSVM's -w-1; l1 margin)")
	f.StringVarP(&o.s.Output, "output", "o", "", "save the model to this JSON file (read by 'kerneltune predict')")
	f.BoolVar(&o.s.Probability, "probability", false, "fit probability estimates as LIBSVM's -b 1 (Platt's sigmoid on 5-fold CV decision values; 5 more SVM solves per SVM), for predict --probability")
	f.StringVar(&o.s.Format, "format", formatTable, "output: table or json")
	f.IntVar(&o.s.MemMB, "mem-mb", 0, readMemFlagHelp)
	o.data.addReadFlags(f)
	o.data.addSplitFlags(f)
	return c
}

// settings checks the flags alone (usage errors, exit code 2; what depends
// on the data, the number of features, is checked when it is read) and
// builds the run's settings from them and DATA.
func (o *trainOptions) settings(cmd *cobra.Command, args []string) (trainSettings, error) {
	fs, s := cmd.Flags(), o.s
	m, err := model.ParseMargin(o.Margin)
	if err := cmp.Or(
		checkFormat(s.Format, formatTable, formatJSON),
		o.data.check(),
		usageIf(err != nil, "--margin: unknown margin %q (want l1, l2 or hard)", o.Margin),
		usageIf(m == model.Hard && fs.Changed("C"), "--C has no meaning with --margin hard (there is no slack to penalise)"),
		usageIf(m != model.Hard && !methods.CRange.Contains(s.C), "--C %v: want %s", s.C, methods.CRange.Want()),
		usageIf(!methods.EpsRange.Contains(s.Eps), "--eps %v: want %s", s.Eps, methods.EpsRange.Want()),
		usageIf(!methods.WeightRange.Contains(s.WeightPos), "--weight-pos %v: want %s", s.WeightPos, methods.WeightRange.Want()),
		usageIf(fs.Changed("weight-pos") && m != model.L1, "--weight-pos applies to --margin l1 only"),
		usageIf(!methods.WeightRange.Contains(s.WeightNeg), "--weight-neg %v: want %s", s.WeightNeg, methods.WeightRange.Want()),
		usageIf(fs.Changed("weight-neg") && m != model.L1, "--weight-neg applies to --margin l1 only"),
		usageIf(s.CacheMB < 1, "--cache-mb must be at least 1, got %d", s.CacheMB),
		usageIf(s.MaxIter < 0, "--max-iter must be ≥ 0, got %d", s.MaxIter),
		checkMemMB(s.MemMB),
		o.checkKernel(fs)); err != nil {
		return s, err
	}
	if s.Kernel.Kind == model.KernelL1 && o.Theta != "" {
		s.Kernel.Theta, _ = parseTheta(o.Theta) // checked by checkKernel
	}
	if s.Kernel.Kind == model.KernelGaussian {
		s.Kernel.QName = o.QFile
	}
	s.Data, s.TestFile, s.Margin, s.Seed, s.Split = args[0], o.data.Test, m, o.Seed, o.data.split(o.Seed)
	s.Split.Read.MemBytes = sysmem.Bound(s.MemMB)
	s.Version, s.Command = buildinfo.Version(), commandLine(cmd, args)
	return s, nil
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
	switch o.s.Kernel.Kind {
	case model.KernelGaussian:
		g := 1 / (2 * o.s.Kernel.Sigma * o.s.Kernel.Sigma)
		return cmp.Or(
			usageIf(set > 1, "give at most one of --gamma, --sigma and --Q"),
			usageIf(fs.Changed("gamma") && !positive(o.s.Kernel.Gamma), "--gamma must be a positive number, got %v", o.s.Kernel.Gamma),
			usageIf(fs.Changed("sigma") && !positive(o.s.Kernel.Sigma), "--sigma must be a positive number, got %v", o.s.Kernel.Sigma),
			usageIf(fs.Changed("sigma") && (g == 0 || math.IsInf(g, 0)), "--sigma %v gives γ = 1/(2σ²) = %v, which a kernel cannot use: σ must be between 1e-150 and 1e150", o.s.Kernel.Sigma, g),
			usageIf(fs.Changed("Q") && o.QFile == "", "--Q needs a file name"),
			usageIf(fs.Changed("theta"), "--theta belongs to --kernel l1"))
	case model.KernelL1, model.KernelLinear:
		if err := cmp.Or(
			usageIf(set > 0, "--gamma, --sigma and --Q belong to --kernel gaussian"),
			usageIf(o.s.Kernel.Kind == model.KernelLinear && fs.Changed("theta"), "--theta belongs to --kernel l1")); err != nil {
			return err
		}
		if o.s.Kernel.Kind == model.KernelL1 && fs.Changed("theta") {
			_, err := parseTheta(o.Theta)
			return err
		}
		return nil
	}
	return usageErrorf("--kernel: unknown kernel %q (want gaussian, l1 or linear)", o.s.Kernel.Kind)
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

func runTrain(ctx context.Context, g *globalOptions, s trainSettings) error {
	if err := checkFiles(new(outfile.Plan).Output("-o", s.Output).Input("DATA", s.Data).Input("--test", s.TestFile).Input("--Q", s.Kernel.QName)); err != nil {
		return err
	}
	restore := sysmem.LimitGC(s.MemMB) // the reading's heap within the bound, as the fit's below
	tt, err := loadSplit(ctx, g.ErrOut, s.Data, s.Split)
	restore()
	if err != nil {
		return readMemoryError(s.MemMB, err)
	}
	if tt.UnitRange && !tt.Norm.Identity() && cmp.Or(s.Split.Normalize, dataio.Auto) == dataio.Auto && !g.Quiet {
		fmt.Fprintln(g.ErrOut, report.UnitRangeNote(s.Data, tt.Norm.Kind).Spell(flagSpell)) // before training; -q drops notes
	}
	t := s.TrainSettings
	if t.Kernel.Q, err = readQ(t.Kernel.QName); err != nil {
		return err
	}
	t.Train, t.Test, t.Norm = tt.Train, tt.Test, tt.Norm
	limitGC := sysmem.LimitGCTo // the heap within the fit's live data
	if model.FitGCCeiling(tt.Train) {
		limitGC = sysmem.LimitGCCeiling
	}
	defer limitGC(s.MemMB, model.FitGCLimit(tt.Train, tt.Test, t.CacheMB))()
	r, err := model.Train(ctx, t)
	var pe *model.ParamError
	switch {
	case errors.As(err, &pe) && pe.Param == "Q":
		return fmt.Errorf("--Q %s: %w", t.Kernel.QName, pe.Err)
	case errors.As(err, &pe):
		return fmt.Errorf("--%s: %w", pe.Param, pe.Err)
	case errors.Is(err, model.ErrNotSeparable):
		return fmt.Errorf("%w\nhint: no hyperplane in this kernel's feature space separates the two classes (always so when one point carries both labels); use --margin l1 or l2, which allow training errors", err)
	case errors.Is(err, model.ErrNaN):
		return fmt.Errorf("%w\nhint: the kernel values overflow: the features (scale them: --normalize) or the kernel parameters (--gamma 1e308 overflows the scaled distances; try a --gamma, --sigma, --Q or --theta nearer the default) are too extreme for this data", err)
	case err != nil:
		return err
	}
	r.ModelFile, r.Notes = s.Output, spellNotes(r.Notes)
	if s.Output != "" {
		if err := r.Model.SaveFile(s.Output); err != nil {
			return err
		}
	}
	if s.Format == formatJSON {
		return renderJSON(g.Out, r)
	}
	return renderTables(g.Out, formatTable, report.TrainTables(r, flagSpell)...)
}

// readQ reads the matrix of --Q's file (nil for none).
func readQ(path string) ([][]float64, error) {
	if path == "" {
		return nil, nil
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("--Q: %w", err)
	}
	defer f.Close()
	q, err := dataio.ReadMatrix(f, path)
	if err != nil {
		return nil, fmt.Errorf("--Q %w", err) // "--Q FILE:LINE:COL: problem"
	}
	return q, nil
}
