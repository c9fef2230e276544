package experiment

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/methods"
)

// DefaultData are the embedded datasets Compare runs on when it is given
// no datasets (FileSpecs of no paths): heart and breast-wisconsin (Laanaya et al. 2011,
// Table 2) and diabetes (Yang's Pima).
var DefaultData = []string{"builtin:heart", "builtin:breast-wisconsin", "builtin:diabetes"}

// DefaultPartitions is the number of partitions of a dataset when
// DatasetSettings.Partitions is 0 (Laanaya et al. 2011, §3).
const DefaultPartitions = dataio.DefaultPartitions

// CompareSettings are the settings of a comparison (compare): data only,
// what to run and how, so that two runs of equal settings are the same run
// (what a caller does around the run, such as printing progress, is an
// Observer's). The zero value of a field means its default. What to run on
// is said one way, by Datasets (or, for partitions the caller draws,
// Sources; or a Preset).
type CompareSettings struct {
	// Entries are the methods compared with their settings, in the tables'
	// order; nil means every method with its default settings.
	Entries []Entry

	// Datasets are the datasets, in the tables' order, each read and
	// partitioned with its own settings: FileSpecs for files that share
	// their settings (the command line), a study's list (study.Configure).
	// Without Datasets, Sources and Preset, Compare runs on
	// FileSpecs(DefaultData, DatasetSettings{}).
	Datasets []DatasetSettings
	// Sources, when set (without Preset), are the datasets with their
	// partitions drawn by the caller; Datasets is then not used.
	Sources []Source
	// Preset, when its Name is set, runs a paper's experiment on generated
	// data (LookupPreset): its sources, its entries unless Entries is set,
	// and its margins (the gi-chessboard preset's hard margin for gi).
	// Datasets is then not used.
	Preset PresetRun
	// Stdin is read for a dataset whose path is "-".
	Stdin io.Reader

	// Seed draws the partitions and seeds the methods; Normalize, Base
	// and Workers are Config's (the results do not depend on Workers).
	Seed      uint64
	Normalize string
	Base      methods.Common
	Workers   int
	// Loop is what the caller gives every entry's own loop besides Base
	// (the command line's --max-iter, --log2c and --log2g): each entry
	// takes the fields it has (methods.ApplyLoop), on Entries, a preset's
	// or the default ones; a zero field keeps the entry's own.
	Loop methods.Loop
	// Shard of Shards (1-based, ParseShard) runs only the shard's jobs of
	// the run, the shards balanced by expected cost (Config.Plan,
	// AssignShards); 0 and 0 run all of them.
	Shard, Shards int
	// LaanayaSelect fixes the svm baseline of every dataset by
	// LaanayaSelect instead of tuning it (it looks at test data).
	LaanayaSelect bool
	// MemBytes bounds the estimated peak memory of the jobs that run at
	// once (EstimateMemory; sysmem.Bound makes one from a size in MB): a
	// run that would need more is refused with a *MemoryError once the
	// datasets are read, before any job runs and Out is opened. 0 means
	// no bound.
	MemBytes int64

	// Out, when set, is the results file: one JSON line per job as soon as
	// it finishes. Unless Resume is set it must be new or empty; with
	// Resume the jobs it holds are skipped (they must be of the same run).
	Out    string
	Resume bool

	// Provenance is what made the run (version, command line or study
	// file): every record carries it with its dataset's DataProvenance.
	Provenance Provenance
}

// NoticeKind says what a Notice reports.
type NoticeKind int

const (
	// NoticeBaseline: LaanayaSelect chose Baseline for Dataset.
	NoticeBaseline NoticeKind = iota
	// NoticeDefaultTrainSize: with a given test file and --partitions but
	// no --train-size, each partition trains on the default TrainSize rows
	// of the Rows of the training file Dataset, which a user who meant the
	// whole file would not guess from the table.
	NoticeDefaultTrainSize NoticeKind = iota + 1
	// NoticeSmallTrainPart: without a test file, each of the Partitions
	// partitions of Dataset trains on the default TrainSize rows and tests
	// on TestSize, under a tenth (dataio.SmallTrainPart) of its Rows.
	NoticeSmallTrainPart
	// NoticeResumeMidJob: Jobs jobs cut short in an earlier run resume from
	// their checkpoints (Config.Checkpoints), Steps steps done between them.
	NoticeResumeMidJob
)

