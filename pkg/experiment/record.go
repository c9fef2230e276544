package experiment

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strings"
	"sync"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/methods"
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

	Criterion      string  `json:"criterion,omitempty"`
	CriterionStart float64 `json:"criterion_start,omitempty"`
	CriterionEnd   float64 `json:"criterion_end,omitempty"`
	// Trace holds the criterion per iteration (for the trace plots).
	Trace   []float64         `json:"trace,omitempty"`
	Figures []methods.Figure  `json:"figures,omitempty"`
	Iter    int               `json:"iterations"`
	Solves  int               `json:"svm_solves"`
	Seconds float64           `json:"seconds"` // tuning + final training wall time
	Notes   []string          `json:"notes,omitempty"`
	Extra   map[string]string `json:"extra,omitempty"`

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

// FileSink appends records to a JSONL file, one line each, synced to disk
// after every record so that Ctrl-C or a crash loses nothing already written.
type FileSink struct {
	mu sync.Mutex
	f  *os.File
}

// OpenFileSink opens path for appending records. With resume false the file
// is truncated. With resume true, a torn last line (a crash in mid-write) is
// cut off first so that the file stays valid JSONL.
func OpenFileSink(path string, resume bool) (*FileSink, error) {
	flag := os.O_CREATE | os.O_WRONLY
	if !resume {
		flag |= os.O_TRUNC
	}
	f, err := os.OpenFile(path, flag, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open results file: %w", err)
	}
	if resume {
		if err := cutTornLine(f, path); err != nil {
			f.Close()
			return nil, err
		}
	}
	if _, err := f.Seek(0, io.SeekEnd); err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &FileSink{f: f}, nil
}

// cutTornLine truncates the file after its last newline.
func cutTornLine(f *os.File, path string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("read results file: %w", err)
	}
	keep := bytes.LastIndexByte(data, '\n') + 1
	if keep == len(data) {
		return nil
	}
	if err := f.Truncate(int64(keep)); err != nil {
		return fmt.Errorf("%s: cut torn last line: %w", path, err)
	}
	return nil
}

// Write appends one record and syncs the file.
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
// file from another tool is never summarised as an empty run.
func ReadRecords(r io.Reader, name string) ([]Record, error) {
	var out []Record
	br := bufio.NewReader(r)
	for line := 1; ; line++ {
		b, err := br.ReadBytes('\n')
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
			out = append(out, rec)
		}
		if torn {
			break
		}
	}
	return out, nil
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
	if rec.Partition < 0 {
		return rec, fmt.Errorf("partition %d < 0", rec.Partition)
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
// runs must match, and a job present twice keeps its first record.
func Merge(sets ...[]Record) ([]Record, error) {
	seen := map[Key]bool{}
	run := ""
	var out []Record
	for _, set := range sets {
		for _, r := range set {
			if run == "" {
				run = r.Run
			} else if r.Run != run {
				return nil, fmt.Errorf("%w (%s and %s)", ErrMixedRuns, run, r.Run)
			}
			if seen[r.Key()] {
				continue
			}
			seen[r.Key()] = true
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
