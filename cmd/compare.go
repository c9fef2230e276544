package cmd

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/kerneltune/kerneltune/internal/buildinfo"
	"github.com/kerneltune/kerneltune/internal/ctxio"
	"github.com/kerneltune/kerneltune/internal/progress"
	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/outfile"
	"github.com/kerneltune/kerneltune/pkg/report"
	"github.com/kerneltune/kerneltune/pkg/study"
	"github.com/kerneltune/kerneltune/pkg/sysmem"
)

type compareOptions struct {
	*globalOptions
	data dataOptions
	summaryOptions
	s       experiment.CompareSettings // the flags that are settings as they are
	each    experiment.DatasetSettings // the flags that read and partition every DATA
	m       methodFlags                // the methods' shared settings and --max-iter
	cluster clusterOptions             // --slurm, --k8s

	Methods, Splits, Select, Shard, Preset string
	Partitions, TrainSize, TestSize, MemMB int
	DryRun                                 bool // --dry-run: print the plan, run no job
	partitionsSet                          bool // --partitions given: a preset's own default yields
	trainSizeSet                           bool // --train-size given: with --test, subsample the training file
	study                                  *study.Study
}

func init() { subcommands = append(subcommands, newCompareCmd) }

func newCompareCmd(g *globalOptions) *cobra.Command {
	return newCompareCmdWith(g, runCompare)
}

// newCompareCmdWith builds compare with runF as what runs it once the flags
// are checked (cli/cli's runF hook: tests of flag parsing pass one that
// stops there).
func newCompareCmdWith(g *globalOptions, runF func(context.Context, *compareOptions, []string) error) *cobra.Command {
	o := &compareOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:     "compare [DATA ...]",
		Short:   "Run every method on the same partitions and print averaged tables",
		Long:    help("compare") + presetHelp() + "\n" + summaryFormatHelp,
		Example: help("compare-examples"),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd, args); err != nil {
				return err
			}
			return runF(cmd.Context(), o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Methods, "methods", "default", "comma-separated method entries: method[:param][@mode] ("+strings.Join(methods.Names(), ", ")+"); default: "+strings.Join(methods.Defaults(), ", ")+"; all: every one")
	f.IntVar(&o.Partitions, "partitions", 30, "number of random train/test partitions")
	f.IntVar(&o.TrainSize, "train-size", 100, "training points per partition")
	f.IntVar(&o.TestSize, "test-size", 100, "test points per partition")
	f.Float64Var(&o.each.TrainFraction, "train-fraction", 0, "training fraction per partition (the rest is test); overrides the sizes")
	f.StringVar(&o.Splits, "splits", "random", "random, or predefined (the dataset's own realisations, e.g. IDA)")
	f.BoolVar(&o.each.Stratified, "stratified", false, "keep the class proportions in every partition")
	f.StringVar(&o.Select, "select", "cv", "baseline selection: cv (inside each training part) or laanaya (best test rate on the first five partitions: looks at test data)")
	f.IntVar(&o.s.Workers, "workers", 0, "concurrent jobs, the cores the run uses: 1 runs everything on one core (0 = all cores); results do not depend on it")
	f.IntVar(&o.MemMB, "mem-mb", 0, memFlagHelp("the estimated peak memory of the jobs at once (--workers of them, each as large as the largest)", "a run that would need more"))
	f.StringVarP(&o.s.Out, "out", "o", "", "write one JSON record per job to this file as it finishes (a new or empty file, or --resume)")
	f.BoolVar(&o.s.Resume, "resume", false, "skip the jobs already recorded in --out")
	f.StringVar(&o.Shard, "shard", "", "run only shard i of N (i/N, 1-based; the shards balanced by expected cost), for array jobs")
	o.cluster.addFlags(f)
	o.summaryOptions.addFlags(f)
	f.StringVar(&o.s.Provenance.Study, "study", "", "a study FILE.yaml: its datasets, each read its own way, and settings whose keys are these flags' names (the flags given override its top level)")
	f.BoolVar(&o.DryRun, "dry-run", false, "read the data, draw the partitions, check the settings and print the plan; run no job")
	f.StringVar(&o.each.Name, "name", "", "display name of the one DATA in tables, figures and records")
	f.StringVar(&o.Preset, "preset", "", "a paper's experiment on generated data: laanaya-weston or gi-chessboard")
	f.StringVar(&o.data.Test, "test", "", "test FILE for every partition (read with DATA's options and label mapping); training on all of DATA, or --train-size rows of it per partition")
	f.Float64Var(&o.m.C, "C", 0, "fix C for every method that takes it (0 = each method's own choice; twolevel learns C and refuses it)")
	f.IntVar(&o.m.Folds, "folds", 5, "cross-validation folds inside each training part")
	f.IntVar(&o.m.GridRows, "grid-rows", 0, help("flag-grid-rows"))
	f.IntVar(&o.m.KernelRows, "kernel-rows", 0, help("flag-kernel-rows"))
	f.Float64Var(&o.m.Eps, "eps", 1e-3, "SVM solver stopping tolerance")
	f.IntVar(&o.m.CacheMB, "cache-mb", 200, "SVM kernel cache size in MB")
	f.IntVar(&o.m.MaxIter, "max-iter", 0, "iteration limit of every method (0 = each method's default)")
	f.IntVar(&o.m.Budget, "budget", 0, "CV evaluations of random and bo (0 = 60 and 30)")
	o.m.addSpaceFlags(f)
	o.m.fs = f
	o.data.addReadFlags(f)
	f.StringVar(&o.data.Normalize, "normalize", "auto", "normaliser fitted on each training part: auto (maxabs on sparse data, at least half the entries 0; zscore otherwise), zscore, minmax01, minmax11, maxabs or none")
	return c
}

