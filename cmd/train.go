package cmd

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/solver"
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

	margin  solver.Margin
	command string // the command line, for the model's provenance
}

func init() { subcommands = append(subcommands, newTrainCmd) }

func newTrainCmd(g *globalOptions) *cobra.Command {
	o := &trainOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:   "train DATA",
		Short: "Train one SVM with a given kernel and C, report its accuracy, save the model",
		Long: `train fits one SVM on DATA with the kernel and C you give, and prints how well
it does: accuracy on the training part and on the test part (--test FILE,
--test-fraction F, or an IDA set's first realisation), the number of support
vectors (#SV) and of bounded ones with α = C (#BSV), the dual objective (LIBSVM's
"obj"), the geometric margin 1/‖w‖, LIBSVM's ρ (the bias is -ρ), the SMO
iterations and the time. With -o FILE it saves the model for
'kerneltune predict'.

Kernels (--kernel):
  gaussian  k(x,z) = exp(-γ‖x-z‖²), LIBSVM's RBF kernel (-t 2). Give one of
              --gamma/-g G  LIBSVM's γ (default 1/d, d = number of features,
                            as LIBSVM)
              --sigma S     the width σ of exp(-‖x-z‖²/(2σ²)), i.e. γ = 1/(2σ²)
              --Q FILE      a metric: exp(-½ (x-z)ᵀQ(x-z)), Q a symmetric positive
                            definite d×d matrix, one row per line (numbers
                            separated by commas or spaces, # comments). γ is the
                            case Q = 2γI. A diagonal Q is stored as its diagonal.
            The γ used is always printed.
  l1        k(x,z) = -Σ_k |x_k-z_k| / θ_k (Boughorbel et al.), conditionally
            positive definite, valid in the SVM dual:
              --theta T     one θ for every feature, or d comma-separated
                            values (default 1)
  linear    k(x,z) = x·z (LIBSVM's -t 0)

Margins (--margin):
  l1    the C-SVC, the usual soft margin: 0 ≤ α_i ≤ C (LIBSVM's -s 0).
        --weight-pos/--weight-neg multiply C for one class (LIBSVM's -w1/-w-1).
  l2    L2 soft margin (squared slacks, Chapelle et al. 2002): trained with the
        kernel matrix K + I/C, predicts with K; α is unbounded.
  hard  no slack at all: an error, not an endless loop, if the kernel cannot
        separate the training data (e.g. one point with both labels).

Features are scaled by --normalize, fitted on the training part and applied
unchanged to the test part; γ, σ, Q and θ act on the scaled features. The
default zscore gives every feature mean 0 and variance 1, so the default
γ = 1/d gives kernel values around e⁻² between typical points.

To reproduce LIBSVM, train on a file scaled by svm-scale (such as the
*_scale files) with --normalize none and LIBSVM's C, γ and tolerance:
  svm-train -c 1 -g 0.5 -e 0.001 heart_scale
  kerneltune train heart_scale --normalize none -c 1 -g 0.5 --eps 0.001
give the same #SV, #BSV, objective and ρ, and the same predictions, up to
LIBSVM's single-precision kernel cache (ρ may differ in the fifth decimal;
tested against svm-train 3.24 on heart, breast-cancer and diabetes).

` + dataHelp,
		Example: `  kerneltune train builtin:heart --test-fraction 0.3
  kerneltune train heart_scale --normalize none -c 1 -g 0.5 -o heart.json
  kerneltune train data.csv --test test.csv --sigma 2 --C 10 --format json
  kerneltune train data.csv --kernel gaussian --Q metric.txt --margin l2
  kerneltune train builtin:diabetes --kernel l1 --theta 2 --test-fraction 0.5`,
		Args: oneDataArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd.Flags()); err != nil {
				return err
			}
			o.command = commandLine(cmd, args)
			return runTrain(cmd.Context(), o, args[0])
		},
	}
	f := c.Flags()
	f.StringVar(&o.Kernel, "kernel", kernel.KindGaussian, "kernel: gaussian, l1 or linear")
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
	f.StringVar(&o.Format, "format", formatTable, "output: table or json")
	o.data.addReadFlags(f)
	o.data.addSplitFlags(f)
	return c
}

