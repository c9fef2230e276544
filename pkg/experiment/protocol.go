package experiment

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// Entry is one row of a comparison: a method with its settings (Spec), and
// the name the tables and records give it, "method[:param][@mode]"
// (methods.Entry). Every job of the entry runs Spec with the run's shared
// settings (Config.Base) and the partition's seed.
type Entry struct {
	methods.Entry
	Spec methods.Spec
}

// NewEntry returns the entry of e with its method's default settings.
func NewEntry(e methods.Entry) (Entry, error) {
	s, err := e.Spec()
	if err != nil {
		return Entry{}, err
	}
	return Entry{Entry: e, Spec: s}, nil
}

// ParseEntries parses a comma-separated list of "method[:param][@mode]",
// each with its method's default settings. "" and "default" mean the
// default list (methods.Defaults: svm and the five papers' methods); "all"
// every registered method, the opt-in baselines (random, halving, bo)
// included; each with its default parameter.
func ParseEntries(list string) ([]Entry, error) {
	list = strings.TrimSpace(list)
	if names := methods.Defaults(); list == "" || list == "default" || list == "all" {
		if list == "all" {
			names = methods.Names()
		}
		var out []Entry
		for _, name := range names {
			e, err := NewEntry(methods.Entry{Method: name})
			if err != nil {
				return nil, err
			}
			out = append(out, e)
		}
		return out, nil
	}
	var out []Entry
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		if strings.TrimSpace(item) == "" {
			continue
		}
		me, err := methods.ParseEntry(item)
		if err != nil {
			return nil, fmt.Errorf("method entry %q: %w", strings.TrimSpace(item), err)
		}
		e, err := NewEntry(me)
		if err != nil {
			return nil, err
		}
		if seen[e.String()] {
			return nil, fmt.Errorf("method entry %s listed twice", e)
		}
		seen[e.String()] = true
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("empty method list")
	}
	return out, nil
}

// Source supplies the partitions of one dataset. Partition must be
// deterministic: the same k gives the same data on every call, so every
// method sees exactly the same partitions whatever the worker count. A
// dataset split by rows is a *dataio.Partitioned (OpenDataset's, or a
// caller's own Data, Splits and OneHot), a preset's a GeneratedSource.
type Source interface {
	Name() string
	Len() int // number of partitions
	// Partition returns the raw (un-normalised) training and test parts.
	Partition(k int) (train, test *dataio.Dataset, err error)
}

// fixedData is the one dataset a source draws its partitions from by
// rows (a *dataio.Partitioned), as the fingerprint, the memory estimate
// and a dry run's notes read it.
type fixedData struct {
	data, test *dataio.Dataset
	splits     []dataio.Split
	// onehot: each partition's nominal features are one-hot encoded
	// (dataio.Partitioned.OneHot).
	onehot bool
}

// fixedOf returns the dataset src draws its partitions from; false for a
// source that draws them otherwise (a preset's GeneratedSource).
func fixedOf(src Source) (fixedData, bool) {
	if p, ok := src.(*dataio.Partitioned); ok {
		return fixedData{p.Data, p.Test, p.Splits, p.OneHot}, true
	}
	return fixedData{}, false
}

// GeneratedSource draws a fresh sample for every partition (the presets on
// toy data), each from its own random stream (seed, k).
type GeneratedSource struct {
	DataName string
	K        int
	Seed     uint64
	Generate func(rng *rand.Rand) (train, test *dataio.Dataset, err error)
}

// Name returns the dataset name.
func (s *GeneratedSource) Name() string { return s.DataName }

// Len returns the number of partitions.
func (s *GeneratedSource) Len() int { return s.K }

// Partition generates partition k.
func (s *GeneratedSource) Partition(k int) (train, test *dataio.Dataset, err error) {
	return s.Generate(rand.New(rand.NewPCG(s.Seed, streamGenerated+uint64(k))))
}

// Random stream constants of this package (distinct from the other packages').
const (
	streamGenerated = 0x6578_7067_656e_0000 // "expgen"
	streamMethod    = 0x6578_706d_6574_0000 // "expmet"
)

