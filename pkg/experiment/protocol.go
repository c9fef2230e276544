package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/model"
)

// Entry is one row of a comparison: a method with a parameterisation and,
// for methods with variants, a mode.
type Entry struct {
	Method string
	Param  string // "" means the method's default
	Mode   string // "" means the method's default
}

// String returns "method", "method:param", "method@mode" or
// "method:param@mode".
func (e Entry) String() string {
	s := e.Method
	if e.Param != "" {
		s += ":" + e.Param
	}
	if e.Mode != "" {
		s += "@" + e.Mode
	}
	return s
}

// ParseEntries parses a comma-separated list of "method[:param][@mode]".
// "" and "all" mean every registered method with its default parameter.
func ParseEntries(list string) ([]Entry, error) {
	list = strings.TrimSpace(list)
	if list == "" || list == "all" {
		var out []Entry
		for _, name := range methods.Names() {
			out = append(out, Entry{Method: name})
		}
		return out, nil
	}
	var out []Entry
	seen := map[string]bool{}
	for _, item := range strings.Split(list, ",") {
		item = strings.TrimSpace(item)
		if item == "" {
			continue
		}
		item, mode, hasMode := strings.Cut(item, "@")
		name, param, _ := strings.Cut(item, ":")
		m, err := methods.Lookup(name)
		if err != nil {
			return nil, err
		}
		if param != "" && !slices.Contains(m.Params(), param) {
			return nil, fmt.Errorf("experiment: method %s has no parameterisation %q (known: %s)",
				name, param, strings.Join(m.Params(), ", "))
		}
		if hasMode {
			ml, ok := m.(methods.ModeLister)
			if !ok {
				return nil, fmt.Errorf("experiment: method %s has no modes (in %q)", name, item+"@"+mode)
			}
			if !slices.Contains(ml.Modes(), mode) {
				return nil, fmt.Errorf("experiment: method %s has no mode %q (known: %s)",
					name, mode, strings.Join(ml.Modes(), ", "))
			}
		}
		e := Entry{Method: name, Param: param, Mode: mode}
		if seen[e.String()] {
			return nil, fmt.Errorf("experiment: method entry %s listed twice", e)
		}
		seen[e.String()] = true
		out = append(out, e)
	}
	if len(out) == 0 {
		return nil, errors.New("experiment: empty method list")
	}
	return out, nil
}

// Source supplies the partitions of one dataset. Partition must be
// deterministic: the same k gives the same data on every call, so every
// method sees exactly the same partitions whatever the worker count.
type Source interface {
	Name() string
	Len() int // number of partitions
	// Partition returns the raw (un-normalised) training and test parts.
	Partition(k int) (train, test *dataio.Dataset, err error)
}

// SplitSource draws the partitions of a fixed dataset from a list of splits
// (dataio.Partitions, or the predefined IDA realisations).
type SplitSource struct {
	Data   *dataio.Dataset
	Splits []dataio.Split
	// Test, when set, is the test part of every partition (a given test
	// file, compare --test: LIBSVM's a1a/a1a.t style); the splits' Test
	// indices are then not used.
	Test *dataio.Dataset
}

// Name returns the dataset name.
func (s *SplitSource) Name() string { return s.Data.Name }

// Len returns the number of splits.
func (s *SplitSource) Len() int { return len(s.Splits) }

// Partition returns split k.
func (s *SplitSource) Partition(k int) (train, test *dataio.Dataset, err error) {
	sp := s.Splits[k]
	if s.Test != nil {
		return s.Data.Subset(sp.Train), s.Test, nil
	}
	return s.Data.Subset(sp.Train), s.Data.Subset(sp.Test), nil
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
	Normalize string          // normaliser fitted on each training part; "" = zscore
	Options   methods.Options // base options for every method (Param and Seed are set per job)
	Workers   int             // concurrent jobs; 0 = all cores
	Shard     int             // 1-based index of the shard to run; 0 = all
	Shards    int             // number of shards
	// Margins sets Options.Margin per method ID (e.g. the hard margin of the
	// gi-chessboard preset for gi only: the svm baseline is a C-SVC).
	Margins map[string]string
	// Baseline, when set for a dataset, fixes the svm baseline's (C, γ) on
	// every partition of it instead of tuning (--select laanaya).
	Baseline map[string]FixedSVM
	// Grid, when set, is written into every record (Record.Grid): the whole
	// run's plan, not only this shard's jobs (NewGrid of the run's sources
	// and entries).
	Grid *Grid
	// Describe holds the user-visible settings (partition sizes, data files,
	// ...) that enter the run fingerprint beside Seed, Normalize and Options.
	Describe map[string]string
}