// Notice is what a comparison tells its caller before the jobs run:
// Prepared.Notices, and Observer.Notice for Laanaya's baselines.
type Notice struct {
	Kind     NoticeKind
	Dataset  string
	Baseline FixedSVM
	Rows     int
	// TrainSize, TestSize and Partitions are the settings'
	// (NoticeDefaultTrainSize, NoticeSmallTrainPart).
	TrainSize, TestSize, Partitions int
	// Jobs and Steps: NoticeResumeMidJob.
	Jobs, Steps int
}

// CompareResult is the outcome of Compare.
type CompareResult struct {
	// Run is the fingerprint of the settings, written into every record.
	Run     string
	Entries []Entry
	// Grid is the whole run's plan (every shard's jobs).
	Grid *Grid
	// Jobs is the number of jobs of this shard (of the run without shards).
	Jobs int
	// Resumed is the number of records that were already in Out.
	Resumed int
	// Records are this shard's records, those of Out included, sorted by
	// dataset, entry and partition.
	Records []Record
	// Failures counts the failed records (a failed job is recorded, not an
	// error of Compare).
	Failures int
	// Baselines are the svm baselines chosen by LaanayaSelect, by dataset.
	Baselines map[string]FixedSVM
}

// Errors of Compare that are the caller's settings, not the data or the work.
var (
	// ErrNoSVM: LaanayaSelect chooses the svm baseline, and no entry is svm.
	ErrNoSVM = errors.New("Laanaya's selection chooses the svm baseline's (C, γ): no entry is svm")
	// ErrNoRealisations: Predefined on a dataset without realisations.
	ErrNoRealisations = dataio.ErrNoRealisations
)

// EntryError is an entry whose method refuses its settings on any data
// (methods.Spec.Check), so every one of its jobs would fail.
type EntryError struct {
	Entry Entry
	Err   error
}

func (e *EntryError) Error() string {
	return fmt.Sprintf("entry %s refuses the settings: %v", e.Entry, e.Err)
}

func (e *EntryError) Unwrap() error { return e.Err }

// DuplicateDataError is a dataset path given twice in Data.
type DuplicateDataError struct{ Path string }

func (e *DuplicateDataError) Error() string {
	return fmt.Sprintf("dataset %s is given twice", e.Path)
}

// SourceError is a dataset whose partitions cannot be drawn, or a study's
// dataset that cannot be opened (dataio.DatasetError).
type SourceError = dataio.DatasetError

// ResultsExistError is a results file that holds records while Resume is off:
// truncating it would throw away the finished jobs of an interrupted run.
type ResultsExistError struct{ Path string }

func (e *ResultsExistError) Error() string {
	return fmt.Sprintf("%s already holds results (resume that run, or start afresh in another file)", e.Path)
}

// OtherRunError is a results file to resume whose records are of a run with
// other settings. Diff names the settings that differ ("key: theirs →
// this run's"), when the records say what their settings were.
type OtherRunError struct {
	Path, Run, Want string
	Diff            []string
}

func (e *OtherRunError) Error() string {
	msg := fmt.Sprintf("%s was written by a run with other settings (run %s, this run %s)", e.Path, e.Run, e.Want)
	switch {
	case len(e.Diff) > 0:
		msg += ": " + strings.Join(e.Diff, "; ")
	default:
		msg += "; its records do not say what their settings were"
	}
	return msg
}

func (e *OtherRunError) Unwrap() error { return ErrMixedRuns }

// Compare runs the comparison protocol (Laanaya et al. 2011, §3):
// Prepare, then Run with no Observer.
func Compare(ctx context.Context, s CompareSettings) (*CompareResult, error) {
	p, err := Prepare(ctx, s)
	if err != nil {
		return nil, err
	}
	return p.Run(ctx, Observer{})
}