// Config is the protocol's settings. The zero value of a field means its
// default.
type Config struct {
	Seed      uint64
	Normalize string // normaliser fitted on each training part; "" = zscore
	// Base holds the settings every method shares (C, folds, the solver's
	// tolerance and cache, ...): every job runs its entry's Spec with Base,
	// the partition's seed (JobSeed) and the workers Run gives it.
	Base    methods.Common
	Workers int // concurrent jobs; 0 = all cores
	Shard   int // 1-based index of the shard to run; 0 = all
	Shards  int // number of shards
	// Baseline, when set for a dataset, fixes the svm baseline's (C, γ) on
	// every partition of it instead of tuning (--select laanaya).
	Baseline map[string]FixedSVM
	// Checkpoints, if set, is a directory where each job keeps the
	// outcomes of its steps as it runs (a FileCheckpoint per job, named by
	// the run and the job, removed when its record is written), so that a
	// job cut short by a signal or kill -9 resumes mid-job.
	Checkpoints string
	// Grid, when set, is written into every record (Record.Grid): the whole
	// run's plan, not only this shard's jobs (NewGrid of the run's sources
	// and entries).
	Grid *Grid
	// Settings, when set, are written into every record (Record.Settings),
	// and each dataset's identity with them (Record.DatasetIdentity).
	Settings *RunSettings
	// Select is how the svm baseline's (C, γ) is chosen (SelectCV, the
	// default, or SelectLaanaya, with Baseline); Preset the preset whose
	// generated data the run's sources are ("" for none): both are in
	// the run's settings.
	Select, Preset string
	// Provenance, when set, is written into every record of a dataset
	// (Record.Provenance), by dataset name; it is not a setting of the run.
	Provenance map[string]*Provenance
	// Identity, when set, is each dataset's identity by name
	// (Config.identities), written into its records and keys.
	Identity map[string]Identity
}

func (c *Config) normalize() string { return normalizeKind(c.Normalize) }

// Job is one (dataset, entry, partition) unit of work.
type Job struct {
	Source    Source
	Entry     Entry
	Partition int
}

// key returns the job's key: its record's (Record.Key).
func (c *Config) key(j Job) Key {
	name := j.Source.Name()
	return Key{name, c.Identity[name], j.Entry.String(), j.Partition}
}

// identities returns the identity of each dataset of the run's settings,
// by name (none without settings).
func (c *Config) identities() map[string]Identity {
	out := map[string]Identity{}
	if c.Settings != nil {
		for _, d := range c.Settings.Datasets {
			out[d.Name] = d.Identity.ID()
		}
	}
	return out
}

// Plan lists the jobs of a run in a fixed order (dataset, partition, entry),
// restricted to the configured shard: the run's jobs are assigned to the
// Shards shards by their expected cost (AssignShards of jobCosts), so that
// the shards take about the same time, not the same number of jobs.
func (c *Config) Plan(sources []Source, entries []Entry) []Job {
	var jobs []Job
	for _, s := range sources {
		for k := 0; k < s.Len(); k++ {
			for _, e := range entries {
				jobs = append(jobs, Job{Source: s, Entry: e, Partition: k})
			}
		}
	}
	if c.Shards <= 1 {
		return jobs
	}
	var mine []Job
	for i, s := range AssignShards(jobCosts(jobs), c.Shards) {
		if s == c.Shard-1 {
			mine = append(mine, jobs[i])
		}
	}
	return mine
}

// Progress is called once when the run starts, with last nil and done the
// jobs already done (resumed), and after every finished job with the
// counts so far.
type Progress func(done, total int, last *Record)

