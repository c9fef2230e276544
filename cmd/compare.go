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

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/experiment"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// defaultCompareData are the embedded datasets `compare` runs on without
// DATA: all of them (heart and breast-wisconsin are Laanaya's Table 2,
// diabetes is Yang's Pima).
var defaultCompareData = []string{"builtin:heart", "builtin:breast-wisconsin", "builtin:diabetes"}

type compareOptions struct {
	*globalOptions
	data dataOptions

	Methods       string
	Partitions    int
	TrainSize     int
	TestSize      int
	TrainFraction float64
	Splits        string
	Stratified    bool
	Select        string
	Workers       int
	OutFile       string // --out: the results file
	Resume        bool
	Shard         string
	Preset        string
	partitionsSet bool // --partitions given: a preset's own default yields
	trainSizeSet  bool // --train-size given: with --test, subsample the training file
	summaryOptions

	C       float64
	Folds   int
	Eps     float64
	CacheMB int
	MaxIter int
}

func init() { subcommands = append(subcommands, newCompareCmd) }

func newCompareCmd(g *globalOptions) *cobra.Command {
	o := &compareOptions{globalOptions: g, data: dataOptions{stdin: g.In}}
	c := &cobra.Command{
		Use:   "compare [DATA ...]",
		Short: "Run every method on the same partitions and print averaged tables",
		Long: `compare runs the experimental protocol of Laanaya et al. (2011, §3) on each
dataset: the same random train/test partitions for every method (default 30
partitions of 100 training and 100 test points; train and test disjoint within a
partition), the normaliser fitted on each training part, each method tuned on
the training part only, the final SVM trained on the whole training part with
what the method learned, and the test accuracy recorded.

The table per dataset shows mean ± std test accuracy, mean #SV, mean tuning time,
mean SVM solves, the runs and failures, and the two-sided paired Wilcoxon
signed-rank p-value of each method against the baseline (the first entry, svm
by default). The best mean is marked with * (every entry of a tie). Datasets
come in command-line order, methods in --methods order.

With two or more datasets and methods, tables of statistics across datasets
follow (Demšar 2006): the average rank of each method's mean test accuracy,
wins/ties/losses against the baseline (per-dataset Wilcoxon p < 0.05), the
Friedman and Iman–Davenport tests, the Nemenyi critical differences at
α = 0.05 and 0.10 with the groups of methods they do not separate, and Holm's
test of every method against the baseline. A dataset where a method has no
successful run is left out of them and named. They are in every format but
csv, which stays one table of the per-dataset rows.

With no DATA it runs on every embedded dataset: heart, breast-wisconsin and
diabetes.

A given train/test pair (LIBSVM's a1a and a1a.t style): compare TRAIN --test
TEST trains on the whole training file and tests on the whole test file (one
partition); with --partitions K (or --train-size N) each of K partitions
trains on a random subsample of --train-size rows of the training file (the
whole file when it is smaller) and tests on the whole test file.

Missing results are never hidden: every row says how many partitions it
averages (runs), and the Wilcoxon test pairs only the partitions both methods
finished (a pairs column appears when that is fewer than the partitions).
Every option a method would refuse (--C -1; --C for twolevel, which learns C)
is refused before any job runs.

Long runs: --out FILE writes one JSON line per (dataset, method, partition) as
soon as it finishes; after Ctrl-C or a crash, run the same command with --resume
to skip what is done (without --resume, compare refuses to overwrite a results
file that holds records). --shard i/N runs only every N-th job (for cluster array
jobs) and needs --out: a shard prints what it ran and where its records are,
not a table; merge the shards' files with 'kerneltune report'.

Method entries: --methods takes a comma-separated list of "method",
"method:param" or either followed by "@mode", e.g. svm,spd:full,gi:D or
spd:diag,spd:diag@lbfgs,twolevel@paper (modes: spd paper|riemannian|backtrack|
lbfgs, rcsc robust|paper, twolevel select|paper). "all" (the default) is every
method with its default parameterisation and mode.

Presets (--preset): a paper's own experiment on generated data, a fresh sample
per partition (--methods and --partitions override the preset's):
` + presetHelp() + "\n" + summaryFormatHelp,
		Example: `  kerneltune compare
  kerneltune compare data.csv --methods svm,spd:diag,spd:full --partitions 10
  kerneltune compare builtin:diabetes --train-fraction 0.67 --format markdown
  kerneltune compare testdata/ida/banana --splits predefined --methods svm,lccp
  kerneltune compare a1a --test a1a.t --features 123 --methods svm,twolevel
  kerneltune compare a1a --test a1a.t --features 123 --partitions 10 --train-size 500
  kerneltune compare --preset laanaya-weston --out weston.jsonl
  kerneltune compare --out run.jsonl --resume        # continue an interrupted run`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := o.validate(cmd, args); err != nil {
				return err
			}
			return runCompare(cmd.Context(), o, args)
		},
	}
	f := c.Flags()
	f.StringVar(&o.Methods, "methods", "all", "comma-separated method entries: method[:param][@mode] ("+strings.Join(methods.Names(), ", ")+")")
	f.IntVar(&o.Partitions, "partitions", 30, "number of random train/test partitions")
	f.IntVar(&o.TrainSize, "train-size", 100, "training points per partition")
	f.IntVar(&o.TestSize, "test-size", 100, "test points per partition")
	f.Float64Var(&o.TrainFraction, "train-fraction", 0, "training fraction per partition (the rest is test); overrides the sizes")
	f.StringVar(&o.Splits, "splits", "random", "random, or predefined (the dataset's own realisations, e.g. IDA)")
	f.BoolVar(&o.Stratified, "stratified", false, "keep the class proportions in every partition")
	f.StringVar(&o.Select, "select", "cv", "baseline selection: cv (inside each training part) or laanaya (best test rate on the first five partitions: looks at test data)")
	f.IntVar(&o.Workers, "workers", 0, "concurrent jobs (0 = all cores); results do not depend on it")
	f.StringVarP(&o.OutFile, "out", "o", "", "write one JSON record per job to this file as it finishes (a new or empty file, or --resume)")
	f.BoolVar(&o.Resume, "resume", false, "skip the jobs already recorded in --out")
	f.StringVar(&o.Shard, "shard", "", "run only shard i of N (i/N, 1-based), for array jobs")
	o.summaryOptions.addFlags(f)
	f.StringVar(&o.Preset, "preset", "", "a paper's experiment on generated data: laanaya-weston or gi-chessboard")
	f.StringVar(&o.data.Test, "test", "", "test FILE for every partition (read with DATA's options and label mapping); training on all of DATA, or --train-size rows of it per partition")
	f.Float64Var(&o.C, "C", 0, "fix C for every method that takes it (0 = each method's own choice; twolevel learns C and refuses it)")
	f.IntVar(&o.Folds, "folds", 5, "cross-validation folds inside each training part")
	f.Float64Var(&o.Eps, "eps", 1e-3, "SVM solver stopping tolerance")
	f.IntVar(&o.CacheMB, "cache-mb", 200, "SVM kernel cache size in MB")
	f.IntVar(&o.MaxIter, "max-iter", 0, "iteration limit of every method (0 = each method's default)")
	o.data.addReadFlags(f)
	f.StringVar(&o.data.Normalize, "normalize", "zscore", "normaliser fitted on each training part: zscore, minmax01, minmax11 or none")
	return c
}