// Prepared is a comparison read, planned and checked (Prepare), not yet
// run: a dry run shows its Plan; a command prints its Notices, sets the
// collector's limit from Live and prepares its outputs before Run.
type Prepared struct {
	// Plan is what Run will do: the datasets as read, the jobs, notes.
	Plan *Plan
	// Notices are what reading the datasets found (a training file no
	// larger than the training size, say).
	Notices []Notice
	// Live is the run's estimated live data (methods.GCLimit of the jobs
	// at once of its largest memory estimate), 0 when it cannot be told:
	// a command gives it to the collector as its soft limit
	// (sysmem.LimitGCTo), so that the resident set stays under the
	// estimate.
	Live int64

	s       CompareSettings
	cfg     Config
	sources []Source
	entries []Entry
	jobs    []Job
}

// Observer hears a comparison as it runs (a command's display); the zero
// value hears nothing. It is not part of the settings: it changes no
// record.
type Observer struct {
	// Progress, when set, is called after every finished job.
	Progress Progress
	// Notice, when set, is told of Laanaya's baseline of each dataset as
	// it is chosen (LaanayaSelect), before the jobs run.
	Notice func(Notice)
}

// Prepare reads the datasets and draws their partitions, resolves the
// entries (a preset's, the default ones; Loop and Base applied and
// checked), plans the jobs of the shard, and refuses before any job runs
// an entry whose method would refuse the options and a run that would need
// more memory than MemBytes. It opens no file but the data.
func Prepare(ctx context.Context, s CompareSettings) (*Prepared, error) {
	cfg := Config{
		Seed: s.Seed, Normalize: s.Normalize, Workers: s.Workers, Shard: s.Shard, Shards: s.Shards,
		Base: s.Base, Select: SelectCV, Preset: s.Preset.Name,
	}
	if s.LaanayaSelect {
		cfg.Select = SelectLaanaya
	}
	entries, sources, err := s.entriesAndPreset()
	if err != nil {
		return nil, err
	}
	p := &Prepared{s: s, entries: entries}
	specs := s.Datasets
	if sources != nil {
		specs = nil
	} else if specs == nil {
		specs = FileSpecs(DefaultData, DatasetSettings{})
	}
	if specs != nil {
		if sources, p.Notices, err = s.datasetSources(ctx, specs); err != nil {
			return nil, err
		}
	}
	cfg.Provenance = s.provenance(sources)
	jobs := cfg.Plan(sources, entries)
	worst, err := s.checkRun(cfg, sources, entries, len(jobs))
	if err != nil {
		return nil, err
	}
	if worst != nil && worst.Bytes > 0 {
		p.Live = methods.GCLimit(worst.Bytes)
	}
	p.cfg, p.sources, p.jobs = cfg, sources, jobs
	p.Plan = s.plan(cfg, sources, entries, len(jobs))
	return p, nil
}