// Run runs the jobs not already in done, writes each record to sink as soon
// as it is produced, and returns the new records. With more than one
// worker the jobs start longest first (longestFirst), with one in the
// order of jobs. A method that fails on one partition is recorded with
// status "failure" and the run goes on;
// cancellation stops the run (records already written stay) and returns the
// context's error. The records of a run do not depend on Workers.
func Run(ctx context.Context, c Config, jobs []Job, run string, done map[Key]bool, sink Sink, progress Progress) ([]Record, error) {
	todo := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if !done[c.key(j)] {
			todo = append(todo, j)
		}
	}
	workers, inner := c.jobWorkers(len(todo))
	// The svm baseline and gi's choice of C search the same grid on the
	// same partition: one search per partition (methods.GridMemo).
	inner.Grids = methods.NewGridMemo()
	if workers > 1 {
		// Longest first, so that the run does not end with one long job
		// on one core (schedule.go); alone, a job runs in the plan's order.
		todo = longestFirst(todo)
	}

	var (
		mu       sync.Mutex
		out      []Record
		firstErr error
		finished = len(jobs) - len(todo)
	)
	if progress != nil {
		progress(finished, len(jobs), nil)
	}
	ch := make(chan Job)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				jb := inner
				ck, err := c.jobCheckpoint(j, run)
				if err != nil {
					mu.Lock()
					firstErr = cmp.Or(firstErr, err)
					mu.Unlock()
					continue
				}
				if ck != nil {
					jb.Checkpoint = ck
				}
				rec := runJob(ctx, c, jb, j, run)
				if ctx.Err() != nil {
					ck.Close() // kept: the job resumes from it
					return     // a cancelled job is not recorded: resume redoes it
				}
				err = sink.Write(&rec)
				if err == nil {
					err = ck.Remove()
				} else {
					ck.Close()
				}
				mu.Lock()
				out = append(out, rec)
				finished++
				if err != nil && firstErr == nil {
					firstErr = err
				}
				if progress != nil {
					progress(finished, len(jobs), &rec)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for _, j := range todo {
		select {
		case ch <- j:
		case <-ctx.Done():
			break feed
		}
		mu.Lock()
		stop := firstErr != nil
		mu.Unlock()
		if stop {
			break
		}
	}
	close(ch)
	wg.Wait()
	SortRecords(out)
	if firstErr != nil {
		return out, firstErr
	}
	return out, ctx.Err()
}

// jobWorkers returns how many of n jobs Run runs at once (Workers, 0: all
// cores, at most n) and the shared settings every job gets: with as many
// jobs as cores, parallel across jobs, not inside them (Common.Workers 1).
// "All cores" is GOMAXPROCS, as the methods count them: it follows a container's
// CPU limit, where NumCPU counts the host's cores (64 jobs at once, and 64
// times the memory, in a 2-CPU container on a 64-core host).
//
// Workers, when set, is the cores the whole run may use: a job that runs
// alone (Workers 1, or one job) gets at most Workers goroutines inside it
// (the grid search's folds, the solver's column helpers), so that
// --workers 1 keeps to one core; with Workers 0 a lone job may use all
// cores. With fewer jobs than cores (compare --test: one job per method),
// each job gets its share of the cores left over, cores/n (the grid's and
// the cross-validations' folds run on them; the results do not depend on
// it), not one core each and the rest idle.
func (c *Config) jobWorkers(n int) (int, methods.Common) {
	cores := c.Workers
	if cores <= 0 {
		cores = runtime.GOMAXPROCS(0)
	}
	workers := min(cores, max(n, 1))
	inner := c.Base
	switch {
	case workers > 1:
		inner.Workers = cores / workers
	case c.Workers > 0 && (inner.Workers <= 0 || inner.Workers > c.Workers):
		inner.Workers = c.Workers
	}
	return workers, inner
}

// JobSeed is the method seed of partition k: the same for every method and
// every worker count, different between partitions.
func JobSeed(seed uint64, k int) uint64 {
	return rand.New(rand.NewPCG(seed, streamMethod+uint64(k))).Uint64()
}

