package cmd

import (
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime/debug"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/solver"
)

// methodHelp is one line per method ID for tune's help; methods not yet in
// the registry are not listed.
var methodHelp = map[string]string{
	"svm":      "isotropic Gaussian, (C, γ) by k-fold CV over LIBSVM grid.py's grid (the baseline)",
	"spd":      "Laanaya et al. 2011: metric Q by descent on the SPD manifold (margin + Frobenius criterion)",
	"gi":       "Glasmachers & Igel 2005: radius-margin quotient, iRprop+ in the exponential chart",
	"lccp":     "Boughorbel et al.: multi-θ L1 kernel by the log convex-concave procedure",
	"rcsc":     "Yang, Xiong & Yang 2010: γ by the regularised class-separability criterion, C by CV",
	"twolevel": "Schittkowski: validation error minimised by SQP over an L2-SVM",
}

type tuneOptions struct {
	*globalOptions
	data dataOptions

	Method, Param string
	C             float64
	Margin        string
	MaxIter       int
	Tol, Rho      float64
	Init, Mode    string
	Folds         int
	Eps           float64
	CacheMB       int
	Workers       int
	MemMB         int

	Output, Trace, Format, ExportLibsvm string

	command string
}

func init() { subcommands = append(subcommands, newTuneCmd) }

// methodList is the help's table of registered methods and their params.
func methodList() string {
	var b strings.Builder
	for _, name := range methods.Names() {
		m, _ := methods.Lookup(name)
		desc := methodHelp[name]
		if desc == "" {
			desc = "(no description)"
		}
		fmt.Fprintf(&b, "  %-9s %s\n", name, desc)
		if p := m.Params(); len(p) > 1 {
			fmt.Fprintf(&b, "  %-9s --param %s (default %s)\n", "", strings.Join(p, "|"), p[0])
		}
	}
	return b.String()
}

