package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/internal/ctxio"
	"github.com/kerneltune/kerneltune/internal/progress"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

type tuneOptions struct {
	*globalOptions
	data dataOptions
	s    tuneSettings // the flags that are settings as they are

	Method, Param, Mode string
	m                   methodFlags
}

// tuneSettings are the complete settings of the run the flags and DATA
// describe (tuneOptions.settings; nothing read, nothing run): runTune runs
// them, and flag tests check them whole. TuneSettings' Train, Test and Norm
// are left nil: runTune reads them from Data with Split.
type tuneSettings struct {
	experiment.TuneSettings
	Split                         dataio.SplitSettings
	MemMB                         int // --mem-mb (the collector's limit, a refusal's words)
	Output, Trace, Export, Format string
	Resume                        bool // --resume: continue from -o's checkpoint
}

func init() { subcommands = append(subcommands, newTuneCmd) }

func newTuneCmd(g *globalOptions) *cobra.Command { return newTuneCmdWith(g, runTune) }

// newTuneCmdWith builds tune with runF as what runs the settings the flags
// and DATA make (cli/cli's runF hook: tests of flag parsing pass one that
// stops there).
func newTuneCmdWith(g *globalOptions, runF func(context.Context, *globalOptions, tuneSettings) error) *cobra.Command {
	o := &tuneOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:     "tune DATA --method ID",
		Short:   "Tune the kernel and C of an SVM with one method, fit and save the tuned model",
		Long:    help("tune") + dataHelp,
		Example: help("tune-examples"),
		Args:    oneDataArg,
		RunE: func(cmd *cobra.Command, args []string) error {
			s, err := o.settings(cmd, args)
			if err != nil {
				return err
			}
			return runF(cmd.Context(), g, s)
		},
	}
	c.Long = strings.Replace(c.Long, "METHODS\n", methodList(), 1)
	f := c.Flags()
	f.StringVar(&o.Method, "method", "", "tuning method: "+strings.Join(methods.Names(), ", "))
	f.StringVar(&o.Param, "param", "", "the method's parameterisation (see above; default its first)")
	f.Float64VarP(&o.m.C, "C", "c", 0, "fix the SVM's C (0 = the method chooses it)")
	f.StringVar(&o.m.Margin, "margin", "", "SVM margin where the method offers a choice: l1, l2 or hard")
	f.IntVar(&o.m.MaxIter, "max-iter", 0, "iteration limit of the method's outer loop (0 = its default)")
	f.IntVar(&o.m.MaxIter, "steps", 0, "alias of --max-iter (gi's steps)")
	f.Float64Var(&o.m.Tol, "tol", 0, "stopping tolerance of the method's outer loop (0 = its default)")
	f.Float64Var(&o.m.Rho, "rho", 0, "spd: weight ρ of the regulariser ρ‖K - K′‖²_F (0 = 30/n)")
	f.StringVar(&o.m.Init, "init", "", "spd: start point heuristic, cv or sigma=S (default heuristic)")
	f.StringVar(&o.Mode, "mode", "", "the method's algorithm variant (\"\" = its default)")
	f.StringVar(&o.Mode, "schedule", "", "alias of --mode")
	f.IntVar(&o.m.Budget, "budget", 0, "random, bo: CV evaluations (0 = 60 and 30)")
	o.m.addSpaceFlags(f)
	f.IntVar(&o.m.Folds, "folds", 0, "cross-validation folds where the method uses CV (0 = 5)")
	f.IntVar(&o.m.GridRows, "grid-rows", 0, help("flag-grid-rows"))
	f.IntVar(&o.m.KernelRows, "kernel-rows", 0, help("flag-kernel-rows"))
	f.Float64Var(&o.m.Eps, "eps", 1e-3, "SMO stopping tolerance (LIBSVM's -e) of every SVM solve")
	f.IntVar(&o.m.CacheMB, "cache-mb", 200, "kernel-column cache in MB (LIBSVM's -m)")
	f.IntVar(&o.m.Workers, "workers", 0, "goroutines a method may use (0 = all cores)")
	o.m.fs = f
	f.IntVar(&o.s.MemMB, "mem-mb", 0, memFlagHelp("the method's estimated peak memory", "a method that would need more"))
	f.StringVarP(&o.s.Output, "output", "o", "", "save the tuned model to this JSON file (read by 'kerneltune predict')")
	f.BoolVar(&o.s.Resume, "resume", false, "continue an interrupted tune from the checkpoint beside -o's file (-o FILE"+experiment.CheckpointSuffix+"; each step's outcome kept as it ends): the steps done are not run again, and the model is the one an uninterrupted tune gives")
	f.StringVar(&o.s.Trace, "trace", "", "write the per-iteration trace to this CSV file")
	f.BoolVar(&o.s.Probability, "probability", false, "fit the final model's probability estimates as LIBSVM's -b 1 (see train --help), for predict --probability")
	f.StringVar(&o.s.Format, "format", formatTable, "output: table or json")
	f.StringVar(&o.s.Export, "export-libsvm", "", "write the data mapped so that LIBSVM's RBF kernel with γ = 0.5 is the learned kernel into this directory, with svm-scale's range file for new raw data (raw.range) and the commands (README.txt)")
	o.data.addReadFlags(f)
	o.data.addSplitFlags(f)
	return c
}

