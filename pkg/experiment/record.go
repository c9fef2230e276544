package experiment

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/metrics"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// Record is the outcome of one (dataset, method entry, partition) job: one line
// of a results file.
type Record struct {
	// SchemaVersion is the version of the record's schema (SchemaVersion;
	// docs/output.md): ReadRecords refuses a record of another version, or
	// of none (a pre-release kerneltune's).
	SchemaVersion int `json:"schema_version"`
	// Dataset is the dataset's display name; Identity what it is, the
	// hash of DatasetIdentity (its data, how it was read, partitioned and
	// normalised): a job is keyed by both (Key).
	Dataset         string           `json:"dataset"`
	Identity        Identity         `json:"identity,omitempty"`
	DatasetIdentity *DatasetIdentity `json:"dataset_identity,omitempty"`
	Entry           string           `json:"entry"` // "method[:param][@mode]"
	Method          string           `json:"method"`
	Param           string           `json:"param,omitempty"`
	Mode            string           `json:"mode,omitempty"`
	Partition       int              `json:"partition"` // 0-based

	// Run is the run id, the hash of Settings (RunSettings.ID); a results
	// file resumes only with records of the same run.
	Run  string `json:"run"`
	Seed uint64 `json:"seed"`

	Status string `json:"status"` // the method's status, or "failure"
	Error  string `json:"error,omitempty"`

	TestAccuracy  float64 `json:"test_accuracy"`
	TrainAccuracy float64 `json:"train_accuracy"`
	NSV           int     `json:"nsv"`
	TrainSize     int     `json:"train_size"`
	TestSize      int     `json:"test_size"`
	// TestConfusion is the test part's confusion matrix (rows the true
	// class, columns the predicted, with the class labels), from which
	// report recomputes any metric (pkg/metrics); TestAUC is the test
	// part's AUC of the decision values, for a binary problem whose test
	// part holds both classes. Records written before they were kept have
	// neither: report gives their accuracy only.
	TestConfusion *metrics.Confusion `json:"test_confusion,omitempty"`
	TestAUC       *float64           `json:"test_auc,omitempty"`

	Kernel kernel.Spec `json:"kernel"`
	// GammaSpace names the features the kernel's γ (and Q, θ) act on: the
	// kind of the normaliser fitted on the partition's training part
	// (dataio.SpaceWords says it in words; "none": the data's features as
	// given, where γ is svm-train's -g). Absent in records written before
	// it was recorded and in failed jobs'.
	GammaSpace string `json:"gamma_space,omitempty"`
	// Features names the kernel's features (the figures label per-feature
	// weights with them); set only when the data names them (a CSV header),
	// not for the f1, …, fd that readers make up.
	Features []string `json:"features,omitempty"`
	// Constant lists the 1-based features with one value on the partition's
	// training part: their kernel weights were not learned, and the figures
	// do not show them as relevance.
	Constant []int   `json:"constant_features,omitempty"`
	Margin   string  `json:"margin,omitempty"`
	C        float64 `json:"C,omitempty"`

	// Degenerate classifies the learned kernel and the final SVM on the
	// training part (methods.ClassifyDegenerate): "diagonal", "constant",
	// "one-class", or "" (not degenerate, or a failed job); DegenerateReason
	// says what was measured.
	Degenerate       string `json:"degenerate,omitempty"`
	DegenerateReason string `json:"degenerate_reason,omitempty"`
	// SVShare, HeldOut, HeldOutAccuracy and Memorising are the memorising
	// check of the final model (RecordMemorisation, CheckMemorisation): the
	// share of the training rows that are support vectors, where the
	// held-out accuracy it compares train_accuracy with comes from ("cv",
	// "validation", "test") and that accuracy, and whether the model is
	// flagged. Records written before the check have none of them; report
	// computes them from the record's other fields.
	SVShare         float64 `json:"sv_share,omitempty"`
	HeldOut         string  `json:"held_out,omitempty"`
	HeldOutAccuracy float64 `json:"held_out_accuracy,omitempty"`
	Memorising      bool    `json:"memorising,omitempty"`
	// Pairs, for multi-class data, are the final model's binary SVMs in
	// LIBSVM's order (the pairs of classes one-vs-one, each class against
	// the rest one-vs-rest): each one's kernel, margin, C and degenerate
	// check (Kernel, Margin and C above are the first one's, Degenerate
	// the first degenerate one's). DegeneratePairs counts the degenerate
	// ones, which the tables show ("3 of 15 pairs"). Records written
	// before issue 35 have neither; report then counts degenerate runs.
	Pairs           []RecordPair `json:"pairs,omitempty"`
	DegeneratePairs int          `json:"degenerate_pairs,omitempty"`

	Criterion      string  `json:"criterion,omitempty"`
	CriterionStart float64 `json:"criterion_start,omitempty"`
	CriterionEnd   float64 `json:"criterion_end,omitempty"`
	// Trace holds the criterion per iteration (for the trace plots).
	Trace   []float64        `json:"trace,omitempty"`
	Figures []methods.Figure `json:"figures,omitempty"`
	// LearnedOn is the training rows the kernel and C were learned on when
	// fewer than TrainSize (large data: a stratified subset of
	// --kernel-rows rows, the final SVM on all); absent when all.
	LearnedOn int     `json:"learned_on_rows,omitempty"`
	Iter      int     `json:"iterations"`
	Solves    int     `json:"svm_solves"`
	Seconds   float64 `json:"seconds"` // tuning + final training wall time
	// SharedSeconds is the part of Seconds that another job of the run
	// spent for this one: a grid search read from the run's memo
	// (methods.GridMemo), charged to every method that uses it. The job's
	// own wall time is Seconds - SharedSeconds.
	SharedSeconds float64           `json:"shared_seconds,omitempty"`
	Notes         []string          `json:"notes,omitempty"`
	Extra         map[string]string `json:"extra,omitempty"`

	// Grid is what the whole run planned (every dataset with its partition
	// count, every entry), the same in every record of a run, so that any
	// subset of its records (one shard, a run stopped early) knows how many
	// jobs are missing. Records written before the grid was recorded have
	// none; report then infers the grid from the records and says so.
	Grid *Grid `json:"grid,omitempty"`
	// Settings are the run's settings, which its id (Run) hashes
	// (Config.RunSettings), so that a resume with other settings can say
	// which differ and report can merge runs that agree on every
	// (dataset, method) pair they share.
	Settings *RunSettings `json:"settings,omitempty"`
	// Provenance says where the record's data came from and what made the
	// run (version, command line or study file); records written before
	// it was recorded have none.
	Provenance *Provenance `json:"provenance,omitempty"`
}