func newTuneCmd(g *globalOptions) *cobra.Command {
	o := &tuneOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:   "tune DATA --method ID",
		Short: "Tune the kernel and C of an SVM with one method, fit and save the tuned model",
		Long: `tune runs one kernel-tuning method on the training part of DATA, fits the
final SVM with the learned kernel and C on the whole training part, and prints
what was learned and how well it does:

  - the learned kernel: LIBSVM's γ for an isotropic Gaussian; diag(Q) as a
    per-feature relevance (with feature names) for a diagonal metric; for a full
    Q with d ≤ 15 the matrix and its eigenvalues;
  - C, the method's criterion at the start and at the end, its own figures;
  - #SV, accuracy on the training and the test part, the number of SVM solves,
    the time, the status ("converged", "iteration-limit"), how the start point
    was chosen, and notes to read.

Methods (--method):
` + "METHODS" + `
Every Gaussian kernel is exp(-½ (x-z)ᵀQ(x-z)) on the normalised features
(--normalize, fitted on the training part); LIBSVM's exp(-γ‖x-z‖²) is Q = 2γI.
The model file (-o) works with 'kerneltune predict'. --trace writes one CSV line
per iteration (iter, objective, step, nsv, elapsed_s).

--export-libsvm DIR writes files from which LIBSVM's svm-train reproduces the
tuned SVM (its #SV and predictions), with the exact svm-train and svm-predict
commands in DIR/README.txt. Which export depends on the result:
  - a Gaussian kernel with the L1 margin (svm, spd, rcsc) or the hard margin:
    train.libsvm and test.libsvm, the data mapped by x ↦ Lᵀx (Q = LLᵀ), on
    which LIBSVM's RBF kernel with γ = 0.5 (-t 2 -g 0.5) is the learned
    kernel; the hard margin is a C-SVC with a C its dual variables never reach;
  - the L1-distance kernel (lccp) or the L2 margin (gi, twolevel, lccp):
    a precomputed kernel (-t 4), train.kernel and test.kernel, n values per
    row (the files grow as n²). The L2-SVM with kernel K is the hard-margin
    SVM with K + I/C on the training points (same dual, same bias), so
    train.kernel holds K + I/C, test.kernel K, train-eval.kernel K for the
    training rows, and the C-SVC gets a C its dual variables never reach.

Method options (each method reads those it has; 0 or "" = its default):
  --param, --C, --margin, --max-iter (gi: --steps), --tol, --rho (spd),
  --init (spd: heuristic|cv|sigma=S), --mode (alias --schedule: a method's
  variant, the first its default: spd paper|riemannian|backtrack|lbfgs,
  rcsc robust|paper, twolevel select|paper),
  --folds (CV folds), --eps, --cache-mb, --workers.

` + dataHelp,
		Example: `  kerneltune tune builtin:heart --method svm --test-fraction 0.3
  kerneltune tune weston.csv --method spd --test weston-test.csv -o spd.json
  kerneltune tune builtin:breast-wisconsin --method spd --param full --trace spd.csv
  kerneltune tune data.csv --method spd --init cv --rho 0.1 --format json
  kerneltune tune data.csv --method spd --export-libsvm out/`,
		Args: oneDataArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd.Flags()); err != nil {
				return err
			}
			o.command = commandLine(cmd, args)
			return runTune(cmd.Context(), o, args[0])
		},
	}
	c.Long = strings.Replace(c.Long, "METHODS\n", methodList(), 1)
	f := c.Flags()
	f.StringVar(&o.Method, "method", "", "tuning method: "+strings.Join(methods.Names(), ", "))
	f.StringVar(&o.Param, "param", "", "the method's parameterisation (see above; default its first)")
	f.Float64VarP(&o.C, "C", "c", 0, "fix the SVM's C (0 = the method chooses it)")
	f.StringVar(&o.Margin, "margin", "", "SVM margin where the method offers a choice: l1, l2 or hard")
	f.IntVar(&o.MaxIter, "max-iter", 0, "iteration limit of the method's outer loop (0 = its default)")
	f.IntVar(&o.MaxIter, "steps", 0, "alias of --max-iter (gi's steps)")
	f.Float64Var(&o.Tol, "tol", 0, "stopping tolerance of the method's outer loop (0 = its default)")
	f.Float64Var(&o.Rho, "rho", 0, "spd: weight ρ of the regulariser ρ‖K - K′‖²_F (0 = 30/n)")
	f.StringVar(&o.Init, "init", "", "spd: start point heuristic, cv or sigma=S (default heuristic)")
	f.StringVar(&o.Mode, "mode", "", "the method's algorithm variant (\"\" = its default)")
	f.StringVar(&o.Mode, "schedule", "", "alias of --mode")
	f.IntVar(&o.Folds, "folds", 0, "cross-validation folds where the method uses CV (0 = 5)")
	f.Float64Var(&o.Eps, "eps", 1e-3, "SMO stopping tolerance (LIBSVM's -e) of every SVM solve")
	f.IntVar(&o.CacheMB, "cache-mb", 200, "kernel-column cache in MB (LIBSVM's -m)")
	f.IntVar(&o.Workers, "workers", 0, "goroutines a method may use (0 = all cores)")
	f.IntVar(&o.MemMB, "mem-mb", 0, memFlagHelp)
	f.StringVarP(&o.Output, "output", "o", "", "save the tuned model to this JSON file (read by 'kerneltune predict')")
	f.StringVar(&o.Trace, "trace", "", "write the per-iteration trace to this CSV file")
	f.StringVar(&o.Format, "format", formatTable, "output: table or json")
	f.StringVar(&o.ExportLibsvm, "export-libsvm", "", "write the data mapped so that LIBSVM's RBF kernel with γ = 0.5 is the learned kernel into this directory")
	o.data.addReadFlags(f)
	o.data.addSplitFlags(f)
	return c
}

