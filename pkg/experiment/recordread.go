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
	"strings"

	"github.com/kerneltune/kerneltune/pkg/dataio"
	"github.com/kerneltune/kerneltune/pkg/hint"
)

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
				return recordSet{}, hint.Errorf(nil, fmt.Sprintf("%s:%d: not a result record of 'kerneltune compare ", name, line), hint.S("out", ""), "': "+perr.Error())
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
			return hint.Errorf(nil, fmt.Sprintf("grid: dataset %s has %d partitions, outside the bound of a run (0 to %d, as compare's ", d.Name, d.Partitions, MaxPartitions), hint.S("partitions", ""), ")")
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