// RecordPair is one binary SVM of a multi-class record: class Positive
// (+1) against class Negative, or, with Rest, against every other class
// (Negative is then "not Positive").
type RecordPair struct {
	Positive         string      `json:"class_pos"`
	Negative         string      `json:"class_neg"`
	Rest             bool        `json:"rest,omitempty"`
	Kernel           kernel.Spec `json:"kernel"`
	Margin           string      `json:"margin,omitempty"`
	C                float64     `json:"C,omitempty"`
	Degenerate       string      `json:"degenerate,omitempty"`
	DegenerateReason string      `json:"degenerate_reason,omitempty"`
}

// countDegenerate returns the number of degenerate pairs.
func countDegenerate(pairs []RecordPair) int {
	n := 0
	for _, p := range pairs {
		if p.Degenerate != "" {
			n++
		}
	}
	return n
}

// Grid is the (dataset × partition × entry) grid a run planned, in the order
// the user gave: datasets as on the command line, entries as in --methods.
type Grid struct {
	Datasets []GridDataset `json:"datasets"`
	Entries  []string      `json:"entries"`
}

// GridDataset is one planned dataset and its number of partitions.
type GridDataset struct {
	Name       string `json:"name"`
	Partitions int    `json:"partitions"`
}

// MaxPartitions bounds a run's partitions: compare's --partitions, a
// study's partitions, and what a record read says (CheckRecord: a grid of
// 2⁶³−1 partitions would have report count its missing jobs for ever,
// issue 42, item 14).
const MaxPartitions = 100_000

// NewGrid returns the grid of a run over sources and entries.
func NewGrid(sources []Source, entries []Entry) *Grid {
	g := &Grid{}
	for _, s := range sources {
		g.Datasets = append(g.Datasets, GridDataset{Name: s.Name(), Partitions: s.Len()})
	}
	for _, e := range entries {
		g.Entries = append(g.Entries, e.String())
	}
	return g
}