func (o *compareOptions) validate(cmd *cobra.Command, args []string) error {
	o.partitionsSet = cmd.Flags().Changed("partitions")
	o.trainSizeSet = cmd.Flags().Changed("train-size")
	if err := o.summaryOptions.check(); err != nil {
		return err
	}
	o.summaryOptions.setCommand(cmd, args)
	if o.Partitions < 1 || o.Partitions > maxPartitions {
		return usageErrorf("--partitions must be between 1 and %d, got %d", maxPartitions, o.Partitions)
	}
	if o.TrainFraction < 0 || o.TrainFraction >= 1 {
		return usageErrorf("--train-fraction must be in (0, 1)")
	}
	if o.Splits != "random" && o.Splits != "predefined" {
		return usageErrorf("--splits: want random or predefined, got %q", o.Splits)
	}
	if o.Select != "cv" && o.Select != "laanaya" {
		return usageErrorf("--select: want cv or laanaya, got %q", o.Select)
	}
	if o.Resume && o.OutFile == "" {
		return usageErrorf("--resume needs --out FILE")
	}
	if _, n, err := parseShard(o.Shard); err != nil {
		return err
	} else if n > 1 && o.HTML != "" {
		return usageErrorf("--html: a shard holds part of a run and prints no table; merge the shards' records into a page with 'kerneltune report SHARD-FILES... --html %s'", o.HTML)
	}
	if o.Shard != "" && o.OutFile == "" {
		return usageErrorf("--shard needs --out FILE: a shard's records are merged with the other shards' by 'kerneltune report'")
	}
	if o.Shard != "" && o.Plot != "" {
		return usageErrorf("--plot draws a whole run: give it to 'kerneltune report' over the files of all shards, not to one --shard")
	}
	if o.Folds < 0 || o.Folds == 1 {
		return usageErrorf("--folds must be at least 2 (or 0 for the default 5), got %d", o.Folds)
	}
	if !(o.Eps > 0) || math.IsInf(o.Eps, 0) {
		return usageErrorf("--eps must be a positive number, got %v", o.Eps)
	}
	if o.CacheMB < 1 {
		return usageErrorf("--cache-mb must be at least 1, got %d", o.CacheMB)
	}
	if o.MaxIter < 0 {
		return usageErrorf("--max-iter must be ≥ 0, got %d", o.MaxIter)
	}
	if o.Workers < 0 {
		return usageErrorf("--workers must be ≥ 0, got %d", o.Workers)
	}
	if o.data.Test != "" {
		switch {
		case o.Preset != "":
			return usageErrorf("--test does not apply to --preset (it draws its own samples)")
		case len(args) != 1:
			return usageErrorf("--test FILE is the test part of one training DATA: give exactly one DATA, got %d", len(args))
		case o.Splits != "random":
			return usageErrorf("--test FILE is the test part of every partition: --splits predefined does not apply")
		case cmd.Flags().Changed("test-size") || o.TrainFraction > 0:
			return usageErrorf("--test FILE is the whole test part of every partition: --test-size and --train-fraction do not apply (--train-size subsamples the training file)")
		}
	}
	if o.Preset != "" {
		if _, ok := presets[o.Preset]; !ok {
			return usageErrorf("--preset: unknown preset %q (known: %s)", o.Preset, strings.Join(presetNames(), ", "))
		}
		if len(args) > 0 {
			return usageErrorf("--preset generates its own data: give no DATA")
		}
		for _, name := range []string{"train-size", "test-size", "train-fraction", "splits", "stratified"} {
			if cmd.Flags().Changed(name) && (o.Preset != "laanaya-weston" || !strings.HasSuffix(name, "-size")) {
				return usageErrorf("--%s does not apply to --preset %s (it draws its own samples: see --help)", name, o.Preset)
			}
		}
		if o.Preset == "laanaya-weston" && (o.TrainSize < 1 || o.TestSize < 1) {
			return usageErrorf("--preset laanaya-weston draws --train-size + --test-size points: each must be at least 1, got %d and %d", o.TrainSize, o.TestSize)
		}
		if o.Preset == "laanaya-weston" && o.TrainSize > maxGenerateValues/(dataio.WestonFeatures+1)-o.TestSize {
			return usageErrorf("--preset laanaya-weston draws --train-size + --test-size points per partition: at most %d, got %d + %d", maxGenerateValues/(dataio.WestonFeatures+1), o.TrainSize, o.TestSize)
		}
	}
	if _, err := experiment.ParseEntries(o.Methods); err != nil {
		return &flagError{err}
	}
	return nil
}