// Run runs the prepared comparison: it opens and locks Out, resumes from
// it, runs the jobs of the shard and returns their records. A job that
// fails is a failed record; the error is non-nil when the comparison
// cannot go on (a results file of another run, cancellation: the records
// already written to Out stay). A Prepared runs once.
func (p *Prepared) Run(ctx context.Context, obs Observer) (*CompareResult, error) {
	s, cfg, sources, entries, jobs := &p.s, p.cfg, p.sources, p.entries, p.jobs
	res := &CompareResult{Entries: entries}
	// Out is opened and locked before any work (Laanaya's selection
	// included), so that a second writer is refused at once.
	sink, prior, closeSink, err := openSink(s.Out, s.Resume)
	if err != nil {
		return nil, err
	}
	defer closeSink()
	if s.LaanayaSelect {
		if err := laanaya(ctx, &cfg, sources, entries, res, obs.Notice); err != nil {
			return nil, err
		}
	}
	if err := resumeRun(&cfg, res, s.Out, prior, sources, entries); err != nil {
		return nil, err
	}
	cfg.Identity = cfg.identities()
	res.Jobs = len(jobs)
	done := map[Key]bool{}
	for i := range prior {
		// Of the run (checkPrior), and so of its datasets' identities.
		done[prior[i].Key()] = true
	}
	if fs, ok := sink.(*FileSink); ok && fs.regular {
		cfg.Checkpoints = JobCheckpointDir(s.Out) // a job cut short resumes mid-job
		if n, steps := cfg.keptSteps(jobs, done, res.Run); n > 0 && obs.Notice != nil {
			obs.Notice(Notice{Kind: NoticeResumeMidJob, Jobs: n, Steps: steps})
		}
	}
	recs, err := Run(ctx, cfg, jobs, res.Run, done, sink, obs.Progress)
	if err != nil {
		return nil, err
	}
	if cfg.Checkpoints != "" {
		// Every job is recorded: what is left there is of other runs of
		// this file, which can no longer resume into it.
		os.RemoveAll(cfg.Checkpoints)
	}
	if res.Records, err = Merge(prior, recs); err != nil {
		return nil, err
	}
	res.Resumed = len(prior)
	res.Failures = CountFailures(res.Records)
	return res, nil
}

// CheckEntries checks the entries the settings run, completed as Prepare
// completes them (entriesAndPreset), without reading any data: a command
// checks its flags with it before it runs anything. The error of an entry
// that refuses the settings is an *EntryError.
func (s *CompareSettings) CheckEntries() error {
	_, _, err := s.entriesAndPreset()
	return err
}

// entriesAndPreset returns the run's entries, complete: s.Entries, the
// preset's or the default ones, with the preset's margins, s.Loop and
// cfg's shared settings (Base), each checked before any data is read or
// any job runs (methods.Spec.Check: C -1 for every method, C 1 for
// twolevel, which learns C, folds for the methods that cross-validate);
// and the preset's sources (nil without a preset; drawn when a job runs).
// A job gives its entry the job's seed and workers (runJob).
func (s *CompareSettings) entriesAndPreset() ([]Entry, []Source, error) {
	entries, sources := s.Entries, s.Sources
	var margins map[string]string
	if s.Preset.Name != "" {
		p, ok := LookupPreset(s.Preset.Name)
		if !ok {
			return nil, nil, fmt.Errorf("unknown preset %q", s.Preset.Name)
		}
		pr := s.Preset
		src, pe, err := p.Build(PresetSettings{Partitions: pr.Partitions, TrainSize: pr.TrainSize, TestSize: pr.TestSize, Seed: s.Seed})
		if err != nil {
			return nil, nil, err
		}
		sources, margins = src, p.Margins
		if entries == nil {
			entries = pe
		}
	}
	if entries == nil {
		var err error
		if entries, err = ParseEntries("default"); err != nil {
			return nil, nil, err
		}
	}
	entries = slices.Clone(withMargins(entries, margins))
	for i := range entries {
		spec, err := methods.ApplyLoop(entries[i].Spec, s.Loop)
		if err == nil {
			spec = spec.WithBase(s.Base)
			err = spec.Check()
		}
		if err != nil {
			return nil, nil, &EntryError{Entry: entries[i], Err: err}
		}
		entries[i].Spec = spec
	}
	return entries, sources, nil
}

// checkRun refuses, once the datasets are read and before any job runs, a
// run whose data do not fit its entries (sizes, memory, features); it
// returns the run's largest memory estimate (worstEstimate; nil when it
// cannot be told and MemBytes sets no bound).
func (s *CompareSettings) checkRun(cfg Config, sources []Source, entries []Entry, jobs int) (*MemoryEstimate, error) {
	shapes, err := trainShapes(sources)
	if err != nil {
		return nil, err
	}
	if err := checkSize(cfg, sources, shapes, entries); err != nil {
		return nil, err
	}
	worst, err := worstEstimate(cfg, sources, shapes, entries, jobs)
	if err != nil && s.MemBytes > 0 {
		return nil, err
	}
	if err := checkMemory(worst, s.MemBytes); err != nil {
		return nil, err
	}
	return worst, checkFeatures(sources, shapes, entries)
}