// Jobs returns the number of jobs the grid plans.
func (g *Grid) Jobs() int {
	n := 0
	for _, d := range g.Datasets {
		n += d.Partitions * len(g.Entries)
	}
	return n
}

// Key identifies a job: its dataset (display name and identity), entry and
// partition. Two datasets of one name but different identities are two
// datasets: their jobs are never one job.
type Key struct {
	Dataset   string
	Identity  Identity
	Entry     string
	Partition int
}

// Key returns the job key of the record.
func (r *Record) Key() Key { return Key{r.Dataset, r.Identity, r.Entry, r.Partition} }

// Failed reports whether the job failed.
func (r *Record) Failed() bool { return r.Status == StatusFailure }

// StatusFailure is the status of a job whose method or final training failed.
const StatusFailure = "failure"

// Sink receives records as they are produced.
type Sink interface {
	Write(r *Record) error
}

// FileSink appends records to a JSONL file, one line each. The file is
// opened in append mode and locked (an advisory flock, held until Close, so
// that a second run on the same file is refused at once), every record is
// one write, and the file is synced after every record (the end of a job),
// so that Ctrl-C, kill -9 or a crash loses nothing already written and
// leaves at most one torn last line.
type FileSink struct {
	mu      sync.Mutex
	f       *os.File
	regular bool     // a regular file (synced); not /dev/null or a pipe
	prior   []Record // the records the file held when opened
}

// LockedError is a results file that another process is writing: its lock
// is held. PID is the holder's process id, 0 when it cannot be told.
type LockedError struct {
	Path string
	PID  int
}

func (e *LockedError) Error() string {
	who := "another kerneltune run"
	if e.PID > 0 {
		who = fmt.Sprintf("another kerneltune run (pid %d)", e.PID)
	}
	return fmt.Sprintf("%s is being written by %s: wait for it to end, or choose another file", e.Path, who)
}

// DirectoryError is a results file path that names a directory.
type DirectoryError struct{ Path string }

func (e *DirectoryError) Error() string {
	return fmt.Sprintf("%s is a directory, not a results file", e.Path)
}

// NotRegularError is a results file path that names a FIFO, a socket or a
// device: records are appended, synced and read back, which only a regular
// file allows.
type NotRegularError struct {
	Path string
	Mode os.FileMode
}

func (e *NotRegularError) Error() string {
	return fmt.Sprintf("%s is %s, not a results file: give a regular file (records are appended, synced and read back by --resume)", e.Path, outfile.Describe(e.Mode))
}

// OpenFileSink opens path for appending records and locks it (a
// *LockedError when another process holds it). With resume false the file
// must be new or empty (a *ResultsExistError otherwise). With resume true
// its records are read (Records) after its last line is repaired: a last
// line without its newline (a crash between the record and its newline) is
// completed when it is a whole record, so that the record read as done
// stays in the file, and cut off when it is torn, so that its job runs
// again.
func OpenFileSink(path string, resume bool) (*FileSink, error) {
	if st, err := os.Stat(path); err == nil && st.IsDir() {
		return nil, &DirectoryError{path}
	} else if err == nil && !st.Mode().IsRegular() && path != os.DevNull {
		// A FIFO (or >(cmd)) whose reader is gone blocked the run forever
		// in a write; a device is no results file either. /dev/null, which
		// throws the records away, is allowed.
		return nil, &NotRegularError{Path: path, Mode: st.Mode()}
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR|os.O_APPEND, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results file: %w", err)
	}
	s := &FileSink{f: f}
	if err := s.open(path, resume); err != nil {
		f.Close()
		return nil, err
	}
	return s, nil
}

func (s *FileSink) open(path string, resume bool) error {
	if err := lockFile(s.f, path); err != nil {
		return err
	}
	st, err := s.f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	s.regular = st.Mode().IsRegular()
	if !s.regular {
		return nil // /dev/null, a pipe: nothing to read back
	}
	if st.Size() > 0 && !resume {
		return &ResultsExistError{path}
	}
	data, err := io.ReadAll(io.NewSectionReader(s.f, 0, st.Size()))
	if err != nil {
		return fmt.Errorf("read results file: %w", err)
	}
	// The whole file is checked before its last line is repaired: a file
	// that is not a results file (notes.txt) is refused as it is.
	if _, err := ReadRecords(bytes.NewReader(data), path); err != nil {
		return err
	}
	if err := checkTornTail(path, data); err != nil {
		return err
	}
	if data, err = s.repairTail(path, data); err != nil {
		return err
	}
	s.prior, err = ReadRecords(bytes.NewReader(data), path)
	return err
}

