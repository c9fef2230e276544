package experiment

// Checkpoints: the outcomes of a tune's steps (methods.Checkpoint) in a
// file beside its output, appended and synced one line each as a results
// file's records are, so that a tune (or a job of compare) cut by a signal
// or kill -9 resumes at the step it was at.

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/kerneltune/kerneltune/pkg/methods"
	"github.com/kerneltune/kerneltune/pkg/outfile"
)

// CheckpointSchema is the version of the checkpoint file's format (its
// header's schema_version): a file of another version is refused.
const CheckpointSchema = 1

// CheckpointSuffix is what a checkpoint's path adds to its output's
// (m.json's checkpoint is m.json.checkpoint).
const CheckpointSuffix = ".checkpoint"

// CheckpointIdentity is what a checkpoint is of: the settings of the run
// (canonical keys and values, as RunSettings makes them) and the SHA-256 of
// the data (and of the test file). A run resumes a checkpoint only when both
// are its own.
type CheckpointIdentity struct {
	Settings   map[string]string `json:"settings"`
	DataSHA256 string            `json:"data_sha256"`
	TestSHA256 string            `json:"test_sha256,omitempty"`
}

// checkpointHeader is a checkpoint file's first line.
type checkpointHeader struct {
	Kind          string `json:"kind"`
	SchemaVersion int    `json:"schema_version"`
	SettingsHash  string `json:"settings_hash"`
	CheckpointIdentity
}

const checkpointKind = "kerneltune checkpoint"

// checkpointLine is one step's outcome (methods.Checkpoint: opaque bytes,
// base64 in JSON).
type checkpointLine struct {
	Key     string `json:"key"`
	Outcome []byte `json:"outcome"`
}

// TuneIdentity is the identity of a tune's checkpoint: the method's
// settings (the shared ones as RunSettings lists them: the workers, the
// progress and the checkpoint left out, since no outcome depends on them),
// the seed, how the data were read, split and normalised (read, any struct
// of settings: its exported fields that are not zero, functions, readers
// and memory bounds left out), whether probabilities are fitted, the
// kerneltune version, and the data's and the test file's SHA-256.
func TuneIdentity(s TuneSettings, read any) CheckpointIdentity {
	kv := map[string]string{"method": s.Spec.Name(), "version": s.Version}
	if s.Probability {
		kv["probability"] = "true"
	}
	base := s.Spec.Base()
	base.Workers, base.Recorder, base.Progress, base.Checkpoint, base.Grids = 0, nil, nil, nil, nil
	settingsOf(kv, "method.", reflect.ValueOf(s.Spec.WithBase(base)))
	if read != nil {
		settingsOf(kv, "data.", reflect.ValueOf(read))
	}
	id := CheckpointIdentity{Settings: kv}
	if s.Train != nil {
		id.DataSHA256 = s.Train.SHA256
	}
	if s.Test != nil && s.TestFile != "" {
		id.TestSHA256 = s.Test.SHA256
	}
	return id
}

// settingsOf adds the fields of the struct v that are not zero to kv under
// prefix ("key" → value as fmt prints it): embedded structs (a spec's
// Common) flattened, other structs under their field's name; functions,
// interfaces (a reader, a checkpoint), pointers and memory bounds left out.
func settingsOf(kv map[string]string, prefix string, v reflect.Value) {
	if v.Kind() == reflect.Pointer {
		v = v.Elem()
	}
	t := v.Type()
	for i := 0; i < t.NumField(); i++ {
		f, fv := t.Field(i), v.Field(i)
		switch {
		case !f.IsExported(), fv.Kind() == reflect.Func, fv.Kind() == reflect.Interface, fv.Kind() == reflect.Pointer, strings.HasPrefix(f.Name, "Mem"):
		case f.Anonymous && fv.Kind() == reflect.Struct: // a spec's Common
			settingsOf(kv, prefix, fv)
		case fv.Kind() == reflect.Struct:
			settingsOf(kv, prefix+f.Name+".", fv)
		case !fv.IsZero():
			kv[prefix+f.Name] = fmt.Sprint(fv.Interface())
		}
	}
}