// validate checks the flags alone (usage errors, exit code 2).
func (o *tuneOptions) validate(fs *pflag.FlagSet) error {
	if err := checkFormat(o.Format, formatTable, formatJSON); err != nil {
		return err
	}
	if err := o.data.check(); err != nil {
		return err
	}
	if o.Method == "" {
		return usageErrorf("--method is required: one of %s", strings.Join(methods.Names(), ", "))
	}
	m, err := methods.Lookup(o.Method)
	if err != nil {
		return usageErrorf("--method: unknown method %q (want %s)", o.Method, strings.Join(methods.Names(), ", "))
	}
	if o.Param != "" && !slices.Contains(m.Params(), o.Param) {
		return usageErrorf("--param: %s has no parameterisation %q (want %s)", o.Method, o.Param, strings.Join(m.Params(), ", "))
	}
	if fs.Changed("steps") && fs.Changed("max-iter") {
		return usageErrorf("give --steps or --max-iter, not both")
	}
	if fs.Changed("mode") && fs.Changed("schedule") {
		return usageErrorf("give --mode or --schedule, not both")
	}
	if o.Mode != "" {
		ml, ok := m.(methods.ModeLister)
		switch {
		case !ok:
			return usageErrorf("--mode: %s has no variants", o.Method)
		case !slices.Contains(ml.Modes(), o.Mode):
			return usageErrorf("--mode: %s has no mode %q (want %s)", o.Method, o.Mode, strings.Join(ml.Modes(), ", "))
		}
	}
	if o.Margin != "" {
		if _, err := solver.ParseMargin(o.Margin); err != nil {
			return usageErrorf("--margin: unknown margin %q (want l1, l2 or hard)", o.Margin)
		}
	}
	nonNeg := func(name string, v float64) error {
		if v < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
			return usageErrorf("--%s must be a number ≥ 0, got %v", name, v)
		}
		return nil
	}
	for _, f := range []struct {
		name string
		v    float64
	}{{"C", o.C}, {"tol", o.Tol}, {"rho", o.Rho}} {
		if err := nonNeg(f.name, f.v); err != nil {
			return err
		}
	}
	if !(o.Eps > 0) || math.IsInf(o.Eps, 0) {
		return usageErrorf("--eps must be a positive number, got %v", o.Eps)
	}
	if o.MaxIter < 0 {
		return usageErrorf("--max-iter must be ≥ 0, got %d", o.MaxIter)
	}
	if o.Folds < 0 || o.Folds == 1 {
		return usageErrorf("--folds must be at least 2 (or 0 for the default 5), got %d", o.Folds)
	}
	if o.CacheMB < 1 {
		return usageErrorf("--cache-mb must be at least 1, got %d", o.CacheMB)
	}
	if o.Workers < 0 {
		return usageErrorf("--workers must be ≥ 0, got %d", o.Workers)
	}
	if o.MemMB < -1 {
		return usageErrorf("--mem-mb must be a size in MB, 0 (half of the RAM) or -1 (no bound), got %d", o.MemMB)
	}
	if o.Init != "" && o.Init != "heuristic" && o.Init != "cv" && !strings.HasPrefix(o.Init, "sigma=") {
		return usageErrorf("--init: unknown start %q (want heuristic, cv or sigma=S)", o.Init)
	}
	if strings.HasPrefix(o.Init, "sigma=") {
		if _, _, err := methods.SPDInitSigma(o.Init); err != nil {
			return usageErrorf("--init: %v", strings.TrimPrefix(err.Error(), "methods: spd: "))
		}
	}
	return nil
}

// featureWeight is one feature's entry of a diagonal metric Q.
type featureWeight struct {
	Feature string  `json:"feature"`
	Index   int     `json:"index"` // 1-based
	Q       float64 `json:"q"`
	// Relative is q / max q.
	Relative float64 `json:"relative"`
}