// recordStart is how every record's line begins (json.Marshal of a Record:
// its first field).
const recordStart = `{"schema_version":`

// checkTornTail refuses a last line without its newline that is neither a
// whole record nor the start of one (ReadRecords skips such a line as torn,
// and repairTail would cut it): a file of other text whose last line has no
// newline is not a results file.
func checkTornTail(path string, data []byte) error {
	keep := bytes.LastIndexByte(data, '\n') + 1
	t := bytes.TrimSpace(data[keep:])
	n := min(len(t), len(recordStart))
	if len(t) == 0 || string(t[:n]) == recordStart[:n] {
		return nil
	}
	line := bytes.Count(data, []byte("\n")) + 1
	return fmt.Errorf("%s:%d: not a result record of 'kerneltune compare --out' (a last line without a newline that is not the start of a record)", path, line)
}

// repairTail completes a newline-less last line that is a whole record and
// cuts off one that is torn; it returns the file's content after.
func (s *FileSink) repairTail(path string, data []byte) ([]byte, error) {
	keep := bytes.LastIndexByte(data, '\n') + 1
	if keep == len(data) {
		return data, nil
	}
	if t := bytes.TrimSpace(data[keep:]); len(t) == 0 || wholeRecord(t) {
		if _, err := s.f.Write([]byte("\n")); err != nil {
			return nil, fmt.Errorf("%s: complete the last line: %w", path, err)
		}
		if err := s.f.Sync(); err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return append(data, '\n'), nil
	}
	if err := s.f.Truncate(int64(keep)); err != nil {
		return nil, fmt.Errorf("%s: cut torn last line: %w", path, err)
	}
	return data[:keep], nil
}

// wholeRecord reports whether b, a last line without its newline, is a
// whole record (ReadRecords counts it) rather than a torn one (skipped).
func wholeRecord(b []byte) bool {
	_, err := parseRecord(b)
	return err == nil
}

// Records returns the records the file held when it was opened.
func (s *FileSink) Records() []Record { return s.prior }

// Write appends one record, in one write, and syncs the file.
func (s *FileSink) Write(r *Record) error {
	b, err := json.Marshal(r)
	if err != nil {
		return fmt.Errorf("encode record %v: %w", r.Key(), err)
	}
	b = append(b, '\n')
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, err := s.f.Write(b); err != nil {
		return fmt.Errorf("write record: %w", err)
	}
	if !s.regular {
		return nil
	}
	return s.f.Sync()
}

// Close closes the file.
func (s *FileSink) Close() error { return s.f.Close() }

// MemorySink keeps records in memory (tests, and runs without --out).
type MemorySink struct {
	mu      sync.Mutex
	Records []Record
}

// Write stores a copy of r.
func (s *MemorySink) Write(r *Record) error {
	s.mu.Lock()
	s.Records = append(s.Records, *r)
	s.mu.Unlock()
	return nil
}

// ErrMixedRuns is returned when records of different runs are merged.
var ErrMixedRuns = errors.New("records come from runs with different settings")

// ReadRecords reads a JSONL results file. A torn last line (a crash in
// mid-write: the file does not end in a newline) is skipped; any other line
// that is not a record written by compare is an error naming it, so that a
// file from another tool is never summarised as an empty run. Each record
// is checked (CheckRecord), and a job recorded twice is counted once by
// the rules of every merge (jobSet.add): the same result twice is kept
// once, two different results are a *DuplicateJobError naming both lines
// and what differs.
func ReadRecords(r io.Reader, name string) ([]Record, error) {
	set, err := readRecordSet(r, name)
	return set.recs, err
}