// FileCheckpoint is a methods.Checkpoint in a JSONL file: a header (the
// schema version, the settings' hash and the identity), then one line per
// step, each appended in one write (and synced at most a second later:
// CheckpointSync). The
// file is locked while open (a second run on it is refused, naming its
// pid).
type FileCheckpoint struct {
	mu   sync.Mutex
	f    *os.File
	path string
	// m holds the outcomes the file held when opened (a resume replays
	// them); at says where the line of each outcome this run recorded lies
	// in the file, read back if asked for (Outcome). Holding this run's
	// outcomes themselves made every step's state live in memory until the
	// run ended: on ten classes of 778 features, gi's 4,500 steps of 30 kB
	// kept the heap at the memory limit, and the collector ran 1,400 times
	// (6.1 s against 0.44 s without -o).
	m   map[string][]byte
	at  map[string]lineSpan
	end int64 // the file's length: where the next line goes
	n   int   // the outcomes the file held when opened
	// synced is when the file was last synced (write).
	synced time.Time
}

// CheckpointExistsError is a checkpoint left by an interrupted run, found
// by a run that was not asked to resume it: starting afresh would throw its
// steps away.
type CheckpointExistsError struct {
	Path  string
	Steps int
}

func (e *CheckpointExistsError) Error() string {
	return fmt.Sprintf("%s holds %d steps of an interrupted run: resume it, or delete the file to start afresh", e.Path, e.Steps)
}

// OtherCheckpointError is a checkpoint of another run: other settings or
// other data. Diff names what differs ("key: the checkpoint's → this
// run's").
type OtherCheckpointError struct {
	Path string
	Diff []string
}

func (e *OtherCheckpointError) Error() string {
	return fmt.Sprintf("%s is the checkpoint of another run: %s", e.Path, strings.Join(e.Diff, "; "))
}

// NotCheckpointError is a file at a checkpoint's path that is not one.
type NotCheckpointError struct {
	Path string
	Line int
	Why  string
}

func (e *NotCheckpointError) Error() string {
	return fmt.Sprintf("%s:%d: not a kerneltune checkpoint: %s", e.Path, e.Line, e.Why)
}

// OpenCheckpoint opens the checkpoint at path for the run id. A file that
// is missing or empty starts a new checkpoint. A file with steps is read
// when resume is set (its last line cut if a crash tore it) and refused
// otherwise (*CheckpointExistsError); one of another run is refused
// (*OtherCheckpointError, naming what differs), as is a file that is not a
// checkpoint.
func OpenCheckpoint(path string, id CheckpointIdentity, resume bool) (*FileCheckpoint, error) {
	st, err := os.Stat(path)
	if err == nil && !st.Mode().IsRegular() {
		return nil, &NotCheckpointError{Path: path, Line: 1, Why: "it is " + outfile.Describe(st.Mode()) + ", not a regular file"}
	}
	created := errors.Is(err, os.ErrNotExist)
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, fmt.Errorf("open checkpoint: %w", err)
	}
	c := &FileCheckpoint{f: f, path: path, m: map[string][]byte{}, at: map[string]lineSpan{}, synced: time.Now()} // the header needs no sync of its own
	if err := c.open(id, resume); err != nil {
		f.Close()
		if created { // a full disk: no file of ours is left
			os.Remove(path)
		}
		return nil, err
	}
	return c, nil
}