// settings checks the flags alone (usage errors, exit code 2) and builds
// the run's settings from them and DATA; the method's settings check
// themselves (methods.Spec.Check), and a refusal names its flag.
func (o *tuneOptions) settings(cmd *cobra.Command, args []string) (tuneSettings, error) {
	fs, names := cmd.Flags(), strings.Join(methods.Names(), ", ")
	if err := cmp.Or(
		checkFormat(o.s.Format, formatTable, formatJSON),
		o.data.check(),
		usageIf(o.Method == "", "--method is required: one of %s", names),
		usageIf(fs.Changed("steps") && fs.Changed("max-iter"), "give --steps or --max-iter, not both"),
		usageIf(fs.Changed("mode") && fs.Changed("schedule"), "give --mode or --schedule, not both"),
		usageIf(o.s.Resume && o.s.Output == "", "--resume continues the tune whose -o is given: give the same -o FILE (its checkpoint is FILE%s)", experiment.CheckpointSuffix),
		usageIf(o.m.CacheMB < 1, "--cache-mb must be at least 1, got %d", o.m.CacheMB),
		usageIf(!methods.EpsRange.Contains(o.m.Eps), "--eps %v: want %s", o.m.Eps, methods.EpsRange.Want()),
		checkMemMB(o.s.MemMB)); err != nil {
		return tuneSettings{}, err
	}
	spec, err := methods.New(o.Method, o.Param, o.Mode)
	var unknown *methods.UnknownMethodError
	if errors.As(err, &unknown) {
		return tuneSettings{}, usageErrorf("--method: unknown method %q (want %s)", o.Method, names)
	}
	if err == nil {
		spec, err = methods.ApplyLoop(spec, o.m.loop())
	}
	if err == nil {
		spec = spec.WithBase(o.m.base(o.Seed, nil))
		err = spec.Check()
	}
	if err != nil {
		return tuneSettings{}, o.m.optionError(err)
	}
	s := o.s
	s.Data, s.TestFile, s.Spec, s.MemBytes, s.Split = args[0], o.data.Test, spec, sysmem.Bound(s.MemMB), o.data.split(o.Seed)
	s.Split.Read.MemBytes = s.MemBytes // reading DATA and --test within the bound too
	// A resumed tune's model is the uninterrupted one's, its command line too.
	s.Version, s.Command = buildinfo.Version(), strings.Replace(commandLine(cmd, args), " --resume=true", "", 1)
	return s, nil
}