func (o *compareOptions) validate(cmd *cobra.Command, args []string) error {
	o.summaryOptions.setCommand(cmd, args) // before the study sets its flags
	o.cluster.capture(cmd)
	st, err := study.Load(o.s.Provenance.Study, cmd.Flags())
	if o.study = st; err != nil {
		return usageErrorf("--study: %v", err)
	}
	o.partitionsSet = cmd.Flags().Changed("partitions")
	o.trainSizeSet = cmd.Flags().Changed("train-size")
	if o.cluster.on() {
		o.summaryOptions.later = o.s.Out // made when the jobs are written
	}
	if err := o.summaryOptions.check(); err != nil {
		return err
	}
	s, m := &o.s, &o.m
	_, shards, shardErr := experiment.ParseShard(o.Shard)
	if err := cmp.Or(
		usageIf(o.Partitions < 1 || o.Partitions > maxPartitions, "--partitions must be between 1 and %d, got %d", maxPartitions, o.Partitions),
		usageIf(!(o.each.TrainFraction >= 0 && o.each.TrainFraction < 1), "--train-fraction must be in (0, 1), got %v", o.each.TrainFraction),
		usageIf(o.Splits != "random" && o.Splits != "predefined", "--splits: want random or predefined, got %q", o.Splits),
		usageIf(o.Select != "cv" && o.Select != "laanaya", "--select: want cv or laanaya, got %q", o.Select),
		usageIf(s.Resume && s.Out == "", "--resume needs --out FILE"),
		usageIf(shardErr != nil, "--shard: want i/N with 1 ≤ i ≤ N, got %q", o.Shard),
		o.cluster.check(o, args),
		usageIf(shards > 1 && o.HTML != "", "--html: a shard holds part of a run and prints no table; merge the shards' records into a page with 'kerneltune report SHARD-FILES... --html %s'", o.HTML),
		usageIf(o.Shard != "" && s.Out == "", "--shard needs --out FILE: a shard's records are merged with the other shards' by 'kerneltune report'"),
		usageIf(o.Shard != "" && o.Plot != "", "--plot draws a whole run: give it to 'kerneltune report' over the files of all shards, not to one --shard"),
		usageIf(!methods.EpsRange.Contains(m.Eps), "--eps %v: want %s", m.Eps, methods.EpsRange.Want()),
		usageIf(m.CacheMB < 1, "--cache-mb must be at least 1, got %d", m.CacheMB),
		usageIf(s.Workers < 0, "--workers must be ≥ 0, got %d", s.Workers),
		checkMemMB(o.MemMB),
		o.validateSources(cmd, args), o.data.check()); err != nil {
		return err
	}
	entries, err := experiment.ParseEntries(o.Methods)
	if err != nil {
		return usageErrorf("--methods: %v", err)
	}
	// Checked as compare checks them, so that a bad value names its flag; a C an entry
	// refuses (twolevel learns C) is compare's usage error naming the entry.
	s.Base, s.Loop = m.base(0, nil), m.loop()
	check := *s
	check.Entries = entries
	if oe := (*methods.OptionError)(nil); errors.As(check.CheckEntries(), &oe) && oe.Option != "C" {
		return m.optionError(oe)
	}
	if o.Methods != "default" { // else the default list, or the preset's entries
		o.s.Entries = entries
	}
	return nil
}