// runJob runs one method on one partition (Pipeline: normalise on the
// training part, tune, train the final SVM on the whole training part,
// test) and records it.
func runJob(ctx context.Context, c Config, base methods.Common, j Job, run string) Record {
	rec := Record{
		SchemaVersion: SchemaVersion,
		Dataset:       j.Source.Name(), Identity: c.Identity[j.Source.Name()], Entry: j.Entry.String(), Method: j.Entry.Method,
		Param: j.Entry.Param, Mode: j.Entry.Mode, Partition: j.Partition, Run: run, Seed: c.Seed,
		Grid: c.Grid, Settings: c.Settings, Provenance: c.Provenance[j.Source.Name()],
	}
	if c.Settings != nil {
		if d, ok := c.Settings.dataset(rec.Dataset); ok {
			rec.DatasetIdentity = &d.Identity
		}
	}
	start := time.Now()
	fail := func(stage string, err error) Record {
		rec.Status = StatusFailure
		rec.Error = fmt.Sprintf("%s: %v", stage, err)
		rec.Seconds = time.Since(start).Seconds()
		return rec
	}
	train, test, err := j.Source.Partition(j.Partition)
	if err != nil {
		return fail("partition", err)
	}
	rec.TrainSize, rec.TestSize = train.Len(), test.Len()
	base.Seed = JobSeed(c.Seed, j.Partition)
	in := PipelineInput{Spec: j.Entry.Spec.WithBase(base), Train: train, Test: test, Normalize: c.Normalize}
	if f, ok := c.Baseline[j.Source.Name()]; ok && j.Entry.Method == "svm" {
		in.Fixed = fixedResult(f)
		rec.Extra = map[string]string{"select": "laanaya (looked at test data)"}
	}
	t, err := Pipeline(ctx, in)
	if se := (*StageError)(nil); errors.As(err, &se) {
		return fail(se.Stage, se.Err)
	} else if err != nil {
		return fail("tune", err)
	}
	res, fit := t.Result, t.Fit
	rec.Status = res.Status.String()
	rec.Param = res.Param
	rec.Kernel, rec.Margin, rec.C = res.Kernel, res.Margin.String(), res.C
	rec.GammaSpace = t.Norm.Kind
	if !dataio.DefaultFeatureNames(t.Train.FeatureNames) {
		rec.Features = t.Train.FeatureNames
	}
	for _, j := range t.Norm.Constant {
		rec.Constant = append(rec.Constant, j+1)
	}
	rec.Criterion, rec.CriterionStart, rec.CriterionEnd = res.Criterion, res.CriterionStart, res.CriterionEnd
	rec.Figures, rec.Iter, rec.Solves, rec.Notes = res.Figures, res.Iter, res.Solves, hint.Strings(res.Notes)
	rec.LearnedOn = res.LearnedOn
	for _, s := range res.Trace {
		rec.Trace = append(rec.Trace, s.Objective)
	}
	rec.Solves++
	rec.NSV = fit.SVC.NSV
	if fit.Model.IsMultiClass() {
		// The training rows that are an SV of some binary SVM (one-vs-one:
		// LIBSVM's total_sv). fit.Classes, fit.TestTrue and fit.TestPred
		// hold the test part's true and predicted classes.
		rec.NSV = fit.Model.Training.NSV
		rec.Solves += len(fit.Model.Pairs) - 1
		switch {
		case res.Pairs != nil && fit.Model.Multiclass == dataio.OneVsRest:
			rec.Notes = append(rec.Notes, fmt.Sprintf("one-vs-rest over %d classes: %d tunings; kernel and C are the first class's (%q vs %q)",
				len(fit.Classes), len(res.Pairs), res.Pairs[0].Positive, res.Pairs[0].Negative))
		case res.Pairs != nil:
			rec.Notes = append(rec.Notes, fmt.Sprintf("one-vs-one over %d classes: %d tunings; kernel and C are the first pair's (%q vs %q)",
				len(fit.Classes), len(res.Pairs), res.Pairs[0].Positive, res.Pairs[0].Negative))
		}
	}
	rec.Degenerate, rec.DegenerateReason = t.Degeneracy.Kind, t.Degeneracy.Reason
	if m := fit.Model; m.IsMultiClass() {
		for p, sp := range m.Subproblems() {
			pm, lm := m.Pairs[p], dataio.SubLabels(m.Classes, sp)
			dg := t.PairDegeneracy[p]
			rec.Pairs = append(rec.Pairs, RecordPair{Positive: lm.Positive, Negative: lm.Negative, Rest: lm.OneVsRest,
				Kernel: pm.Kernel, Margin: pm.MarginKind.String(), C: pm.C, Degenerate: dg.Kind, DegenerateReason: dg.Reason})
		}
		rec.DegeneratePairs = countDegenerate(rec.Pairs)
	}
	rec.TrainAccuracy = fit.TrainAccuracy
	rec.TestAccuracy = math.NaN() // an empty test part, as Model.Accuracy
	if fit.TestAccuracy != nil {
		rec.TestAccuracy = *fit.TestAccuracy
	}
	if sc := fit.TestScores; sc != nil {
		rec.TestConfusion, rec.TestAUC = sc.Confusion, sc.AUC
		if sc.AUC == nil && !fit.Model.IsMultiClass() {
			rec.Notes = append(rec.Notes, "no test AUC: the test part holds one class")
		}
	}
	mz := RecordMemorisation(rec)
	rec.SVShare, rec.HeldOut, rec.HeldOutAccuracy, rec.Memorising = mz.SVShare, mz.HeldOut, mz.HeldOutAcc, mz.Memorising
	// A grid search read from the run's memo counts as this job's work
	// (methods.Result.Credit), so a method's time does not depend on the
	// order the jobs of a partition ran in.
	rec.Seconds = (time.Since(start) + res.Credit).Seconds()
	rec.SharedSeconds = res.Credit.Seconds()
	sanitize(&rec)
	return rec
}