func runTune(ctx context.Context, g *globalOptions, s tuneSettings) error {
	p := new(outfile.Plan).Output("-o", s.Output).Output("--trace", s.Trace).OutputDir("--export-libsvm", s.Export, model.ExportWrites)
	if err := cmp.Or(checkFiles(p.Input("DATA", s.Data).Input("--test", s.TestFile)), checkExportDir(s.Export)); err != nil {
		return err
	}
	restore := sysmem.LimitGC(s.MemMB) // the reading's heap within the bound, as the run's below
	tt, err := loadSplit(ctx, g.ErrOut, s.Data, s.Split)
	restore()
	if err != nil {
		return readMemoryError(s.MemMB, err)
	}
	prog := progress.New(g.ErrOut, "tune "+s.Spec.Name(), g.Quiet)
	base := s.Spec.Base()
	base.Progress = methods.NewProgress(func(e methods.Event) { // one ETA for every stage, the final fit's included
		prog.Set(progress.State{Fraction: e.Fraction(), Stage: e.Name(), StageIndex: e.Stage + 1, Stages: len(e.Plan), Done: e.Done, Total: e.Total, Detail: e.Detail})
	})
	t := s.TuneSettings
	t.Train, t.Test, t.Norm, t.Spec = tt.Train, tt.Test, tt.Norm, s.Spec.WithBase(base)
	ck, err := openTuneCheckpoint(g, s, t)
	if err != nil {
		return err
	}
	if ck != nil {
		defer ck.Close() // kept for --resume unless removed below
		base.Checkpoint = ck
		t.Spec = s.Spec.WithBase(base)
	}
	// The collector keeps the heap within the estimate's live data (or the
	// bound if lower; a soft limit), not twice it (sysmem.LimitGCTo).
	defer sysmem.LimitGCTo(s.MemMB, methods.GCLimit(experiment.TunePeakBytes(t.Spec, t.Train)))()
	r, err := experiment.Tune(ctx, t)
	prog.Finish()
	if err != nil && ck != nil && ctx.Err() != nil {
		return &ctxio.Interrupted{Hint: fmt.Sprintf("the steps done are kept in %s: rerun with --resume to continue", ck.Path())}
	}
	if err != nil {
		return memoryError(s.MemMB, err)
	}
	if w := r.DegenerateWarning(); w != "" && s.Format == formatJSON && !g.Quiet {
		fmt.Fprintf(g.ErrOut, "tune: %s\n", w)
	}

	r.ModelFile, r.TraceFile, r.ExportDir = s.Output, s.Trace, s.Export
	if s.Output != "" {
		if err := r.Model.SaveFile(s.Output); err != nil {
			return err
		}
		if err := ck.Remove(); err != nil { // the model is written: nothing to resume
			return err
		}
	}
	if s.Trace != "" {
		if err := writeTrace(s.Trace, r.Tuning.Trace); err != nil {
			return err
		}
	}
	if s.Export != "" {
		r.ExportKind, err = model.ExportLIBSVM(s.Export, r.Model, t.Train, t.Test, model.ExportSettings{
			Method: r.Tuning.Method, Param: r.Tuning.Param, Kernel: r.Tuning.Kernel, Eps: s.Spec.Base().Eps, Command: s.Command,
		})
		var ee *model.ExportError
		switch {
		case errors.As(err, &ee) && ee.Path == "":
			return fmt.Errorf("--export-libsvm: %w", ee.Err)
		case errors.As(err, &ee):
			return fmt.Errorf("--export-libsvm %s: %w", ee.Path, ee.Err)
		case err != nil:
			return err
		}
	}
	r.Notes = spellNotes(r.Notes)
	if r.Tuning != nil {
		r.Tuning.Notes = spellNotes(r.Tuning.Notes)
		for _, p := range r.Tuning.Pairs {
			if p.Result != nil {
				p.Result.Notes = spellNotes(p.Result.Notes)
			}
		}
	}
	if s.Format == formatJSON {
		return renderJSON(g.Out, r)
	}
	return renderTables(g.Out, formatTable, report.TuneTables(r, flagSpell)...)
}

// openTuneCheckpoint opens the checkpoint beside -o's file (none without
// -o) and words its refusals.
func openTuneCheckpoint(g *globalOptions, s tuneSettings, t experiment.TuneSettings) (*experiment.FileCheckpoint, error) {
	if s.Output == "" {
		return nil, nil
	}
	path := s.Output + experiment.CheckpointSuffix
	ck, err := experiment.OpenCheckpoint(path, experiment.TuneIdentity(t, s.Split), s.Resume)
	var (
		exist *experiment.CheckpointExistsError
		other *experiment.OtherCheckpointError
	)
	switch {
	case errors.As(err, &exist):
		return nil, fmt.Errorf("tune: %s holds %d steps of an interrupted tune to -o %s: add --resume to continue it, or delete it to start afresh", path, exist.Steps, s.Output)
	case errors.As(err, &other):
		return nil, fmt.Errorf("tune --resume: %s is the checkpoint of another tune: %s; resume with the data and flags it was made with, or delete it to start afresh", path, strings.Join(other.Diff, "; "))
	case err != nil:
		return nil, fmt.Errorf("tune: checkpoint: %w", err)
	}
	if n := ck.Steps(); n > 0 && !g.Quiet {
		fmt.Fprintf(g.ErrOut, "tune: resuming from %s: %d steps done\n", path, n)
	}
	return ck, nil
}

