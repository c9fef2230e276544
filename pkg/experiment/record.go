package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/metrics"
)

// Record is the outcome of one (dataset, method entry, partition) job: one line
// of a results file.
type Record struct {
	Dataset   string `json:"dataset"`
	Entry     string `json:"entry"` // "method[:param][@mode]"
	Method    string `json:"method"`
	Param     string `json:"param,omitempty"`
	Mode      string `json:"mode,omitempty"`
	Partition int    `json:"partition"` // 0-based

	// Run is the fingerprint of the settings that produced the record; a
	// results file only resumes or merges with records of the same run.
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
	// Settings are the run's settings that make its fingerprint
	// (Config.RunSettings: sorted keys, defaults left out), so that a
	// resume with other settings can say which differ.
	Settings map[string]string `json:"settings,omitempty"`
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

// equal reports whether two grids plan the same jobs in the same order.
func (g *Grid) equal(h *Grid) bool {
	return slices.Equal(g.Datasets, h.Datasets) && slices.Equal(g.Entries, h.Entries)
}

// Key identifies a job.
type Key struct {
	Dataset, Entry string
	Partition      int
}

// Key returns the job key of the record.
func (r *Record) Key() Key { return Key{r.Dataset, r.Entry, r.Partition} }

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
	what := "not a regular file"
	switch {
	case e.Mode&os.ModeNamedPipe != 0:
		what = "a named pipe (FIFO)"
	case e.Mode&os.ModeSocket != 0:
		what = "a socket"
	case e.Mode&os.ModeDevice != 0:
		what = "a device"
	}
	return fmt.Sprintf("%s is %s, not a results file: give a regular file (records are appended, synced and read back by --resume)", e.Path, what)
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
	if data, err = s.repairTail(path, data); err != nil {
		return err
	}
	s.prior, err = ReadRecords(bytes.NewReader(data), path)
	return err
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
// is checked (CheckRecord), and a job recorded twice must be recorded with
// the same values (wall time aside): a second record that differs is an
// error naming both lines; one that does not is dropped.
func ReadRecords(r io.Reader, name string) ([]Record, error) {
	var (
		out   []Record
		lines []int           // the line of each of out
		seen  = map[Key]int{} // index in out
	)
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := readLine(br, MaxRecordBytes)
		if errors.Is(err, errLongLine) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d MiB is not a result record (is it the right file?)", name, line, MaxRecordBytes>>20)
		}
		if err != nil && err != io.EOF {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		torn := err == io.EOF // no newline: the last line, maybe cut short
		if t := bytes.TrimSpace(b); len(t) > 0 {
			rec, perr := parseRecord(t)
			if perr != nil {
				if torn {
					break
				}
				return nil, fmt.Errorf("%s:%d: not a result record of 'kerneltune compare --out': %v", name, line, perr)
			}
			if err := checkRequired(t); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if err := CheckRecord(&rec); err != nil {
				return nil, fmt.Errorf("%s:%d: %w", name, line, err)
			}
			if i, dup := seen[rec.Key()]; !dup {
				seen[rec.Key()] = len(out)
				out, lines = append(out, rec), append(lines, line)
			} else if !sameJob(&out[i], &rec) {
				return nil, &DuplicateJobError{Key: rec.Key(),
					First: fmt.Sprintf("%s:%d", name, lines[i]), Then: fmt.Sprintf("%s:%d", name, line)}
			} else if out[i].TestConfusion == nil {
				out[i] = rec // the one that keeps the test metrics
			}
		}
		if torn {
			break
		}
	}
	return out, nil
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

// DuplicateJobError is a job recorded twice with different values. First
// and Then say where each record is: "file:line" from ReadRecords; from
// Merge, the 1-based number of each set, which MergeFiles turns into the
// files' names.
type DuplicateJobError struct {
	Key               Key
	First, Then       string
	FirstSet, ThenSet int
}

func (e *DuplicateJobError) Error() string {
	job := fmt.Sprintf("job (dataset %s, entry %s, partition %d) is recorded twice with different values", e.Key.Dataset, e.Key.Entry, e.Key.Partition)
	if e.First == "" {
		return fmt.Sprintf("%s: in record sets %d and %d", job, e.FirstSet, e.ThenSet)
	}
	if e.FirstSet == 0 {
		return fmt.Sprintf("%s: %s: at %s and %s", e.Then, job, e.First, e.Then)
	}
	return fmt.Sprintf("%s: in %s and %s", job, e.First, e.Then)
}

// sameJob reports whether two records of one job hold the same values, wall
// time aside (a job run again gives the same record), how the run was
// invoked aside (the provenance's command line and version: other --out,
// --shard, --workers or --resume compute the same job), and the test
// confusion matrix and AUC aside when one of them lacks them (written
// before they were kept).
func sameJob(a, b *Record) bool {
	x, y := *a, *b
	x.Seconds, y.Seconds, x.SharedSeconds, y.SharedSeconds = 0, 0, 0, 0
	for _, r := range []*Record{&x, &y} {
		if r.Provenance != nil {
			p := *r.Provenance
			p.Command, p.Version = "", ""
			r.Provenance = &p
		}
	}
	if x.TestConfusion == nil || y.TestConfusion == nil {
		x.TestConfusion, y.TestConfusion, x.TestAUC, y.TestAUC = nil, nil, nil, nil
	}
	bx, errx := json.Marshal(&x)
	by, erry := json.Marshal(&y)
	return errx == nil && erry == nil && bytes.Equal(bx, by)
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
		if d.Partitions < 0 {
			return fmt.Errorf("grid: dataset %s has %d partitions", d.Name, d.Partitions)
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
// uses, which every record compare writes holds (those of version 1 too):
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
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err := f.Stat(); err == nil && st.IsDir() {
		return nil, fmt.Errorf("%s is a directory, not a results file", path)
	}
	return ReadRecords(f, path)
}

// Merge combines the records of several files (the shards of one run): the
// runs must match, and a job present twice keeps its first record when the
// two hold the same values (wall time aside); otherwise the error is a
// *DuplicateJobError naming both.
func Merge(sets ...[]Record) ([]Record, error) {
	seen := map[Key]int{}  // index in out
	setOf := map[Key]int{} // 1-based set of each
	run := ""
	var out []Record
	for k, set := range sets {
		for _, r := range set {
			if run == "" {
				run = r.Run
			} else if r.Run != run {
				return nil, fmt.Errorf("%w (%s and %s)", ErrMixedRuns, run, r.Run)
			}
			if i, dup := seen[r.Key()]; dup {
				if !sameJob(&out[i], &r) {
					return nil, &DuplicateJobError{Key: r.Key(), FirstSet: setOf[r.Key()], ThenSet: k + 1}
				}
				if out[i].TestConfusion == nil {
					out[i] = r // the one that keeps the test metrics
				}
				continue
			}
			seen[r.Key()], setOf[r.Key()] = len(out), k+1
			out = append(out, r)
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