// tuneResult is what tune prints: the table rows and the JSON object.
type tuneResult struct {
	model.FitData

	Method string `json:"method"`
	Param  string `json:"param,omitempty"`

	Kernel kernel.Spec `json:"kernel"`
	// Gamma is LIBSVM's γ of an isotropic Gaussian kernel (0 otherwise).
	Gamma float64 `json:"gamma,omitempty"`
	// Relevance is diag(Q) by feature, in feature order (diagonal Q).
	Relevance []featureWeight `json:"relevance,omitempty"`
	// Eigenvalues of a full Q, ascending.
	Eigenvalues []float64 `json:"eigenvalues,omitempty"`
	// B is Glasmachers–Igel's matrix (Q = B²), gi only.
	B [][]float64 `json:"b,omitempty"`

	Margin string  `json:"margin"`
	C      float64 `json:"C"`

	Criterion      string           `json:"criterion,omitempty"`
	CriterionStart float64          `json:"criterion_start"`
	CriterionEnd   float64          `json:"criterion_end"`
	Figures        []methods.Figure `json:"figures,omitempty"`

	NSV int `json:"n_sv"`
	model.Accuracies

	Solves      int     `json:"svm_solves"`
	Iter        int     `json:"iterations"`
	Status      string  `json:"status"`
	TuneSeconds float64 `json:"tune_time_s"`
	FitSeconds  float64 `json:"fit_time_s"`

	Init  string   `json:"init,omitempty"`
	Notes []string `json:"notes,omitempty"`
	// Degenerate is "diagonal", "constant", "one-class" or null
	// (methods.ClassifyDegenerate on the training part); the details,
	// median off-diagonal K and predictions, are in DegenerateCheck.
	Degenerate      *string            `json:"degenerate"`
	DegenerateCheck methods.Degeneracy `json:"degenerate_check"`

	ModelFile string `json:"model_file,omitempty"`
	TraceFile string `json:"trace_file,omitempty"`
	ExportDir string `json:"export_dir,omitempty"`
	// ExportKind is "rbf" (mapped data, svm-train -t 2) or "precomputed"
	// (kernel matrices, svm-train -t 4).
	ExportKind string `json:"export_kind,omitempty"`
	featNames  []string
	showMatrix bool
}