func (c *FileCheckpoint) open(id CheckpointIdentity, resume bool) error {
	if err := lockFile(c.f, c.path); err != nil {
		return err
	}
	data, err := io.ReadAll(io.LimitReader(c.f, maxCheckpointBytes+1))
	if err != nil {
		return fmt.Errorf("read checkpoint %s: %w", c.path, err)
	}
	if len(data) > maxCheckpointBytes {
		return &NotCheckpointError{Path: c.path, Line: 1, Why: fmt.Sprintf("larger than %d MB", maxCheckpointBytes>>20)}
	}
	want := checkpointHeader{Kind: checkpointKind, SchemaVersion: CheckpointSchema, SettingsHash: hashKV(id.Settings), CheckpointIdentity: id}
	keep := 0 // the bytes of whole lines read
	if len(data) > 0 {
		var h checkpointHeader
		if h, keep, err = c.read(data); err != nil {
			return err
		}
		switch {
		case c.n > 0 && !resume:
			return &CheckpointExistsError{Path: c.path, Steps: c.n}
		case !resume || keep == 0:
			keep, c.m, c.n = 0, map[string][]byte{}, 0 // nothing to resume: a new checkpoint
		case h.SchemaVersion != CheckpointSchema:
			return &OtherCheckpointError{Path: c.path, Diff: []string{fmt.Sprintf("schema_version: %d → %d", h.SchemaVersion, CheckpointSchema)}}
		default:
			if d := diffCheckpoint(h.CheckpointIdentity, want.CheckpointIdentity); len(d) > 0 {
				return &OtherCheckpointError{Path: c.path, Diff: d}
			}
		}
	}
	// What follows the last whole line (a line torn by a crash) is cut;
	// a new file gets its header.
	if err := c.f.Truncate(int64(keep)); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	if _, err := c.f.Seek(int64(keep), io.SeekStart); err != nil {
		return fmt.Errorf("checkpoint %s: %w", c.path, err)
	}
	c.end = int64(keep)
	if keep == 0 {
		b, _ := json.Marshal(want)
		return c.write(append(b, '\n'))
	}
	return nil
}

// maxCheckpointBytes bounds what is read of a checkpoint (a results file's
// line bound).
const maxCheckpointBytes = 1 << 30

// read reads the header and the steps of data, and returns the header
// and the length of the whole lines.
func (c *FileCheckpoint) read(data []byte) (h checkpointHeader, keep int, err error) {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, len(data)+1)
	line := 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		whole := keep+len(b) < len(data) // followed by its newline
		if !whole {
			break // torn by a crash: the step runs again
		}
		if line == 1 {
			if err := json.Unmarshal(b, &h); err != nil || h.Kind != checkpointKind {
				return h, 0, &NotCheckpointError{Path: c.path, Line: 1, Why: "its first line is not a checkpoint's header"}
			}
		} else {
			var l checkpointLine
			if err := json.Unmarshal(b, &l); err != nil || l.Key == "" {
				return h, 0, &NotCheckpointError{Path: c.path, Line: line, Why: "not a step's outcome"}
			}
			if _, dup := c.m[l.Key]; !dup {
				c.n++
			}
			c.m[l.Key] = l.Outcome
		}
		keep += len(b) + 1
	}
	if line == 0 || (line == 1 && keep == 0) {
		// Only a header torn by a crash, or nothing: check that it is
		// one's start, not another file's.
		if !bytes.HasPrefix([]byte(`{"kind":"`+checkpointKind+`"`), bytes.TrimSpace(data)[:min(len(bytes.TrimSpace(data)), 9)]) {
			return h, 0, &NotCheckpointError{Path: c.path, Line: 1, Why: "its first line is not a checkpoint's header"}
		}
	}
	return h, keep, nil
}

// diffCheckpoint names what differs between a checkpoint's identity a and a
// run's b: the settings (DiffSettings) and the data.
func diffCheckpoint(a, b CheckpointIdentity) []string {
	d := diffKV(a.Settings, b.Settings)
	if a.DataSHA256 != b.DataSHA256 {
		d = append(d, fmt.Sprintf("data sha256: %s → %s", short(a.DataSHA256), short(b.DataSHA256)))
	}
	if a.TestSHA256 != b.TestSHA256 {
		d = append(d, fmt.Sprintf("test file sha256: %s → %s", noneIfEmpty(short(a.TestSHA256)), noneIfEmpty(short(b.TestSHA256))))
	}
	return d
}

func short(h string) string { return h[:min(len(h), 12)] }