// validateSources checks the flags of --test and --preset.
func (o *compareOptions) validateSources(cmd *cobra.Command, args []string) error {
	test, preset := o.data.Test != "", o.Preset != ""
	if err := cmp.Or(
		usageIf(test && preset, "--test does not apply to --preset (it draws its own samples)"),
		usageIf(o.s.Provenance.Study != "" && len(args)+len(o.each.Name) > 0 || o.each.Name != "" && len(args) != 1, "--study names its datasets (give no DATA and no --name); --name is the display name of one DATA"),
		usageIf(test && len(args) != 1, "--test FILE is the test part of one training DATA: give exactly one DATA, got %d", len(args)),
		usageIf(test && o.Splits != "random", "--test FILE is the test part of every partition: --splits predefined does not apply"),
		usageIf(test && (cmd.Flags().Changed("test-size") || o.each.TrainFraction > 0), "--test FILE is the whole test part of every partition: --test-size and --train-fraction do not apply (--train-size subsamples the training file)"),
	); err != nil || !preset {
		return err
	}
	_, known := experiment.LookupPreset(o.Preset)
	maxPoints, weston := maxGenerateValues/(dataio.WestonFeatures+1), o.Preset == "laanaya-weston"
	return cmp.Or(
		usageIf(!known, "--preset: unknown preset %q (known: %s)", o.Preset, strings.Join(experiment.PresetNames(), ", ")),
		usageIf(len(args) > 0, "--preset generates its own data: give no DATA"),
		o.presetFlags(cmd, weston),
		usageIf(weston && (o.TrainSize < 1 || o.TestSize < 1), "--preset laanaya-weston draws --train-size + --test-size points: each must be at least 1, got %d and %d", o.TrainSize, o.TestSize),
		usageIf(weston && o.TrainSize > maxPoints-o.TestSize, "--preset laanaya-weston draws --train-size + --test-size points per partition: at most %d, got %d + %d", maxPoints, o.TrainSize, o.TestSize))
}

// presetFlags refuses the partition flags a preset would ignore (it draws
// its own samples; laanaya-weston takes the sizes).
func (o *compareOptions) presetFlags(cmd *cobra.Command, weston bool) error {
	for _, name := range []string{"train-size", "test-size", "train-fraction", "splits", "stratified"} {
		if cmd.Flags().Changed(name) && (!weston || !strings.HasSuffix(name, "-size")) {
			return usageErrorf("--%s does not apply to --preset %s (it draws its own samples: see --help)", name, o.Preset)
		}
	}
	return nil
}

// maxPartitions bounds --partitions: every partition's row indices are drawn
// up front, and a typo such as 1e11 ended in an out-of-memory crash.
const maxPartitions = experiment.MaxPartitions

// settings are the complete settings of the run the flags and DATA args
// describe (validated by validate; nothing read, nothing run): runCompare
// runs them, and flag tests check them whole.
func (o *compareOptions) settings(args []string) experiment.CompareSettings {
	s, each := o.s, o.each
	each.Partitions, each.TrainSize, each.TestSize, each.Predefined = o.Partitions, o.TrainSize, o.TestSize, o.Splits == "predefined"
	each.Test, each.PartitionsGiven, each.TrainSizeGiven, each.Read = o.data.Test, o.partitionsSet, o.trainSizeSet, o.data.readOptions()
	s.Datasets, s.Stdin, s.Seed, s.Normalize = experiment.FileSpecs(args, each), o.data.stdinReader(), o.Seed, o.data.Normalize
	s.LaanayaSelect = o.Select == "laanaya"
	s.Shard, s.Shards, _ = experiment.ParseShard(o.Shard)
	if o.Preset != "" {
		s.Preset = experiment.PresetRun{Name: o.Preset, TrainSize: o.TrainSize, TestSize: o.TestSize}
		if o.partitionsSet { // else the preset's own
			s.Preset.Partitions = o.Partitions
		}
	}
	s.MemBytes, s.Provenance = sysmem.Bound(o.MemMB), experiment.Provenance{Version: buildinfo.Version(), Command: o.command}
	study.Configure(&s, o.study, each)
	return s
}