// writeTrace writes the per-iteration trace to the --trace file as CSV.
func writeTrace(path string, trace []methods.Step) error {
	if err := outfile.WriteFile(path, func(w io.Writer) error { return experiment.WriteTrace(w, trace) }); err != nil {
		return fmt.Errorf("--trace: %w", err)
	}
	return nil
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

// memFlagHelp documents --mem-mb: what it bounds, and what is refused.
func memFlagHelp(bounds, refused string) string {
	return "bound on " + bounds + " in MB; " + refused + " is refused before it starts, naming the largest n it can handle (0 = half of the RAM in " + sysmem.MemInfoPath + "; -1 = no bound: nothing is refused, and the garbage collector aims at 90% of the RAM)"
}

// readMemFlagHelp documents the --mem-mb of train and predict, which
// bounds the reading of the data (compare's and tune's bound it too).
const readMemFlagHelp = "bound on the memory reading the data and holding its values takes, in MB (the file, its rows as read, three copies of the values); a file that would need more is refused before its rows are held, naming the rows that fit (0 = half of the RAM in " + sysmem.MemInfoPath + "; -1 = no bound)"

// readMemoryError names the flag in a *dataio.ReadMemoryError and a
// *dataio.DensifyError (sparse data a normalisation would densify): the
// bound of --mem-mb flagMB. Other errors are returned as they are.
func readMemoryError(flagMB int, err error) error {
	within := func(bound int64) string {
		if flagMB == 0 {
			return "the default --mem-mb, half of the RAM: " + mbString(bound)
		}
		return fmt.Sprintf("--mem-mb %d", flagMB)
	}
	var (
		re *dataio.ReadMemoryError
		de *dataio.DensifyError
	)
	switch {
	case errors.As(err, &re):
		err = hint.Reword(err, re, re.Within(within(re.Bound)))
		return fmt.Errorf("%w; raise --mem-mb (-1: no bound), or read fewer rows", err)
	case errors.As(err, &de) && de.Bound > 0:
		// err holds de's words spelled as flags (flagHint)
		from, to := de.Words().Spell(flagSpell), de.Within(within(de.Bound)).Spell(flagSpell)
		if msg := err.Error(); strings.Contains(msg, from) {
			return &rewordedError{msg: strings.Replace(msg, from, to, 1), err: err}
		}
	}
	return err
}

// rewordedError is err with the message msg (errors.Is and errors.As see
// through it).
type rewordedError struct {
	msg string
	err error
}

func (e *rewordedError) Error() string { return e.msg }
func (e *rewordedError) Unwrap() error { return e.err }

func checkMemMB(mb int) error {
	return usageIf(mb < -1, "--mem-mb must be a size in MB, 0 (half of the RAM) or -1 (no bound), got %d", mb)
}

// memoryError words a refusal of tune (methods.CheckMemory) or compare
// (*experiment.MemoryError), a run whose estimated peak exceeds --mem-mb
// (given as flagMB), as a usage error, exit code 2: nothing has run, and
// the remedy is on the command line. Other errors are returned as they are.
func memoryError(flagMB int, err error) error {
	var (
		ce *experiment.MemoryError
		me *methods.MemoryError
	)
	switch {
	case errors.As(err, &ce):
		jobs := "1 job"
		if ce.Jobs > 1 {
			jobs = strconv.Itoa(ce.Jobs) + " jobs"
		}
		return refuseMemory(flagMB, ce.Bound, ce.MaxN, "each job can handle at most %d training rows within it",
			fmt.Sprintf("compare: %s on %s needs about %s for %s at once (--workers), %s each for %d training rows × %d features besides the runtime's %s",
				ce.Entry, ce.Dataset, mbString(ce.Bytes), jobs, mbString(ce.Job-methods.RuntimeBytes), ce.N, ce.D, mbString(methods.RuntimeBytes)),
			fmt.Sprintf("fewer --workers, fewer rows (--train-size or --train-fraction), a smaller --cache-mb%s, or leave %s out of --methods", budgetRemedy(ce.Entry.Method), ce.Entry))
	case errors.As(err, new(*experiment.SizeError)): // "E on D: …"
		return usageErrorf("compare: %v (--max-iter)", spellFlags(err))
	case errors.As(err, new(*methods.SizeError)):
		return usageErrorf("tune: %v (--max-iter)", spellFlags(err))
	case errors.As(err, &me):
		return refuseMemory(flagMB, me.Max, me.MaxN, "it can handle at most %d training rows within it",
			fmt.Sprintf("tune: %s needs about %s for %d training rows × %d features", me.Method, mbString(me.Need), me.N, me.D),
			"fewer rows (--test-fraction), fewer --workers or a smaller --cache-mb")
	}
	return err
}

// budgetRemedy is ", a smaller --budget" for a method whose memory grows
// with its budget (random, bo).
func budgetRemedy(method string) string {
	if method == "random" || method == "bo" {
		return ", a smaller --budget"
	}
	return ""
}

// refuseMemory is memoryError's sentence: what needs how much, the bound,
// the most rows that fit (fits, with maxN) and the remedy besides --mem-mb.
func refuseMemory(flagMB int, bound int64, maxN int, fits, need, remedy string) error {
	within := fmt.Sprintf("--mem-mb %d", flagMB)
	if flagMB == 0 {
		within = "the default --mem-mb, half of the RAM: " + mbString(bound)
	}
	fit := fmt.Sprintf(fits, maxN)
	if maxN == 0 {
		fit = "no data fits within it (the runtime alone takes about " + mbString(methods.RuntimeBytes) + ")"
	}
	return usageErrorf("%s, more than %s; %s. Raise --mem-mb, or use %s", need, within, fit, remedy)
}

func mbString(b int64) string { return strconv.FormatInt((b+(1<<20)-1)>>20, 10) + " MB" }