// maxPartitions bounds --partitions: every partition's row indices are drawn
// up front, and a typo such as 1e11 ended in an out-of-memory crash.
const maxPartitions = 100_000

// uniqueNames gives data sets that share a name (a/heart.dat and
// b/heart.dat are both "heart") their paths as names: records are keyed by
// the name, so the second set's results would silently replace the first's.
// The same DATA given twice is an error.
func uniqueNames(sources []experiment.Source, args []string) error {
	count := map[string]int{}
	for _, s := range sources {
		count[s.Name()]++
	}
	seen := map[string]bool{}
	for i, s := range sources {
		if seen[args[i]] {
			return usageErrorf("DATA %s is given twice", args[i])
		}
		seen[args[i]] = true
		if ss, ok := s.(*experiment.SplitSource); ok && count[s.Name()] > 1 {
			d := *ss.Data
			d.Name = args[i]
			ss.Data = &d
		}
	}
	return nil
}

// parseShard parses "i/N" (1 ≤ i ≤ N); "" is the whole run.
func parseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, usageErrorf("--shard: want i/N with 1 ≤ i ≤ N, got %q", s)
	}
	return i, n, nil
}

func runCompare(ctx context.Context, o *compareOptions, args []string) error {
	var (
		sources []experiment.Source
		entries []experiment.Entry
		cfg     experiment.Config
		err     error
	)
	cfg.Seed = o.Seed
	cfg.Normalize = o.data.Normalize
	cfg.Workers = o.Workers
	cfg.Shard, cfg.Shards, _ = parseShard(o.Shard)
	cfg.Options = methods.Options{C: o.C, Folds: o.Folds, Eps: o.Eps, CacheMB: o.CacheMB, MaxIter: o.MaxIter}
	cfg.Describe = map[string]string{"select": o.Select}
	if o.Preset != "" {
		p := presets[o.Preset]
		sources, entries, err = p.build(o)
		if err != nil {
			return err
		}
		cfg.Margins = p.margins
		cfg.Describe["preset"] = o.Preset
		if o.Methods != "all" { // the user's list overrides the preset's
			if entries, err = experiment.ParseEntries(o.Methods); err != nil {
				return err
			}
		}
		if err := checkEntryOptions(cfg, entries); err != nil {
			return err
		}
	} else {
		if entries, err = experiment.ParseEntries(o.Methods); err != nil {
			return err
		}
		if err := checkEntryOptions(cfg, entries); err != nil {
			return err
		}
		if len(args) == 0 {
			args = defaultCompareData
		}
		for _, path := range args {
			src, err := o.source(path)
			if err != nil {
				return err
			}
			sources = append(sources, src)
		}
		if err := uniqueNames(sources, args); err != nil {
			return err
		}
		cfg.Describe["data"] = strings.Join(args, ",")
		cfg.Describe["partitions"] = fmt.Sprintf("%s/%d/%d/%d/%g/%v", o.Splits, o.Partitions, o.TrainSize, o.TestSize, o.TrainFraction, o.Stratified)
		if o.data.Test != "" {
			cfg.Describe["test"] = fmt.Sprintf("%s/%v/%v", o.data.Test, o.partitionsSet, o.trainSizeSet)
		}
	}
	if o.Select == "laanaya" {
		if err := applyLaanayaSelect(ctx, o, &cfg, sources, entries); err != nil {
			return err
		}
	}
	run := cfg.Fingerprint(entries, sources)
	cfg.Grid = experiment.NewGrid(sources, entries)
	jobs := cfg.Plan(sources, entries)
	if o.Plot != "" {
		// The figures come at the end: find out now, not after a long run,
		// that their directory cannot be made.
		if err := os.MkdirAll(o.Plot, 0o755); err != nil {
			return fmt.Errorf("compare: --plot: %w", err)
		}
	}

	var (
		sink  experiment.Sink
		prior []experiment.Record
	)
	done := map[experiment.Key]bool{}
	if o.OutFile != "" {
		if st, statErr := os.Stat(o.OutFile); statErr == nil && !o.Resume && st.Size() > 0 {
			// Truncating would throw away the finished jobs of an
			// interrupted run whose rerun forgot --resume.
			return fmt.Errorf("compare: %s already holds results: add --resume to continue that run, or remove the file or choose another --out to start afresh", o.OutFile)
		}
		if o.Resume {
			if _, statErr := os.Stat(o.OutFile); statErr == nil {
				if prior, err = experiment.ReadRecordsFile(o.OutFile); err != nil {
					return err
				}
				for _, r := range prior {
					if r.Run != run {
						return fmt.Errorf("compare: %s was written by a run with other settings (run %s, this run %s): use another --out or the same settings", o.OutFile, r.Run, run)
					}
					done[r.Key()] = true
				}
			}
		}
		fs, err := experiment.OpenFileSink(o.OutFile, o.Resume)
		if err != nil {
			return err
		}
		defer fs.Close()
		sink = fs
	} else {
		sink = &experiment.MemorySink{}
	}

	prog := newProgress(o.globalOptions, "compare")
	recs, runErr := experiment.Run(ctx, cfg, jobs, run, done, sink, func(d, t int, r *experiment.Record) {
		prog.update(d, t, fmt.Sprintf("%s %s #%d", r.Dataset, r.Entry, r.Partition+1))
	})
	prog.finish()
	if runErr != nil {
		if errors.Is(runErr, context.Canceled) && o.OutFile != "" && !o.Quiet {
			fmt.Fprintf(o.ErrOut, "kerneltune: interrupted; the finished jobs are in %s, rerun with --resume to continue\n", o.OutFile)
		}
		return runErr
	}
	all, err := experiment.Merge(prior, recs)
	if err != nil {
		return err
	}
	if cfg.Shards > 1 {
		if err := writeShardReport(o, cfg, run, jobs, all, len(prior)); err != nil {
			return err
		}
	} else {
		order := make([]string, len(entries))
		for i, e := range entries {
			order[i] = e.String()
		}
		sum := experiment.SummarizeRun(all, experiment.SummaryOptions{Entries: order})
		if err := o.summaryOptions.write(o.globalOptions, sum, all); err != nil {
			return err
		}
	}
	if n := countFailures(all); n > 0 {
		return fmt.Errorf("compare: %d job(s) failed (see the failures column%s):%s", n, outHint(o.OutFile), failureDigest(all, 5))
	}
	return nil
}