// readRecordSet is ReadRecords with the line of each record kept, for the
// errors of a merge (mergeSets).
func readRecordSet(r io.Reader, name string) (recordSet, error) {
	var jobs jobSet
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := readLine(br, MaxRecordBytes)
		if errors.Is(err, errLongLine) {
			return recordSet{}, fmt.Errorf("%s:%d: a line longer than %d MiB is not a result record (is it the right file?)", name, line, MaxRecordBytes>>20)
		}
		if err != nil && err != io.EOF {
			return recordSet{}, fmt.Errorf("read %s: %w", name, err)
		}
		torn := err == io.EOF // no newline: the last line, maybe cut short
		if t := bytes.TrimSpace(b); len(t) > 0 {
			rec, perr := parseRecord(t)
			if perr != nil {
				if torn {
					break
				}
				return recordSet{}, fmt.Errorf("%s:%d: not a result record of 'kerneltune compare --out': %v", name, line, perr)
			}
			if err := checkVersion(rec.SchemaVersion); err != nil {
				return recordSet{}, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if err := checkRequired(t); err != nil {
				return recordSet{}, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if err := CheckRecord(&rec); err != nil {
				return recordSet{}, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if err := jobs.add(rec, RecordPos{name, line}); err != nil {
				return recordSet{}, err
			}
		}
		if torn {
			break
		}
	}
	return recordSet{name: name, recs: jobs.recs, at: jobs.at}, nil
}

// MaxRecordBytes bounds one line of a results file: a record with its
// trace and figures is some KiB; /dev/zero given as a results file was read
// until the memory ran out.
var MaxRecordBytes = 64 << 20

var errLongLine = errors.New("line too long")

// readLine is bufio.Reader.ReadBytes('\n') that gives up with errLongLine
// once the line is longer than limit bytes.
func readLine(br *bufio.Reader, limit int) ([]byte, error) {
	var out []byte
	for {
		b, err := br.ReadSlice('\n')
		out = append(out, b...)
		if len(out) > limit {
			return nil, errLongLine
		}
		if err != bufio.ErrBufferFull {
			return out, err
		}
	}
}

// RecordPos is where a record was read: a results file and its 1-based
// line, or (Line 0) a set of records given in Go ("record set 2" of Merge).
type RecordPos struct {
	File string
	Line int
}

func (p RecordPos) String() string {
	if p.Line == 0 {
		return p.File
	}
	return fmt.Sprintf("%s:%d", p.File, p.Line)
}

// DuplicateJobError is a job recorded twice with different results: First
// and Then say where each record is, Diff what differs.
type DuplicateJobError struct {
	Key Key
	// First and Then are the files (or Merge's "record set K") of the two
	// records, FirstLine and ThenLine their lines (0 outside a file).
	First, Then         string
	FirstLine, ThenLine int
	// Diff are the record fields that differ, "field first-value vs
	// value" (a long value by its field's name alone).
	Diff []string
}

func (e *DuplicateJobError) Error() string {
	first, then := RecordPos{e.First, e.FirstLine}, RecordPos{e.Then, e.ThenLine}
	return fmt.Sprintf("%s: job (dataset %s, entry %s, partition %d) is recorded twice with different values: at %s and %s (%s)",
		then, e.Key.Dataset, e.Key.Entry, e.Key.Partition, first, then, strings.Join(e.Diff, "; "))
}

// jobSet is the one record-deduplication helper: ReadRecords (the lines of
// one file), Merge (the shards of a run) and MergeFiles (several runs) add
// their records to one. A job is its Key (the dataset's name and identity,
// MergeFiles giving each identity of a name its own name, the entry and
// the partition). The same
// result twice is kept once, the first record unless a later one adds the
// test metrics it lacks; two different results (resultDiff) are a
// *DuplicateJobError naming both places and what differs.
type jobSet struct {
	recs []Record
	at   []RecordPos // where each of recs was read
	seen map[Key]int // index in recs
}

func (s *jobSet) add(r Record, at RecordPos) error {
	if s.seen == nil {
		s.seen = map[Key]int{}
	}
	i, dup := s.seen[r.Key()]
	if !dup {
		s.seen[r.Key()] = len(s.recs)
		s.recs, s.at = append(s.recs, r), append(s.at, at)
		return nil
	}
	if d := resultDiff(&s.recs[i], &r); len(d) > 0 {
		return &DuplicateJobError{Key: r.Key(), First: s.at[i].File, FirstLine: s.at[i].Line,
			Then: at.File, ThenLine: at.Line, Diff: d}
	}
	if s.recs[i].TestConfusion == nil && r.TestConfusion != nil {
		s.recs[i], s.at[i] = r, at // the one that keeps the test metrics
	}
	return nil
}

// resultDiff lists what differs between two records of one job, by their
// JSON fields: none when they hold the same result. Aside are the wall
// time (a job run again gives the same record), how the run was invoked
// (the provenance's command line and version: other --out, --shard,
// --workers or --resume compute the same job; its read options as spelled), the test confusion matrix
// and AUC when one of them lacks them (written before they were kept),
// the gamma space when one lacks it (written before it was recorded), the
// provenance when one lacks it,
// the memorising check (derived from the other fields), and, for records
// of two different runs (which only MergeFiles merges,
// after checking their settings pair by pair), what identifies the run:
// its id, settings, provenance and grid.
func resultDiff(a, b *Record) []string {
	x, y := *a, *b
	x.Seconds, y.Seconds, x.SharedSeconds, y.SharedSeconds = 0, 0, 0, 0
	for _, r := range []*Record{&x, &y} {
		// The memorising check is computed from the record's other
		// fields (RecordMemorisation); a record written before it was
		// recorded lacks it.
		r.SVShare, r.HeldOut, r.HeldOutAccuracy, r.Memorising = 0, "", 0, false
		if a.Run != b.Run {
			r.Run, r.Settings, r.Provenance, r.Grid = "", nil, nil, nil
		} else if r.Provenance != nil {
			p := *r.Provenance
			p.Command, p.Version = "", ""
			if p.Data != nil {
				// The read options as spelled: a default spelled out
				// (--features 13 on 13 features) reads the same data;
				// what they resolved to (format, features, labels, rows)
				// is the rest of Data (issue 42, item 16).
				d := *p.Data
				d.Read = nil
				p.Data = &d
			}
			r.Provenance = &p
		}
	}
	if x.TestConfusion == nil || y.TestConfusion == nil {
		x.TestConfusion, y.TestConfusion, x.TestAUC, y.TestAUC = nil, nil, nil, nil
	}
	if x.Provenance == nil || y.Provenance == nil {
		// One written without provenance: it says nothing to compare.
		x.Provenance, y.Provenance = nil, nil
	}
	if x.GammaSpace == "" || y.GammaSpace == "" {
		x.GammaSpace, y.GammaSpace = "", ""
	}
	fields := func(r *Record) map[string]json.RawMessage {
		var m map[string]json.RawMessage
		b, err := json.Marshal(r)
		if err == nil {
			err = json.Unmarshal(b, &m)
		}
		if err != nil {
			return map[string]json.RawMessage{"(unencodable)": json.RawMessage(err.Error())}
		}
		return m
	}
	mx, my := fields(&x), fields(&y)
	var out []string
	for _, k := range keysOfBoth(mx, my) {
		vx, vy := mx[k], my[k]
		if bytes.Equal(vx, vy) {
			continue
		}
		if len(vx) > 40 || len(vy) > 40 {
			out = append(out, k)
			continue
		}
		out = append(out, fmt.Sprintf("%s %s vs %s", k, cmp.Or(string(vx), "(none)"), cmp.Or(string(vy), "(none)")))
	}
	return out
}

// CheckRecord checks that a record's numbers are in range: accuracies in
// [0, 1], counts, sizes and times not negative, and a partition, dataset and
// entry within the record's grid when it has one. ReadRecords calls it.
func CheckRecord(r *Record) error {
	for _, f := range []struct {
		name string
		v    float64
	}{{"test_accuracy", r.TestAccuracy}, {"train_accuracy", r.TrainAccuracy}} {
		if !(f.v >= 0 && f.v <= 1) {
			return fmt.Errorf("%s %v is not in [0, 1]", f.name, f.v)
		}
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"partition", r.Partition}, {"nsv", r.NSV}, {"train_size", r.TrainSize}, {"test_size", r.TestSize},
		{"iterations", r.Iter}, {"svm_solves", r.Solves}} {
		if f.v < 0 {
			return fmt.Errorf("%s %d < 0", f.name, f.v)
		}
	}
	if err := dataio.CheckName(r.Dataset); err != nil {
		return err
	}
	if d := r.DatasetIdentity; d != nil && r.Identity != d.ID() {
		return fmt.Errorf("identity %q is not that of its dataset_identity (%s): the record was edited", r.Identity, d.ID())
	}
	if r.Partition >= MaxPartitions {
		return fmt.Errorf("partition %d is outside the bound of a run (at most %d partitions: 0 to %d)", r.Partition, MaxPartitions, MaxPartitions-1)
	}
	if !(r.Seconds >= 0) || math.IsInf(r.Seconds, 0) {
		return fmt.Errorf("seconds %v is not a wall time", r.Seconds)
	}
	if r.NSV > r.TrainSize && r.TrainSize > 0 {
		return fmt.Errorf("nsv %d > train_size %d", r.NSV, r.TrainSize)
	}
	if c := r.TestConfusion; c != nil {
		if err := c.Check(); err != nil {
			return fmt.Errorf("test_confusion: %w", err)
		}
		if n := c.Total(); n != r.TestSize {
			return fmt.Errorf("test_confusion counts %d rows, test_size is %d", n, r.TestSize)
		}
		// The accuracy is the confusion matrix's (methods compute one from
		// the other): a record whose two disagree was edited.
		if n := c.Total(); n > 0 && math.Abs(c.Accuracy()-r.TestAccuracy) > 1e-9 {
			return fmt.Errorf("test_accuracy %v contradicts test_confusion (%d of %d test rows right: %v)", r.TestAccuracy, c.Correct(), n, c.Accuracy())
		}
	}
	if a := r.TestAUC; a != nil && !(*a >= 0 && *a <= 1) {
		return fmt.Errorf("test_auc %v is not in [0, 1]", *a)
	}
	// degenerate_pairs is optional (older records have no pairs), but when
	// given it is the pairs' own count.
	if n := countDegenerate(r.Pairs); r.DegeneratePairs != n {
		return fmt.Errorf("degenerate_pairs %d contradicts pairs (%d of %d degenerate)", r.DegeneratePairs, n, len(r.Pairs))
	}
	g := r.Grid
	if g == nil {
		return nil
	}
	if !slices.Contains(g.Entries, r.Entry) {
		return fmt.Errorf("entry %q is not in the run's grid (%s)", r.Entry, strings.Join(g.Entries, ", "))
	}
	for _, d := range g.Datasets {
		if d.Partitions < 0 || d.Partitions > MaxPartitions {
			return fmt.Errorf("grid: dataset %s has %d partitions, outside the bound of a run (0 to %d, as compare's --partitions)", d.Name, d.Partitions, MaxPartitions)
		}
		if d.Name == r.Dataset {
			if r.Partition >= d.Partitions {
				return fmt.Errorf("partition %d is outside the run's grid (%s has %d partitions: 0 to %d)",
					r.Partition, d.Name, d.Partitions, d.Partitions-1)
			}
			return nil
		}
	}
	return fmt.Errorf("dataset %q is not in the run's grid", r.Dataset)
}

// RequiredFields are the fields of a record that a table or a statistic
// uses, which every record compare writes holds:
// ReadRecords refuses a record that lacks one or holds null (as pandas
// writes a NaN), since it would be read as 0.
var RequiredFields = []string{"partition", "test_accuracy", "nsv", "train_size", "test_size", "iterations", "svm_solves", "seconds"}

// checkRequired checks that the record b holds every field of
// RequiredFields, not null.
func checkRequired(b []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return err
	}
	var missing, null []string
	for _, k := range RequiredFields {
		v, ok := m[k]
		switch {
		case !ok:
			missing = append(missing, k)
		case string(bytes.TrimSpace(v)) == "null":
			null = append(null, k)
		}
	}
	switch {
	case len(missing) > 0:
		return fmt.Errorf("no field %s (every record compare writes has one; it would be read as 0)", strings.Join(missing, ", "))
	case len(null) > 0:
		return fmt.Errorf("field %s is null, not a number (every record compare writes has one; it would be read as 0)", strings.Join(null, ", "))
	}
	return nil
}