// runCompare prepares the run (data read, jobs planned, settings checked),
// prints its plan on --dry-run, or else prints what preparing found, makes
// --plot's directory (the figures come at the end: find out before a long
// run that it cannot be made), bounds the collector, runs it with a
// progress display and prints its tables.
func runCompare(ctx context.Context, o *compareOptions, args []string) error {
	if o.cluster.on() {
		return runCluster(ctx, o, args)
	}
	s := o.settings(args)
	files := new(outfile.Plan).Append("--out", s.Out).Input("--study", s.Provenance.Study)
	for _, d := range s.Datasets {
		files.Input(cmp.Or(d.Where, "DATA"), d.Path).Input("--test", d.Test)
	}
	if err := checkFiles(o.summaryOptions.outputs(files)); err != nil {
		return err
	}
	restore := sysmem.LimitGC(o.MemMB) // reading the data: the heap within the bound
	p, err := experiment.Prepare(ctx, s)
	restore()
	if err != nil {
		return compareError(o.MemMB, err)
	}
	if o.DryRun {
		return report.WritePlan(o.Out, o.Format, p.Plan)
	}
	notice := func(n experiment.Notice) {
		if !o.Quiet {
			fmt.Fprintln(o.ErrOut, report.Notice(n))
		}
	}
	for _, n := range p.Notices {
		notice(n)
	}
	if o.Plot != "" {
		if err := os.MkdirAll(o.Plot, 0o755); err != nil {
			return fmt.Errorf("compare: --plot: %w", err)
		}
	}
	// As tune: the estimate's live data, or the bound if lower, is the collector's soft limit.
	if p.Live > 0 {
		defer sysmem.LimitGCTo(o.MemMB, p.Live)()
	}
	prog := progress.New(o.ErrOut, "compare", o.Quiet)
	res, err := p.Run(ctx, experiment.Observer{Notice: notice, Progress: func(d, t int, r *experiment.Record) {
		if r == nil { // the start
			prog.Update(d, t, "jobs")
			return
		}
		prog.Update(d, t, fmt.Sprintf("jobs, last %s %s #%d", r.Dataset, r.Entry, r.Partition+1))
	}})
	prog.Finish()
	if err != nil {
		if errors.Is(err, context.Canceled) && o.s.Out != "" && !o.Quiet {
			return &ctxio.Interrupted{Hint: fmt.Sprintf("the finished jobs are in %s, rerun with --resume to continue", o.s.Out)}
		}
		return compareError(o.MemMB, err)
	}
	if s.Shards > 1 {
		err = report.WriteShard(o.Out, o.Format, report.NewShard(res, o.Shard, s.Shards, o.s.Out), s.Shards)
	} else {
		err = o.summaryOptions.write(o.globalOptions, report.Summarize(res.Records, report.SummaryOptions{Entries: res.Grid.Entries, Metric: o.metric, Rope: o.Rope}), res.Records)
	}
	if err != nil || res.Failures == 0 {
		return err
	}
	return fmt.Errorf("compare: %s", report.Failures(res.Records, o.s.Out))
}

// compareError words an error of experiment.Compare in the command line's
// flags; the settings' errors are usage errors.
func compareError(memMB int, err error) error {
	var (
		entry *experiment.EntryError
		dup   *experiment.DuplicateDataError
		src   *experiment.SourceError
		exist *experiment.ResultsExistError
		other *experiment.OtherRunError
		data  *experiment.OtherDataError
	)
	switch {
	case errors.As(err, new(*dataio.ReadMemoryError)):
		return readMemoryError(memMB, err)
	case errors.As(err, new(*experiment.MemoryError)), errors.As(err, new(*methods.SizeError)):
		return memoryError(memMB, err)
	case errors.As(err, &entry):
		return usageErrorf("--methods entry %s refuses these options, so every one of its jobs would fail: %v", entry.Entry, entry.Err)
	case errors.As(err, &dup):
		return usageErrorf("DATA %s is given twice", dup.Path)
	case errors.As(err, new(*experiment.SameDatasetError)):
		return usageErrorf("DATA: %v", err)
	case errors.As(err, new(*dataio.NameError)) && errors.As(err, &src):
		return usageErrorf("compare: %q: %v (--name, or name: in a study)", src.Path, src.Err)
	case errors.Is(err, experiment.ErrNoSVM):
		return usageErrorf("--select laanaya chooses the svm baseline's (C, γ): include svm in --methods")
	case errors.Is(err, experiment.ErrNoRealisations) && errors.As(err, &src):
		return fmt.Errorf("compare: %s defines no train/test realisations (--splits predefined needs IDA-style index files)", src.Path)
	case (errors.As(err, new(*dataio.SamePartitionsError)) || errors.Is(err, dataio.ErrTestIsTraining)) && errors.As(err, &src):
		return usageErrorf("compare: %s: %v", src.Path, src.Err)
	case errors.As(err, &src):
		return fmt.Errorf("compare: %s: %w", src.Path, flagHint(src.Err))
	case errors.As(err, new(*experiment.LockedError)), errors.As(err, new(*experiment.DirectoryError)),
		errors.As(err, new(*experiment.NotRegularError)):
		return fmt.Errorf("compare: --out %w", err)
	case errors.As(err, &exist):
		return fmt.Errorf("compare: %s already holds results: add --resume to continue that run, or remove the file or choose another --out to start afresh", exist.Path)
	case errors.As(err, &other):
		return fmt.Errorf("compare: %v; use another --out or the same settings", other)
	case errors.As(err, &data):
		return fmt.Errorf("compare: %v; resume with the data and the read, partition and normalisation flags its records were made with, or use another --out", data)
	}
	return flagHint(err) // the data's errors, in the flags' words
}