// shardReport is what a shard prints: not a table (a few partitions'
// means are no result), but what it ran and how to merge.
type shardReport struct {
	Shard       string `json:"shard"`
	Run         string `json:"run"`
	JobsInShard int    `json:"jobs_in_shard"`
	JobsDone    int    `json:"jobs_done"`    // records of this shard's jobs in the file
	JobsResumed int    `json:"jobs_resumed"` // of them, already there before this invocation
	Failures    int    `json:"failures"`
	JobsPlanned int    `json:"run_jobs_planned"` // the whole run's, over every shard
	Records     string `json:"records"`
	Merge       string `json:"merge"`
}

func writeShardReport(o *compareOptions, cfg experiment.Config, run string, jobs []experiment.Job, all []experiment.Record, resumed int) error {
	r := shardReport{
		Shard: o.Shard, Run: run, JobsInShard: len(jobs), JobsDone: len(all), JobsResumed: resumed,
		Failures: countFailures(all), JobsPlanned: cfg.Grid.Jobs(), Records: o.OutFile,
		Merge: "kerneltune report FILE... (the files of all " + strconv.Itoa(cfg.Shards) + " shards)",
	}
	if o.Format == formatJSON {
		return renderJSON(o.Out, r)
	}
	_, err := fmt.Fprintf(o.Out, "shard %s of run %s: %d of its %d jobs recorded (%d failed; %d were already in the file), of the run's %d\n"+
		"records: %s\n"+
		"no table: a shard holds a few partitions of each dataset; merge the files of all %d shards with\n"+
		"  kerneltune report FILE...\n",
		r.Shard, r.Run, r.JobsDone, r.JobsInShard, r.Failures, r.JobsResumed, r.JobsPlanned, r.Records, cfg.Shards)
	return err
}