// VersionError is a record of a schema version this kerneltune does not
// read: Version 0 is a record without one, written by a pre-release
// kerneltune.
type VersionError struct{ Version int }

func (e *VersionError) Error() string {
	if e.Version == 0 {
		return fmt.Sprintf("a record without a schema_version, written by a pre-release kerneltune: this version reads records of schema version %d only; rerun the comparison to write them anew", SchemaVersion)
	}
	return fmt.Sprintf("a record of schema_version %d: this kerneltune reads schema version %d only; read it with the kerneltune that wrote it, or rerun the comparison", e.Version, SchemaVersion)
}

// checkVersion refuses a record of another schema version than this
// kerneltune's.
func checkVersion(v int) error {
	if v != SchemaVersion {
		return &VersionError{Version: v}
	}
	return nil
}

// parseRecord decodes one line and checks that it identifies a job.
func parseRecord(b []byte) (Record, error) {
	var rec Record
	if err := json.Unmarshal(b, &rec); err != nil {
		return rec, err
	}
	var missing []string
	for _, f := range []struct{ name, v string }{
		{"dataset", rec.Dataset}, {"entry", rec.Entry}, {"method", rec.Method}, {"run", rec.Run}, {"status", rec.Status},
	} {
		if f.v == "" {
			missing = append(missing, f.name)
		}
	}
	if len(missing) > 0 {
		return rec, fmt.Errorf("no %s", strings.Join(missing, ", "))
	}
	return rec, nil
}