// validate checks the flags alone (usage errors, exit code 2); what depends
// on the data (the number of features) is checked in runTrain.
func (o *trainOptions) validate(fs *pflag.FlagSet) error {
	if err := checkFormat(o.Format, formatTable, formatJSON); err != nil {
		return err
	}
	if err := o.data.check(); err != nil {
		return err
	}
	m, err := solver.ParseMargin(o.Margin)
	if err != nil {
		return usageErrorf("--margin: unknown margin %q (want l1, l2 or hard)", o.Margin)
	}
	o.margin = m
	positive := func(name string, v float64) error {
		if !(v > 0) || math.IsInf(v, 0) {
			return usageErrorf("--%s must be a positive number, got %v", name, v)
		}
		return nil
	}
	switch {
	case m == solver.Hard && fs.Changed("C"):
		return usageErrorf("--C has no meaning with --margin hard (there is no slack to penalise)")
	case m != solver.Hard:
		if err := positive("C", o.C); err != nil {
			return err
		}
	}
	if err := positive("eps", o.Eps); err != nil {
		return err
	}
	for _, w := range []struct {
		name string
		v    float64
	}{{"weight-pos", o.WeightPos}, {"weight-neg", o.WeightNeg}} {
		if err := positive(w.name, w.v); err != nil {
			return err
		}
		if fs.Changed(w.name) && m != solver.L1 {
			return usageErrorf("--%s applies to --margin l1 only", w.name)
		}
	}
	if o.CacheMB < 1 {
		return usageErrorf("--cache-mb must be at least 1, got %d", o.CacheMB)
	}
	if o.MaxIter < 0 {
		return usageErrorf("--max-iter must be ≥ 0, got %d", o.MaxIter)
	}
	set := 0
	for _, name := range []string{"gamma", "sigma", "Q"} {
		if fs.Changed(name) {
			set++
		}
	}
	switch o.Kernel {
	case kernel.KindGaussian:
		if set > 1 {
			return usageErrorf("give at most one of --gamma, --sigma and --Q")
		}
		if fs.Changed("gamma") {
			if err := positive("gamma", o.Gamma); err != nil {
				return err
			}
		}
		if fs.Changed("sigma") {
			if err := positive("sigma", o.Sigma); err != nil {
				return err
			}
			if g := 1 / (2 * o.Sigma * o.Sigma); g == 0 || math.IsInf(g, 0) {
				return usageErrorf("--sigma %v gives γ = 1/(2σ²) = %v, which a kernel cannot use: σ must be between 1e-150 and 1e150", o.Sigma, g)
			}
		}
		if fs.Changed("Q") && o.QFile == "" {
			return usageErrorf("--Q needs a file name")
		}
		if fs.Changed("theta") {
			return usageErrorf("--theta belongs to --kernel l1")
		}
	case kernel.KindL1, kernel.KindLinear:
		if set > 0 {
			return usageErrorf("--gamma, --sigma and --Q belong to --kernel gaussian")
		}
		if o.Kernel == kernel.KindLinear && fs.Changed("theta") {
			return usageErrorf("--theta belongs to --kernel l1")
		}
		if o.Kernel == kernel.KindL1 && fs.Changed("theta") {
			if _, err := parseTheta(o.Theta); err != nil {
				return err
			}
		}
	default:
		return usageErrorf("--kernel: unknown kernel %q (want gaussian, l1 or linear)", o.Kernel)
	}
	return nil
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

// trainResult is what train prints: the table rows and the JSON object.
type trainResult struct {
	model.FitData

	Kernel kernel.Spec `json:"kernel"`
	// Gamma is LIBSVM's γ of an isotropic Gaussian kernel (0 otherwise).
	Gamma  float64 `json:"gamma,omitempty"`
	Margin string  `json:"margin"`
	C      float64 `json:"C,omitempty"`
	// WeightPos and WeightNeg multiply C per class (l1 margin; 0 = 1).
	WeightPos float64 `json:"weight_pos,omitempty"`
	WeightNeg float64 `json:"weight_neg,omitempty"`

	model.Accuracies

	NSV    int     `json:"n_sv"`
	NBSV   int     `json:"n_bsv"`
	Obj    float64 `json:"obj"`
	W2     float64 `json:"w2"`
	Geo    float64 `json:"geometric_margin"`
	Rho    float64 `json:"rho"`
	Iter   int     `json:"iterations"`
	Status string  `json:"status"`
	Eps    float64 `json:"eps"`
	// Seconds is the wall time of the SVM training.
	Seconds float64 `json:"time_s"`

	ModelFile string   `json:"model_file,omitempty"`
	Notes     []string `json:"notes,omitempty"`
}

func runTrain(ctx context.Context, o *trainOptions, path string) error {
	if err := checkOutputDirs([2]string{"-o", o.Output}); err != nil {
		return err
	}
	train, test, norm, err := o.data.loadTrainTest(path, o.Seed)
	if err != nil {
		return err
	}
	spec, err := o.kernelSpec(train.Dim())
	if err != nil {
		return err
	}
	fs := model.FitSettings{
		Train: train, Test: test, Norm: norm, Kernel: spec, Margin: o.margin, C: o.C,
		Eps: o.Eps, MaxIter: o.MaxIter, CacheMB: o.CacheMB,
	}
	if o.margin == solver.L1 {
		fs.WeightPos, fs.WeightNeg = o.WeightPos, o.WeightNeg
	}
	f, err := model.Fit(ctx, fs)
	if err != nil {
		if errors.Is(err, solver.ErrNotSeparable) {
			return fmt.Errorf("%w\nhint: no hyperplane in this kernel's feature space separates the two classes (always so when one point carries both labels); use --margin l1 or l2, which allow training errors", err)
		}
		if errors.Is(err, solver.ErrNaN) {
			return fmt.Errorf("%w\nhint: the kernel parameters are too extreme for this data (e.g. --gamma 1e308 overflows the scaled distances); try a --gamma, --sigma, --Q or --theta nearer the default", err)
		}
		return err
	}
	m, fit := f.Model, f.SVC
	setProvenance(m, o.Seed, path, o.command)

	r := &trainResult{
		FitData: model.NewFitData(path, o.data.Test, o.Seed, train, test, norm),
		Kernel:  m.Kernel, Gamma: m.Kernel.Gamma, Margin: m.MarginKind.String(), C: m.C,
		WeightPos: m.WeightPos, WeightNeg: m.WeightNeg,
		Accuracies: f.Accuracies,
		NSV:        m.NSV(), NBSV: m.Training.NBSV, Obj: fit.Obj, W2: m.Training.W2, Geo: m.Margin(),
		Rho: fit.Rho, Iter: fit.Iter, Status: fit.Status.String(), Eps: o.Eps,
		Seconds: f.Elapsed.Seconds(), ModelFile: o.Output,
	}
	r.Notes = append(r.Notes, train.Notes...)
	if len(norm.Constant) > 0 {
		r.Notes = append(r.Notes, fmt.Sprintf("%d feature(s) constant on the training part (only shifted): %s",
			len(norm.Constant), featureList(norm.Constant, train.FeatureNames)))
	}
	if fit.Status != solver.Converged {
		r.Notes = append(r.Notes, fmt.Sprintf("the solver stopped with status %s after %d iterations: the model may be inaccurate (raise --max-iter or --eps)", fit.Status, fit.Iter))
	}
	if o.margin == solver.L2 {
		r.Notes = append(r.Notes, "l2 margin: trained with K + I/C; objective with K + I/C, margin 1/‖w‖ with K")
	}

	if o.Output != "" {
		if err := m.SaveFile(o.Output); err != nil {
			return err
		}
	}
	if o.Format == formatJSON {
		return renderJSON(o.Out, r)
	}
	return renderTables(o.Out, formatTable, trainTable(r))
}

// kernelSpec builds the kernel from the flags, for d features.
func (o *trainOptions) kernelSpec(d int) (kernel.Spec, error) {
	switch o.Kernel {
	case kernel.KindLinear:
		return kernel.Spec{Kind: kernel.KindLinear}, nil
	case kernel.KindL1:
		theta := make([]float64, d)
		for j := range theta {
			theta[j] = 1
		}
		if o.Theta != "" {
			t, err := parseTheta(o.Theta)
			if err != nil {
				return kernel.Spec{}, err
			}
			switch len(t) {
			case 1:
				for j := range theta {
					theta[j] = t[0]
				}
			case d:
				theta = t
			default:
				return kernel.Spec{}, fmt.Errorf("--theta: %d values for %d features (give one or %d)", len(t), d, d)
			}
		}
		return kernel.Spec{Kind: kernel.KindL1, Theta: theta}, nil
	}
	switch {
	case o.QFile != "":
		f, err := os.Open(o.QFile)
		if err != nil {
			return kernel.Spec{}, fmt.Errorf("--Q: %w", err)
		}
		defer f.Close()
		q, err := dataio.ReadMatrix(f, o.QFile)
		if err != nil {
			return kernel.Spec{}, fmt.Errorf("--Q %w", err) // "--Q FILE:LINE:COL: problem"
		}
		return metricSpec(o.QFile, q, d)
	case o.Sigma > 0:
		return kernel.Spec{Kind: kernel.KindGaussian, Gamma: 1 / (2 * o.Sigma * o.Sigma)}, nil
	case o.Gamma > 0:
		return kernel.Spec{Kind: kernel.KindGaussian, Gamma: o.Gamma}, nil
	}
	return kernel.Spec{Kind: kernel.KindGaussian, Gamma: 1 / float64(d)}, nil
}

// metricSpec checks that q, read from the --Q file name, is a d×d matrix
// and returns its kernel spec (kernel.SpecFromMetric: symmetric positive
// definite, then isotropic, diagonal or full), in the flag's words.
func metricSpec(name string, q [][]float64, d int) (kernel.Spec, error) {
	if len(q) != d {
		return kernel.Spec{}, fmt.Errorf("--Q %s: %d rows, but the data has %d features (want a %d×%d matrix)", name, len(q), d, d, d)
	}
	for i, row := range q {
		if len(row) != d {
			return kernel.Spec{}, fmt.Errorf("--Q %s: row %d has %d entries, want %d", name, i+1, len(row), d)
		}
	}
	s, err := kernel.SpecFromMetric(q)
	var (
		asym  *kernel.SymmetryError
		notPD *kernel.NotSPDError
	)
	switch {
	case errors.As(err, &asym):
		return kernel.Spec{}, fmt.Errorf("--Q %s: not symmetric: Q[%d][%d] = %v but Q[%d][%d] = %v", name, asym.I+1, asym.J+1, asym.A, asym.J+1, asym.I+1, asym.B)
	case errors.As(err, &notPD):
		return kernel.Spec{}, fmt.Errorf("--Q %s: not positive definite (smallest eigenvalue %.4g, largest %.4g): a Gaussian metric Q must be symmetric positive definite", name, notPD.Min, notPD.Max)
	case err != nil:
		return kernel.Spec{}, fmt.Errorf("--Q %s: %w", name, err)
	}
	return s, nil
}

// trainTable lays out a trainResult.
func trainTable(r *trainResult) *table {
	t := &table{Title: fitTitle(&r.FitData, "train "+r.Data), Header: []string{"quantity", "value"}}
	addKernelRows(t, r.Kernel, r.Margin, r.C)
	if r.Margin == "l1" && (r.WeightPos != 0 || r.WeightNeg != 0) {
		w := func(v float64) float64 {
			if v == 0 {
				return 1
			}
			return v
		}
		t.Add("C per class", fmt.Sprintf("+1: %s, -1: %s", fmtSig(r.C*w(r.WeightPos), 6), fmtSig(r.C*w(r.WeightNeg), 6)))
	}
	t.Add("normalize", r.Normalize)
	addAccuracyRows(t, &r.Accuracies, &r.FitData, "- (no test part)")
	t.Add("#SV", strconv.Itoa(r.NSV))
	t.Add("#BSV", strconv.Itoa(r.NBSV))
	t.Add("dual objective", fmtSig(r.Obj, 8))
	t.Add("margin 1/‖w‖", fmtSig(r.Geo, 6))
	t.Add("rho", fmtSig(r.Rho, 6))
	t.Add("iterations", strconv.Itoa(r.Iter))
	t.Add("status", r.Status)
	t.Add("time", fmtFixed(r.Seconds, 3)+" s")
	if r.ModelFile != "" {
		t.Add("model file", r.ModelFile)
	}
	t.Notes = r.Notes
	return t
}