// failureDigest lists the distinct errors of the failed records, at most
// most of them, one line each with the first job that hit it, so that a
// failure is explained without opening the results file.
func failureDigest(rs []experiment.Record, most int) string {
	var (
		order []string
		first = map[string]*experiment.Record{}
		count = map[string]int{}
	)
	for i := range rs {
		r := &rs[i]
		if !r.Failed() {
			continue
		}
		if first[r.Error] == nil {
			first[r.Error] = r
			order = append(order, r.Error)
		}
		count[r.Error]++
	}
	var b strings.Builder
	for i, msg := range order {
		if i == most {
			fmt.Fprintf(&b, "\n  … and %d other error(s)", len(order)-most)
			break
		}
		r := first[msg]
		fmt.Fprintf(&b, "\n  %s %s partition %d", r.Dataset, r.Entry, r.Partition+1)
		if n := count[msg]; n > 1 {
			fmt.Fprintf(&b, " (and %d more)", n-1)
		}
		fmt.Fprintf(&b, ": %s", msg)
	}
	return b.String()
}

func outHint(out string) string {
	if out == "" {
		return ""
	}
	return " and the error field of the records in " + out
}

func countFailures(rs []experiment.Record) int {
	n := 0
	for i := range rs {
		if rs[i].Failed() {
			n++
		}
	}
	return n
}

// checkEntryOptions refuses, as a usage error before any data is read or
// any job runs, an option that a --methods entry's method would refuse on
// any data (methods.CheckOptions: --C -1 for every method, --C 1 for
// twolevel, which learns C, --folds for the methods that cross-validate).
func checkEntryOptions(cfg experiment.Config, entries []experiment.Entry) error {
	for _, e := range entries {
		m, err := methods.Lookup(e.Method)
		if err != nil {
			return &flagError{err}
		}
		opts := cfg.Options
		opts.Param, opts.Mode, opts.Margin = e.Param, e.Mode, cfg.Margins[e.Method]
		if err := methods.CheckOptions(m, opts); err != nil {
			return usageErrorf("--methods entry %s refuses these options, so every one of its jobs would fail: %v", e, err)
		}
	}
	return nil
}