// Fingerprint returns the run identifier written into every record: a hash of
// every setting that changes results, including the SHA-256 of each
// SplitSource's data (not Workers or the shard, which must not).
func (c *Config) Fingerprint(entries []Entry, sources []Source) string {
	o := c.Options
	o.Recorder, o.Workers = nil, 0
	keys := make([]string, 0, len(c.Describe))
	for k := range c.Describe {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	desc := make([]string, 0, len(keys))
	for _, k := range keys {
		desc = append(desc, k+"="+c.Describe[k])
	}
	names := make([]string, 0, len(sources))
	for _, s := range sources {
		name := fmt.Sprintf("%s/%d", s.Name(), s.Len())
		if ss, ok := splitSource(s); ok {
			// The data's bytes, not only its name: --resume after the
			// file was edited must not mix results of two data sets (a
			// one-hot encoded set too, and it says it is encoded).
			name += "/" + ss.Data.SHA256
			if ss.Test != nil {
				name += "/test=" + ss.Test.SHA256
			}
			if _, enc := s.(OneHotSource); enc {
				name += "/onehot"
			}
		}
		names = append(names, name)
	}
	ents := make([]string, 0, len(entries))
	for _, e := range entries {
		ents = append(ents, e.String())
	}
	// %+v, not JSON: Options holds a func field (nil here) that JSON refuses.
	// GridRows came later: at its default it is left out, so that earlier
	// runs keep their fingerprints (and --resume still takes them).
	opts := fmt.Sprintf("%+v", o)
	if o.GridRows == 0 {
		opts = strings.Replace(opts, " GridRows:0 ", " ", 1)
	}
	b := fmt.Appendf(nil, "seed=%d normalize=%s options=%s margins=%v describe=%q sources=%q entries=%q",
		c.Seed, c.normalize(), opts, c.Margins, desc, names, ents)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

func (c *Config) normalize() string {
	if c.Normalize == "" {
		return "zscore"
	}
	return c.Normalize
}

// Job is one (dataset, entry, partition) unit of work.
type Job struct {
	Source    Source
	Entry     Entry
	Partition int
}

// Key returns the job's key.
func (j Job) Key() Key { return Key{j.Source.Name(), j.Entry.String(), j.Partition} }

// Plan lists the jobs of a run in a fixed order (dataset, partition, entry),
// restricted to the configured shard: job i belongs to shard (i mod N) + 1.
func (c *Config) Plan(sources []Source, entries []Entry) []Job {
	var jobs []Job
	i := 0
	for _, s := range sources {
		for k := 0; k < s.Len(); k++ {
			for _, e := range entries {
				if c.Shards <= 1 || i%c.Shards == c.Shard-1 {
					jobs = append(jobs, Job{Source: s, Entry: e, Partition: k})
				}
				i++
			}
		}
	}
	return jobs
}

// Progress is called after every finished job with the counts so far.
type Progress func(done, total int, last *Record)

// Run runs the jobs not already in done, writes each record to sink as soon
// as it is produced, and returns the new records. A method that fails on one
// partition is recorded with status "failure" and the run goes on;
// cancellation stops the run (records already written stay) and returns the
// context's error. The records of a run do not depend on Workers.
func Run(ctx context.Context, c Config, jobs []Job, run string, done map[Key]bool, sink Sink, progress Progress) ([]Record, error) {
	todo := make([]Job, 0, len(jobs))
	for _, j := range jobs {
		if !done[j.Key()] {
			todo = append(todo, j)
		}
	}
	workers, inner := c.jobWorkers(len(todo))

	var (
		mu       sync.Mutex
		out      []Record
		firstErr error
		finished = len(jobs) - len(todo)
	)
	ch := make(chan Job)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for j := range ch {
				rec := runJob(ctx, c, inner, j, run)
				if ctx.Err() != nil {
					return // a cancelled job is not recorded: resume redoes it
				}
				err := sink.Write(&rec)
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
// cores, at most n) and the options every job gets: with more than one at
// once, parallel across jobs, not inside them (Options.Workers 1). "All
// cores" is GOMAXPROCS, as the methods count them: it follows a container's
// CPU limit, where NumCPU counts the host's cores (64 jobs at once, and 64
// times the memory, in a 2-CPU container on a 64-core host).
func (c *Config) jobWorkers(n int) (int, methods.Options) {
	workers := c.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	workers = min(workers, max(n, 1))
	inner := c.Options
	if workers > 1 {
		inner.Workers = 1
	}
	return workers, inner
}

// entryOptions returns the options of entry e's jobs: opts with the entry's
// parameterisation and mode, and its method's margin from Margins.
func (c *Config) entryOptions(opts methods.Options, e Entry) methods.Options {
	opts.Param, opts.Mode = e.Param, e.Mode
	if mg, ok := c.Margins[e.Method]; ok {
		opts.Margin = mg
	}
	return opts
}

// JobSeed is the method seed of partition k: the same for every method and
// every worker count, different between partitions.
func JobSeed(seed uint64, k int) uint64 {
	return rand.New(rand.NewPCG(seed, streamMethod+uint64(k))).Uint64()
}

// runJob runs one method on one partition: normalise on the training part,
// tune, train the final SVM on the whole training part, test.
func runJob(ctx context.Context, c Config, opts methods.Options, j Job, run string) Record {
	rec := Record{
		Dataset: j.Source.Name(), Entry: j.Entry.String(), Method: j.Entry.Method,
		Param: j.Entry.Param, Mode: j.Entry.Mode, Partition: j.Partition, Run: run, Seed: c.Seed,
		Grid: c.Grid,
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
	norm, err := dataio.FitNormalizer(c.normalize(), train.X)
	if err != nil {
		return fail("normalise", err)
	}
	train, test = norm.ApplyDataset(train), norm.ApplyDataset(test)

	m, err := methods.Lookup(j.Entry.Method)
	if err != nil {
		return fail("method", err)
	}
	opts = c.entryOptions(opts, j.Entry)
	opts.Seed = JobSeed(c.Seed, j.Partition)
	var res *methods.Result
	if f, ok := c.Baseline[j.Source.Name()]; ok && j.Entry.Method == "svm" {
		res = fixedResult(f)
		rec.Extra = map[string]string{"select": "laanaya (looked at test data)"}
	} else {
		res, err = tuneSafely(ctx, m, train, opts)
	}
	if err != nil {
		return fail("tune", err)
	}
	rec.Status = res.Status.String()
	rec.Param = res.Param
	rec.Kernel, rec.Margin, rec.C = res.Kernel, res.Margin, res.C
	if !dataio.DefaultFeatureNames(train.FeatureNames) {
		rec.Features = train.FeatureNames
	}
	rec.Criterion, rec.CriterionStart, rec.CriterionEnd = res.Criterion, res.CriterionStart, res.CriterionEnd
	rec.Figures, rec.Iter, rec.Solves, rec.Notes = res.Figures, res.Iter, res.Solves, res.Notes
	for _, s := range res.Trace {
		rec.Trace = append(rec.Trace, s.Objective)
	}

	margin, err := model.ParseMargin(res.Margin)
	if err != nil {
		return fail("final model", err)
	}
	fit, err := model.Fit(ctx, model.FitSettings{
		Train: train, Test: test, Norm: norm, Kernel: res.Kernel, Margin: margin, C: res.C,
		Eps: opts.Eps, CacheMB: opts.CacheMB, Workers: min(opts.Workers, 2), // 1 when jobs run in parallel
	})
	if err != nil {
		return fail("final model", err)
	}
	mdl := fit.Model
	rec.Solves++
	rec.NSV = fit.SVC.NSV
	deg := methods.ClassifyDegenerate(mdl.KernelFunc(), train.X, mdl.C, mdl.DecisionNormalized(train.X))
	rec.Degenerate, rec.DegenerateReason = deg.Kind, deg.Reason
	rec.TrainAccuracy = fit.TrainAccuracy
	rec.TestAccuracy = math.NaN() // an empty test part, as Model.Accuracy
	if fit.TestAccuracy != nil {
		rec.TestAccuracy = *fit.TestAccuracy
	}
	rec.Seconds = time.Since(start).Seconds()
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

// tuneSafely runs a method and turns a panic inside it into a failure record,
// so that one broken partition never takes a long run down.
func tuneSafely(ctx context.Context, m methods.Method, train *dataio.Dataset, opts methods.Options) (res *methods.Result, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%s: internal error: %v", m.Name(), p)
		}
	}()
	res, err = m.Tune(ctx, train, opts)
	if err == nil && res == nil {
		err = fmt.Errorf("%s: returned no result", m.Name())
	}
	return res, err
}