// ReadRecordsFile reads a results file by name.
func ReadRecordsFile(path string) ([]Record, error) {
	set, err := readRecordSetFile(path)
	return set.recs, err
}

func readRecordSetFile(path string) (recordSet, error) {
	f, err := os.Open(path)
	if err != nil {
		return recordSet{}, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return recordSet{}, fmt.Errorf("%s is a directory, not a results file", path)
	}
	return readRecordSet(f, path)
}

// Merge combines sets of records of one run (the shards of a run, or a
// resumed file's records and the new ones) by the rules of every merge
// (mergeSets): the runs must match (ErrMixedRuns), a job present twice
// counts once when the two hold the same result; otherwise the error is a
// *DuplicateJobError naming both ("record set K").
func Merge(sets ...[]Record) ([]Record, error) {
	rs := make([]recordSet, len(sets))
	run := ""
	for k, set := range sets {
		for _, r := range set {
			if run == "" {
				run = r.Run
			} else if r.Run != run {
				return nil, fmt.Errorf("%w (%s and %s)", ErrMixedRuns, run, r.Run)
			}
		}
		rs[k] = recordSet{name: fmt.Sprintf("record set %d", k+1), recs: set}
	}
	return mergeSets(rs)
}

// recordSet is a set of records to merge and where each was read (at; nil
// outside a file).
type recordSet struct {
	name string
	recs []Record
	at   []RecordPos
}