func noneIfEmpty(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

// write appends b in one write, which a signal or kill -9 cannot undo (the
// kernel holds it), and syncs the file at most every CheckpointSync, so
// that a power cut loses at most that much of the steps while a run of many
// short steps (a compare of small jobs) does not wait on the disk for each.
func (c *FileCheckpoint) write(b []byte) error {
	n, err := c.f.Write(b)
	c.end += int64(n)
	if err != nil {
		return fmt.Errorf("write checkpoint %s: %w", c.path, err)
	}
	if time.Since(c.synced) < CheckpointSync {
		return nil
	}
	return c.sync()
}

func (c *FileCheckpoint) sync() error {
	if err := c.f.Sync(); err != nil {
		return fmt.Errorf("sync checkpoint %s: %w", c.path, err)
	}
	c.synced = time.Now()
	return nil
}

// CheckpointSync is the longest a step's outcome stays in a checkpoint
// unsynced: written at once, synced when this much time has passed since
// the last sync (and when the checkpoint is closed).
const CheckpointSync = time.Second

// Steps is the number of step outcomes the file held when opened.
func (c *FileCheckpoint) Steps() int { return c.n }

// Path is the checkpoint's path.
func (c *FileCheckpoint) Path() string { return c.path }

// lineSpan is where a line lies in a checkpoint file: its offset and its
// length, newline included.
type lineSpan struct{ off, n int64 }

// Outcome returns key's outcome: one the file held when opened, or one
// this run recorded, read back from its line (not found if that read
// fails: the step runs again).
func (c *FileCheckpoint) Outcome(key string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if sp, ok := c.at[key]; ok {
		line := make([]byte, sp.n)
		if _, err := c.f.ReadAt(line, sp.off); err != nil {
			return nil, false
		}
		var l checkpointLine
		if err := json.Unmarshal(line, &l); err != nil || l.Key != key {
			return nil, false
		}
		return l.Outcome, true
	}
	b, ok := c.m[key]
	return b, ok
}

// Record appends key's outcome in one write (synced at most
// CheckpointSync later) and notes where its line lies.
func (c *FileCheckpoint) Record(key string, outcome []byte) error {
	b, err := json.Marshal(checkpointLine{Key: key, Outcome: outcome})
	if err != nil {
		return err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	off := c.end
	line := append(b, '\n')
	if err := c.write(line); err != nil {
		return err
	}
	delete(c.m, key) // the newer outcome is the key's
	c.at[key] = lineSpan{off: off, n: int64(len(line))}
	return nil
}

// Close closes the file, keeping it for a resume (nothing for a nil c).
func (c *FileCheckpoint) Close() error {
	if c == nil {
		return nil
	}
	c.mu.Lock()
	err := c.sync()
	c.mu.Unlock()
	if cerr := c.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// Remove closes and deletes the file: the run it kept is done (its model
// or record written). Nothing for a nil c.
func (c *FileCheckpoint) Remove() error {
	if c == nil {
		return nil
	}
	c.f.Close()
	if err := os.Remove(c.path); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("remove checkpoint: %w", err)
	}
	return nil
}

var _ methods.Checkpoint = (*FileCheckpoint)(nil)

// JobCheckpointDir is the directory of the checkpoints of a compare's jobs
// beside its results file out.
func JobCheckpointDir(out string) string {
	return filepath.Join(filepath.Dir(out), "."+filepath.Base(out)+CheckpointSuffix+"s")
}

// hashKV is a short hash of settings (a map's keys are marshalled sorted).
func hashKV(kv map[string]string) string {
	b, _ := json.Marshal(kv)
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:6])
}

// diffKV names the settings that differ between a checkpoint's (a) and a
// run's (b), "key: a → b", sorted ("(default)" for one left out).
func diffKV(a, b map[string]string) []string {
	var out []string
	for k, va := range a {
		if vb, ok := b[k]; !ok {
			out = append(out, fmt.Sprintf("%s: %s → (default)", k, va))
		} else if vb != va {
			out = append(out, fmt.Sprintf("%s: %s → %s", k, va, vb))
		}
	}
	for k, vb := range b {
		if _, ok := a[k]; !ok {
			out = append(out, fmt.Sprintf("%s: (default) → %s", k, vb))
		}
	}
	slices.Sort(out)
	return out
}