// sanitize replaces non-finite numbers, which JSON cannot hold, by 0 and
// says so in the record's notes instead of losing the record.
func sanitize(r *Record) {
	fix := func(name string, v *float64) {
		if math.IsNaN(*v) || math.IsInf(*v, 0) {
			r.Notes = append(r.Notes, fmt.Sprintf("%s was %v", name, *v))
			*v = 0
		}
	}
	fix("criterion_start", &r.CriterionStart)
	fix("criterion_end", &r.CriterionEnd)
	fix("C", &r.C)
	for i := range r.Trace {
		fix(fmt.Sprintf("trace[%d]", i), &r.Trace[i])
	}
	for i := range r.Figures {
		fix(r.Figures[i].Name, &r.Figures[i].Value)
	}
}

// jobCheckpoint opens job j's checkpoint in c.Checkpoints (nil when there is
// none): its file is named by a hash of the run and the job's key, and its
// identity is the run's fingerprint, the job and its dataset's identity, so
// that it resumes only that job of that run.
func (c *Config) jobCheckpoint(j Job, run string) (*jobCheckpoint, error) {
	if c.Checkpoints == "" {
		return nil, nil
	}
	if err := os.MkdirAll(c.Checkpoints, 0o755); err != nil {
		return nil, fmt.Errorf("checkpoints: %w", err)
	}
	k := c.key(j)
	id := CheckpointIdentity{Settings: map[string]string{"run": run, "dataset": k.Dataset, "identity": string(k.Identity), "entry": k.Entry, "partition": strconv.Itoa(k.Partition)}}
	if p := c.Provenance[j.Source.Name()]; p != nil && p.Data != nil {
		id.DataSHA256 = p.Data.SHA256
	}
	path := c.jobCheckpointPath(j, run)
	open := func() (*FileCheckpoint, error) {
		ck, err := OpenCheckpoint(path, id, true)
		if err != nil {
			return nil, fmt.Errorf("job %s: checkpoint: %w", fmt.Sprint(k), err)
		}
		return ck, nil
	}
	ck := newJobCheckpoint(open)
	if fileExists(path) { // a resume: its steps are read now
		ck.mu.Lock()
		err := ck.flush()
		ck.mu.Unlock()
		if err != nil {
			return nil, err
		}
	}
	return ck, nil
}

// jobCheckpointPath is the path of job j's checkpoint: a hash of the run
// and the job's key.
func (c *Config) jobCheckpointPath(j Job, run string) string {
	name := hashKV(map[string]string{"run": run, "job": fmt.Sprint(c.key(j))})
	return filepath.Join(c.Checkpoints, name+CheckpointSuffix)
}

// keptSteps counts the jobs not done that have a checkpoint with steps in
// c.Checkpoints, and their steps (the lines after each file's header).
func (c *Config) keptSteps(jobs []Job, done map[Key]bool, run string) (n, steps int) {
	for _, j := range jobs {
		if done[c.key(j)] {
			continue
		}
		b, err := os.ReadFile(c.jobCheckpointPath(j, run))
		if k := strings.Count(string(b), "\n") - 1; err == nil && k > 0 {
			n, steps = n+1, steps+k
		}
	}
	return n, steps
}