func runTune(ctx context.Context, o *tuneOptions, path string) error {
	if err := checkOutputDirs([2]string{"-o", o.Output}, [2]string{"--trace", o.Trace}); err != nil {
		return err
	}
	if err := checkExportDir(o.ExportLibsvm); err != nil {
		return err
	}
	train, test, norm, err := o.data.loadTrainTest(path, o.Seed)
	if err != nil {
		return err
	}
	meth, err := methods.Lookup(o.Method)
	if err != nil {
		return usageErrorf("--method: %v", err)
	}
	prog := newProgress(o.globalOptions, "tune "+o.Method)
	opts := methods.Options{
		Param: o.Param, Seed: o.Seed, C: o.C, Margin: o.Margin, MaxIter: o.MaxIter,
		Tol: o.Tol, Rho: o.Rho, Init: o.Init, Mode: o.Mode, Folds: o.Folds,
		Workers: o.Workers, Eps: o.Eps, CacheMB: o.CacheMB,
		Recorder: func(st methods.Step) {
			prog.update(st.Iter, max(o.MaxIter, st.Iter), fmt.Sprintf("objective %.6g  #SV %d", st.Objective, st.NSV))
		},
	}
	if err := checkMemory(o.MemMB, o.Method, train.Len(), train.Dim(), opts); err != nil {
		prog.finish()
		return err
	}
	// The estimate counts live data; the garbage collector may let the heap
	// grow to twice that between collections. With a bound, ask it to keep
	// the whole heap within the bound (a soft limit: it collects more often
	// near it), and restore the previous limit when done.
	if limit := resolveMemMB(o.MemMB); limit > 0 {
		defer debug.SetMemoryLimit(debug.SetMemoryLimit(limit))
	}
	res, err := meth.Tune(ctx, train, opts)
	prog.finish()
	if err != nil {
		return err
	}
	if err := res.Status.Err(); err != nil {
		return fmt.Errorf("tune: %s: %w", o.Method, err)
	}

	margin, err := solver.ParseMargin(res.Margin)
	if err != nil {
		return fmt.Errorf("tune: %s returned margin %q: %w", o.Method, res.Margin, err)
	}
	f, err := model.Fit(ctx, model.FitSettings{
		Train: train, Test: test, Norm: norm, Kernel: res.Kernel, Margin: margin, C: res.C,
		Eps: o.Eps, CacheMB: o.CacheMB,
	})
	if err != nil {
		return fmt.Errorf("tune: fitting the final SVM with the tuned kernel: %w", err)
	}
	m, fit := f.Model, f.SVC
	m.SetProvenance(o.Seed, path, buildVersion(), o.command)
	m.Provenance.Method = res.Method
	m.Provenance.Param = res.Param
	if m.Tuning, err = json.Marshal(res); err != nil {
		return fmt.Errorf("tune: encoding the tuning result: %w", err)
	}

	r := &tuneResult{
		FitData: model.NewFitData(path, o.data.Test, o.Seed, train, test, norm),
		Method:  res.Method, Param: res.Param,
		Kernel: res.Kernel, Gamma: res.Kernel.Gamma, B: res.B,
		Margin: res.Margin, C: res.C,
		Criterion: res.Criterion, CriterionStart: res.CriterionStart, CriterionEnd: res.CriterionEnd,
		Figures: res.Figures, NSV: fit.NSV, Accuracies: f.Accuracies,
		Solves: res.Solves + 1, Iter: res.Iter, Status: res.Status.String(),
		TuneSeconds: res.Elapsed.Seconds(), FitSeconds: f.Elapsed.Seconds(),
		Init: res.Init, Notes: append([]string(nil), res.Notes...),
		ModelFile: o.Output, TraceFile: o.Trace, ExportDir: o.ExportLibsvm,
		featNames: train.FeatureNames,
	}
	if q := res.Kernel.Diag; len(q) > 0 {
		mx := slices.Max(q)
		for k, v := range q {
			r.Relevance = append(r.Relevance, featureWeight{Feature: model.FeatureName(train.FeatureNames, k), Index: k + 1, Q: v, Relative: v / mx})
		}
	}
	if g, ok := m.KernelFunc().(*kernel.Gaussian); ok && len(res.Kernel.Q) > 0 {
		if r.Eigenvalues, err = g.Eigenvalues(train.Dim()); err != nil {
			return fmt.Errorf("tune: eigenvalues of the learned Q: %w", err)
		}
		r.showMatrix = len(res.Kernel.Q) <= 15
	}
	r.DegenerateCheck = methods.ClassifyDegenerate(m.KernelFunc(), train.X, m.C, m.DecisionNormalized(train.X))
	if k := r.DegenerateCheck.Kind; k != "" {
		r.Degenerate = &k
		warn := fmt.Sprintf("WARNING: degenerate (%s): %s", k, r.DegenerateCheck.Reason)
		r.Notes = append([]string{warn}, r.Notes...)
		if o.Format == formatJSON && !o.Quiet {
			fmt.Fprintf(o.ErrOut, "tune: %s\n", warn)
		}
	}
	r.Notes = append(r.Notes, train.Notes...)
	if fit.Status != solver.Converged {
		r.Notes = append(r.Notes, fmt.Sprintf("the final SVM solve stopped with status %s after %d iterations", fit.Status, fit.Iter))
	}

	if o.Output != "" {
		if err := m.SaveFile(o.Output); err != nil {
			return err
		}
	}
	if o.Trace != "" {
		if err := writeTrace(o.Trace, res.Trace); err != nil {
			return err
		}
	}
	if o.ExportLibsvm != "" {
		if r.ExportKind, err = exportLibsvm(o.ExportLibsvm, res, m, train, test, o.Eps, o.command); err != nil {
			return err
		}
	}
	if o.Format == formatJSON {
		return renderJSON(o.Out, r)
	}
	return renderTables(o.Out, formatTable, tuneTables(r)...)
}

// writeTrace writes the per-iteration trace as CSV.
func writeTrace(path string, trace []methods.Step) error {
	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	w := csv.NewWriter(f)
	w.Write([]string{"iter", "objective", "step", "nsv", "elapsed_s"})
	for _, st := range trace {
		w.Write([]string{
			strconv.Itoa(st.Iter),
			strconv.FormatFloat(st.Objective, 'g', -1, 64),
			strconv.FormatFloat(st.StepSize, 'g', -1, 64),
			strconv.Itoa(st.NSV),
			strconv.FormatFloat(st.Elapsed.Seconds(), 'f', 6, 64),
		})
	}
	w.Flush()
	if err := w.Error(); err != nil {
		f.Close()
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("--trace %s: %w", path, err)
	}
	return nil
}

// Kinds of LIBSVM export (tuneResult.ExportKind).
const (
	exportRBF         = "rbf"         // data mapped by x ↦ Lᵀx, svm-train -t 2 -g 0.5
	exportPrecomputed = "precomputed" // kernel matrices, svm-train -t 4
)