// mergeSets is the one merge path (Merge, MergeFiles): every record goes
// through one jobSet, in order; when the records span several runs (which
// MergeFiles checks pair by pair before) every record gets the union of
// their grids (of every record read, a duplicate's too), so that the
// report counts the jobs of all of them. The records are returned sorted
// (SortRecords).
func mergeSets(sets []recordSet) ([]Record, error) {
	var (
		jobs jobSet
		all  []Record
		runs = map[string]bool{}
	)
	for _, s := range sets {
		for i, r := range s.recs {
			at := RecordPos{File: s.name}
			if s.at != nil {
				at = s.at[i]
			}
			if err := jobs.add(r, at); err != nil {
				return nil, err
			}
			runs[r.Run] = true
		}
		all = append(all, s.recs...)
	}
	out := jobs.recs
	if len(runs) > 1 {
		g := unionGrid(all) // a duplicate's run planned its jobs too
		for i := range out {
			out[i].Grid = g
		}
	}
	SortRecords(out)
	return out, nil
}

// SortRecords orders records by dataset, entry and partition, so that output
// never depends on the order in which workers finished.
func SortRecords(rs []Record) {
	sort.SliceStable(rs, func(i, j int) bool {
		a, b := rs[i], rs[j]
		if a.Dataset != b.Dataset {
			return a.Dataset < b.Dataset
		}
		if a.Entry != b.Entry {
			return a.Entry < b.Entry
		}
		return a.Partition < b.Partition
	})
}

// keysOfBoth returns the keys of a and b, each once, sorted.
func keysOfBoth[V any](a, b map[string]V) []string {
	keys := slices.Collect(maps.Keys(a))
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}