// source loads one dataset and draws its partitions.
func (o *compareOptions) source(path string) (experiment.Source, error) {
	if o.data.Test != "" {
		return o.trainTestSource(path)
	}
	d, err := o.data.load(path)
	if err != nil {
		return nil, err
	}
	if o.Splits == "predefined" {
		if len(d.Splits) == 0 {
			return nil, fmt.Errorf("compare: %s defines no train/test realisations (--splits predefined needs IDA-style index files)", path)
		}
		splits := d.Splits
		if o.Partitions < len(splits) {
			splits = splits[:o.Partitions]
		}
		return encodedSource(&experiment.SplitSource{Data: d, Splits: splits}, d), nil
	}
	po := dataio.PartitionOptions{K: o.Partitions, TrainSize: o.TrainSize, TestSize: o.TestSize, Stratified: o.Stratified}
	if o.TrainFraction > 0 {
		po.TrainSize, po.TestSize = 0, 0
		po.TrainFraction = o.TrainFraction
	}
	splits, err := dataio.Partitions(d.Y, po, o.Seed)
	if err != nil {
		return nil, fmt.Errorf("compare: %s: %w", path, err)
	}
	return encodedSource(&experiment.SplitSource{Data: d, Splits: splits}, d), nil
}

// trainTestSource reads DATA and --test FILE (the test file with DATA's
// label mapping and width, as tune --test reads it; un-normalised: each
// partition's training part fits its own normaliser; nominal features
// one-hot encoded as tune encodes them, fitted on the whole training file,
// which is all training data) and draws the
// partitions: the whole training file once, or with --partitions or
// --train-size, K random subsamples of --train-size rows (all rows when the
// file is smaller), each tested on the whole test file.
func (o *compareOptions) trainTestSource(path string) (experiment.Source, error) {
	raw := o.data
	raw.Normalize = dataio.NoScale
	train, test, _, err := raw.loadTrainTest(path, o.Seed)
	if err != nil {
		return nil, err
	}
	n := train.Len()
	all := make([]int, n)
	for i := range all {
		all[i] = i
	}
	k := 1
	if o.partitionsSet {
		k = o.Partitions
	}
	var splits []dataio.Split
	if (o.partitionsSet || o.trainSizeSet) && o.TrainSize < n {
		po := dataio.PartitionOptions{K: k, TrainSize: o.TrainSize, Stratified: o.Stratified}
		if splits, err = dataio.Partitions(train.Y, po, o.Seed); err != nil {
			return nil, fmt.Errorf("compare: %s: %w", path, err)
		}
	} else {
		for range k {
			splits = append(splits, dataio.Split{Train: all})
		}
		if k > 1 && !o.Quiet {
			fmt.Fprintf(o.ErrOut, "kerneltune: note: %s has %d rows, not more than --train-size %d: each of the %d partitions trains on the whole file (they differ only in the methods' random choices)\n", path, n, o.TrainSize, k)
		}
	}
	return &experiment.SplitSource{Data: train, Splits: splits, Test: test}, nil
}

// applyLaanayaSelect fixes the svm baseline of every dataset by Laanaya's
// selection (best test rate on the first five partitions).
func applyLaanayaSelect(ctx context.Context, o *compareOptions, cfg *experiment.Config, sources []experiment.Source, entries []experiment.Entry) error {
	hasSVM := false
	for _, e := range entries {
		hasSVM = hasSVM || e.Method == "svm"
	}
	if !hasSVM {
		return usageErrorf("--select laanaya chooses the svm baseline's (C, γ): include svm in --methods")
	}
	cfg.Baseline = map[string]experiment.FixedSVM{}
	for _, s := range sources {
		f, err := experiment.LaanayaSelect(ctx, *cfg, s)
		if err != nil {
			return err
		}
		cfg.Baseline[s.Name()] = f
		cfg.Describe["baseline:"+s.Name()] = fmt.Sprintf("%g/%g", f.C, f.Gamma)
		if !o.Quiet {
			fmt.Fprintf(o.ErrOut, "%s: baseline (C, γ) = (%g, %g) chosen on the TEST parts of the first %d partitions (--select laanaya)\n",
				s.Name(), f.C, f.Gamma, experiment.LaanayaPartitions)
		}
	}
	return nil
}