// exportKind says which LIBSVM export reproduces a model with kernel k and
// margin: LIBSVM's RBF kernel on mapped data for a Gaussian kernel with the
// L1 or the hard margin (a huge C), a precomputed kernel otherwise (the
// L1-distance kernel; the L2 margin, whose K + I/C no built-in kernel has).
func exportKind(k kernel.Kernel, margin solver.Margin) string {
	if _, ok := k.(*kernel.Gaussian); ok && margin != solver.L2 {
		return exportRBF
	}
	return exportPrecomputed
}

// checkExportDir makes --export-libsvm's directory before any work, so that
// a path that cannot be a directory fails at once and not after the tuning.
func checkExportDir(dir string) error {
	if dir == "" {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return fmt.Errorf("--export-libsvm %s: %w", dir, err)
	}
	return nil
}

// exportLibsvm writes files from which LIBSVM's svm-train reproduces the
// tuned model m (fitted on the normalised train; test may be nil), and a
// README.txt with the exact commands. Which files depends on exportKind:
// train.libsvm and test.libsvm mapped by x ↦ Lᵀx (Q = LLᵀ, so LIBSVM's RBF
// kernel with γ = 0.5 is the learned kernel), or the precomputed kernel
// files train.kernel (K, plus I/C on its diagonal for the L2 margin),
// test.kernel (test rows against the training points) and, for the L2
// margin, train-eval.kernel (the training rows with K, to score them). It
// returns the kind.
func exportLibsvm(dir string, res *methods.Result, m *model.Model, train, test *dataio.Dataset, eps float64, command string) (string, error) {
	kind := exportKind(m.KernelFunc(), m.MarginKind)
	hasTest := test != nil && test.Len() > 0
	create := func(name string, write func(w io.Writer) error) error {
		path := filepath.Join(dir, name)
		f, err := os.Create(path)
		if err != nil {
			return fmt.Errorf("--export-libsvm: %w", err)
		}
		if err := write(f); err != nil {
			f.Close()
			return fmt.Errorf("--export-libsvm %s: %w", path, err)
		}
		if err := f.Close(); err != nil {
			return fmt.Errorf("--export-libsvm %s: %w", path, err)
		}
		return nil
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	learned := res.Method
	if res.Param != "" {
		learned += ", " + res.Param
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Exported by: %s\n\n", command)
	trainFile, evalFile, testFile := "train.libsvm", "train.libsvm", "test.libsvm"
	var trainCmd string
	switch kind {
	case exportRBF:
		L := mat.DenseCopyOf(m.KernelFunc().(*kernel.Gaussian).Factor(train.Dim())) // Q = LLᵀ
		mapped := func(d *dataio.Dataset) func(w io.Writer) error {
			return func(w io.Writer) error {
				var x mat.Dense
				x.Mul(d.X, L) // row i is (Lᵀx_i)ᵀ
				c := *d
				c.X = &x
				return dataio.WriteLIBSVM(w, &c)
			}
		}
		if err := create(trainFile, mapped(train)); err != nil {
			return "", err
		}
		files, verb := trainFile, "holds"
		if hasTest {
			if err := create(testFile, mapped(test)); err != nil {
				return "", err
			}
			files, verb = trainFile+" and "+testFile, "hold"
		}
		fmt.Fprintf(&b, "%s %s the data after the normaliser fitted on the training part,\n", files, verb)
		fmt.Fprintf(&b, "mapped by x -> L'x with Q = LL' the learned metric (%s).\n", learned)
		fmt.Fprintf(&b, "exp(-0.5 (x-z)'Q(x-z)) = exp(-gamma ||L'x - L'z||^2) with gamma = 0.5, so LIBSVM's\n")
		fmt.Fprintf(&b, "RBF kernel with -g 0.5 on these files is the learned kernel.\n")
		if m.MarginKind == solver.Hard {
			fmt.Fprintf(&b, "The tuned SVM has the hard margin: LIBSVM's C-SVC with C = %s, 1000 times the largest\n", g(m.HardC()))
			fmt.Fprintf(&b, "dual variable or more, never reaches its box, and so solves the hard-margin problem.\n")
		}
		trainCmd = fmt.Sprintf("svm-train -s 0 -t 2 -g 0.5 -c %s -e %s %s tuned.model", g(m.HardC()), g(eps), trainFile)
	default:
		trainFile, evalFile, testFile = "train.kernel", "train.kernel", "test.kernel"
		k := m.KernelFunc()
		K := k.Gram(train.X)
		shift := 0.0
		if m.MarginKind == solver.L2 {
			shift = 1 / m.C
			evalFile = "train-eval.kernel"
		}
		if err := create(trainFile, func(w io.Writer) error { return model.WritePrecomputed(w, K, train.Y, shift) }); err != nil {
			return "", err
		}
		if shift != 0 {
			if err := create(evalFile, func(w io.Writer) error { return model.WritePrecomputed(w, K, train.Y, 0) }); err != nil {
				return "", err
			}
		}
		if hasTest {
			Kt := k.Cross(test.X, train.X)
			if err := create(testFile, func(w io.Writer) error { return model.WritePrecomputed(w, Kt, test.Y, 0) }); err != nil {
				return "", err
			}
		}
		fmt.Fprintf(&b, "LIBSVM precomputed kernels (-t 4) of the learned kernel (%s, %s) on the data\n", learned, model.DescribeKernel(res.Kernel))
		fmt.Fprintf(&b, "after the normaliser fitted on the training part. Each line is\n")
		fmt.Fprintf(&b, "  label 0:i 1:K(x_i,x_1) ... n:K(x_i,x_n)\n")
		fmt.Fprintf(&b, "against the %d training points, in the order of %s; label +1 is %q, -1 is %q.\n", train.Len(), trainFile, m.Labels.Positive, m.Labels.Negative)
		switch m.MarginKind {
		case solver.L2:
			fmt.Fprintf(&b, "\nThe tuned SVM has the L2 soft margin with C = %s, which LIBSVM does not offer. Its dual\n", g(m.C))
			fmt.Fprintf(&b, "is the hard-margin dual with the kernel K + I/C on the training points, with the same\n")
			fmt.Fprintf(&b, "bias, so %s holds K + I/C (%s added on the diagonal), and a C-SVC with\n", trainFile, g(shift))
			fmt.Fprintf(&b, "C = %s (1000 times the largest dual variable or more) never reaches its box: it is\n", g(m.HardC()))
			fmt.Fprintf(&b, "that hard margin. New points have no diagonal term: %s holds K\n", testFile)
			fmt.Fprintf(&b, "for the test rows, and %s K for the training rows, to score them\n", evalFile)
			fmt.Fprintf(&b, "as the model does (predicting %s itself would add α_i y_i/C to each row).\n", trainFile)
		case solver.Hard:
			fmt.Fprintf(&b, "\nThe tuned SVM has the hard margin: LIBSVM's C-SVC with C = %s, 1000 times the largest\n", g(m.HardC()))
			fmt.Fprintf(&b, "dual variable or more, never reaches its box, and so solves the hard-margin problem.\n")
		}
		trainCmd = fmt.Sprintf("svm-train -s 0 -t 4 -c %s -e %s %s tuned.model", g(m.HardC()), g(eps), trainFile)
	}
	fmt.Fprintf(&b, "\nReproduce the tuned SVM (its #SV: %d):\n  %s\n", m.NSV(), trainCmd)
	fmt.Fprintf(&b, "  svm-predict %s tuned.model train.predictions\n", evalFile)
	if hasTest {
		fmt.Fprintf(&b, "  svm-predict %s tuned.model test.predictions\n", testFile)
	}
	if kind == exportRBF {
		fmt.Fprintf(&b, "scikit-learn: sklearn.svm.SVC(kernel=\"rbf\", gamma=0.5, C=%s, tol=%s)\n", g(m.HardC()), g(eps))
	}
	if err := os.WriteFile(filepath.Join(dir, "README.txt"), []byte(b.String()), 0o644); err != nil {
		return "", fmt.Errorf("--export-libsvm: %w", err)
	}
	return kind, nil
}

// exportText describes the LIBSVM export in tune's table.
func exportText(dir, kind string) string {
	switch kind {
	case exportRBF:
		return dir + " (RBF kernel on mapped data, -t 2; commands in README.txt)"
	case exportPrecomputed:
		return dir + " (precomputed kernel, -t 4; commands in README.txt)"
	}
	return dir
}

// tuneTables lays out a tuneResult: the summary, then the kernel's detail.
func tuneTables(r *tuneResult) []*table {
	title := fmt.Sprintf("tune %s --method %s", r.Data, r.Method)
	if r.Param != "" {
		title += " --param " + r.Param
	}
	t := &table{Title: report.FitTitle(&r.FitData, title), Header: []string{"quantity", "value"}}
	report.KernelRows(t, r.Kernel, r.Margin, r.C)
	if r.Criterion != "" {
		t.Add("criterion", r.Criterion)
	}
	t.Add("criterion at start", fmtSig(r.CriterionStart, 8))
	t.Add("criterion at end", fmtSig(r.CriterionEnd, 8))
	for _, f := range r.Figures {
		t.Add(f.Name, fmtSig(f.Value, 6))
	}
	t.Add("#SV", strconv.Itoa(r.NSV))
	report.AccuracyRows(t, &r.Accuracies, &r.FitData, "- (no test part: give --test or --test-fraction)")
	t.Add("SVM solves", strconv.Itoa(r.Solves))
	t.Add("iterations", strconv.Itoa(r.Iter))
	t.Add("status", r.Status)
	t.Add("time", fmt.Sprintf("%s s tuning + %s s final fit", fmtFixed(r.TuneSeconds, 3), fmtFixed(r.FitSeconds, 3)))
	t.Add("normalize", r.Normalize)
	t.Add("seed", strconv.FormatUint(r.Seed, 10))
	for _, f := range []struct{ k, v string }{{"model file", r.ModelFile}, {"trace file", r.TraceFile}, {"LIBSVM export", exportText(r.ExportDir, r.ExportKind)}} {
		if f.v != "" {
			t.Add(f.k, f.v)
		}
	}
	if r.Init != "" {
		t.Notes = append(t.Notes, "start: "+r.Init)
	}
	t.Notes = append(t.Notes, r.Notes...)
	ts := []*table{t}

	if len(r.Relevance) > 0 {
		rel := &table{
			Title:  "per-feature relevance: diag(Q), exp(-½ Σ_k q_k (x_k-z_k)²), largest first",
			Header: []string{"rank", "feature", "q_k", "q_k / max q"},
		}
		order := make([]featureWeight, len(r.Relevance))
		copy(order, r.Relevance)
		sort.SliceStable(order, func(a, b int) bool { return order[a].Q > order[b].Q })
		const show = 30
		for i, fw := range order {
			if i == show && len(order) > show+5 {
				rel.Notes = append(rel.Notes, fmt.Sprintf("%d more features below q = %s (all in --format json)", len(order)-show, fmtSig(fw.Q, 4)))
				break
			}
			rel.Add(strconv.Itoa(i+1), fmt.Sprintf("%s (%d)", fw.Feature, fw.Index), fmtSig(fw.Q, 4), fmtFixed(fw.Relative, 4))
		}
		ts = append(ts, rel)
	}
	if len(r.Kernel.Q) > 0 {
		d := len(r.Kernel.Q)
		if r.showMatrix {
			qt := &table{Title: "learned metric Q, exp(-½ (x-z)ᵀQ(x-z))", Header: []string{""}}
			for k := 0; k < d; k++ {
				qt.Header = append(qt.Header, model.FeatureName(r.featNames, k))
			}
			for i := 0; i < d; i++ {
				row := []string{model.FeatureName(r.featNames, i)}
				for j := 0; j < d; j++ {
					row = append(row, fmtSig(r.Kernel.Q[i][j], 3))
				}
				qt.Add(row...)
			}
			ts = append(ts, qt)
		}
		et := &table{Title: "eigenvalues of Q (ascending)", Header: []string{"#", "eigenvalue"}}
		for i, v := range r.Eigenvalues {
			et.Add(strconv.Itoa(i+1), fmtSig(v, 4))
		}
		if !r.showMatrix {
			et.Notes = append(et.Notes, fmt.Sprintf("Q is %d×%d: the matrix is in --format json and in the model file", d, d))
		}
		ts = append(ts, et)
	}
	return ts
}