// plan is the dry run's Plan.
func (s *CompareSettings) plan(cfg Config, sources []Source, entries []Entry, shardJobs int) *Plan {
	p := &Plan{Run: cfg.Fingerprint(entries, sources), Jobs: NewGrid(sources, entries).Jobs(),
		ShardJobs: shardJobs, Shard: s.Shard, Shards: s.Shards}
	for _, src := range sources {
		if pv := cfg.Provenance[src.Name()]; pv != nil {
			p.Datasets = append(p.Datasets, pv.Data)
		}
	}
	for _, e := range entries {
		p.Entries = append(p.Entries, e.String())
	}
	p.Notes = append(planNotes(sources, len(entries)), classNotes(sources)...)
	p.Notes = append(p.Notes, sparseNotes(cfg, sources, entries, shardJobs)...)
	return p
}

// sparseNotes are a dry run's notes on the datasets held in compressed
// rows (issue 46): their non-zeros and the memory estimate of their
// largest entry, which counts the non-zeros (methods.SparseWidth), and the
// entries that do not learn on sparse data (methods.CheckSparse): each of
// their jobs will be recorded as failed with that refusal.
func sparseNotes(cfg Config, sources []Source, entries []Entry, jobs int) []hint.Text {
	var notes []hint.Text
	for _, src := range sources {
		f, ok := fixedOf(src)
		if !ok || !f.data.IsSparse() {
			continue
		}
		n, d := f.data.Dims()
		nnz := f.data.Sparse.NNZ()
		var refused []string
		var learn []Entry
		for _, e := range entries {
			if methods.CheckSparse(e.Spec, f.data) != nil {
				refused = append(refused, e.String())
			} else {
				learn = append(learn, e)
			}
		}
		text := fmt.Sprintf("%s: held in compressed rows, %d non-zeros in %d rows × %d features (%.3g%%)", src.Name(), nnz, n, d, 100*f.data.Sparse.Density())
		if est, err := EstimateMemory(cfg, []Source{src}, learn, jobs); err == nil && len(est) > 0 {
			w := est[0]
			for _, e := range est[1:] {
				if e.Bytes > w.Bytes {
					w = e
				}
			}
			text += fmt.Sprintf(": the memory estimates count them (%d values a row, not %d): the jobs at once about %d MB, the largest %s's on %d training rows", w.W, d, ceilMB(w.Bytes), w.Entry, w.N)
		}
		switch len(refused) {
		case 0:
		case 1:
			text += fmt.Sprintf("; %s does not learn on sparse data: each of its jobs will be recorded as failed, with the reason", refused[0])
		default:
			text += fmt.Sprintf("; %s do not learn on sparse data: each of their jobs will be recorded as failed, with the reason", strings.Join(refused, ", "))
		}
		notes = append(notes, hint.T(text))
	}
	return notes
}

// resumeRun sets the run's identifier, settings and grid on cfg and res
// (once Laanaya's selection has put its baselines in cfg.Baseline),
// checking that the records of out being resumed (prior) are of the same
// run (checkPrior).
func resumeRun(cfg *Config, res *CompareResult, out string, prior []Record, sources []Source, entries []Entry) error {
	settings := cfg.RunSettings(entries, sources)
	res.Run = settings.ID()
	cfg.Grid = NewGrid(sources, entries)
	res.Grid = cfg.Grid
	if err := checkPrior(out, prior, res.Run, settings); err != nil {
		return err
	}
	cfg.Settings = &settings
	return nil
}

// openSink opens the results file out (a MemorySink when out is ""), locked
// for the run, with the records it already holds when resuming.
func openSink(out string, resume bool) (Sink, []Record, func(), error) {
	if out == "" {
		return &MemorySink{}, nil, func() {}, nil
	}
	fs, err := OpenFileSink(out, resume)
	if err != nil {
		return nil, nil, nil, err
	}
	return fs, fs.Records(), func() { fs.Close() }, nil
}

