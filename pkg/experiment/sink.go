package experiment

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/kerneltune/kerneltune/pkg/hint"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

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

func (e *NotRegularError) Error() string { return e.Words().String() }

// Words is the message of e.
func (e *NotRegularError) Words() hint.Text {
	return hint.T(fmt.Sprintf("%s is %s, not a results file: give a regular file (records are appended, synced and read back by ", e.Path, outfile.Describe(e.Mode)), hint.S("resume", ""), ")")
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
	return hint.Errorf(nil, fmt.Sprintf("%s:%d: not a result record of 'kerneltune compare ", path, line), hint.S("out", ""), "' (a last line without a newline that is not the start of a record)")
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