// checkPrior checks that the records of out being resumed are all of
// run, whose settings are settings. Otherwise the error names what
// differs: an *OtherDataError when only the datasets' identities differ
// (each record carries its own: the data, read, partitioned or normalised
// otherwise), else an *OtherRunError.
func checkPrior(out string, prior []Record, run string, settings RunSettings) error {
	for i := range prior {
		r := &prior[i]
		if r.Run == run {
			continue
		}
		if r.Settings == nil {
			return &OtherRunError{Path: out, Run: r.Run, Want: run}
		}
		if e := otherData(out, r, settings); e != nil {
			return e
		}
		return &OtherRunError{Path: out, Run: r.Run, Want: run, Diff: DiffSettings(*r.Settings, settings)}
	}
	return nil
}

// otherData returns the *OtherDataError of a record of another run than
// settings' whose settings differ from them only in the identity of a
// dataset (its first such dataset), nil otherwise.
func otherData(out string, r *Record, settings RunSettings) *OtherDataError {
	theirs := *r.Settings
	if len(theirs.Datasets) != len(settings.Datasets) {
		return nil
	}
	theirs.Datasets = slices.Clone(theirs.Datasets)
	var first *OtherDataError
	for i, d := range theirs.Datasets {
		now := settings.Datasets[i]
		if d.Name != now.Name || d.Identity.ID() == now.Identity.ID() {
			continue
		}
		if first == nil {
			first = &OtherDataError{Path: out, Dataset: d.Name, Diff: dataDiff(d.Identity, now.Identity)}
		}
		theirs.Datasets[i].Identity = now.Identity
	}
	if first == nil || theirs.ID() != settings.ID() {
		return nil
	}
	return first
}

// uniqueNames gives data sets that share a name (a/heart.dat and
// b/heart.dat are both "heart") their paths as names: records are keyed by
// the name, so the second set's results would silently replace the first's.
// The same path given twice is an error.
func uniqueNames(parts []*dataio.Partitioned) error {
	count := map[string]int{}
	for _, p := range parts {
		count[p.Name()]++
	}
	seen := map[string]bool{}
	for _, p := range parts {
		path := p.Spec.Path
		if seen[path] {
			return &DuplicateDataError{path}
		}
		seen[path] = true
		if count[p.Name()] > 1 {
			p.Rename(path)
		}
	}
	return nil
}

// laanaya fixes the svm baseline of every dataset by Laanaya's selection
// (best test rate on the first five partitions); notify, when set, is told
// of each.
func laanaya(ctx context.Context, cfg *Config, sources []Source, entries []Entry, res *CompareResult, notify func(Notice)) error {
	var sp *methods.Space // the svm entry's grid: the user's, or grid.py's
	for _, e := range entries {
		if sv, ok := e.Spec.(methods.SVMSettings); ok && sp == nil {
			sp = &sv.Space
		}
	}
	if sp == nil {
		return ErrNoSVM
	}
	cfg.Baseline = map[string]FixedSVM{}
	for _, src := range sources {
		f, err := LaanayaSelect(ctx, *cfg, src, *sp)
		if err != nil {
			return err
		}
		cfg.Baseline[src.Name()] = f
		if notify != nil {
			notify(Notice{Kind: NoticeBaseline, Dataset: src.Name(), Baseline: f})
		}
	}
	res.Baselines = cfg.Baseline
	return nil
}

// ErrShard is the error of ParseShard.
var ErrShard = errors.New("a shard is i/N with 1 ≤ i ≤ N")

// ParseShard parses a shard "i/N" (1 ≤ i ≤ N), CompareSettings.Shard and
// Shards; "" is the whole run (0, 0).
func ParseShard(s string) (i, n int, err error) {
	if s == "" {
		return 0, 0, nil
	}
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || n < 1 || i < 1 || i > n {
		return 0, 0, fmt.Errorf("%w, got %q", ErrShard, s)
	}
	return i, n, nil
}

// CountFailures returns the number of failed records.
func CountFailures(rs []Record) int {
	n := 0
	for i := range rs {
		if rs[i].Failed() {
			n++
		}
	}
	return n
}
