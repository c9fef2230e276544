package experiment

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

func TestFileCheckpoint(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json.checkpoint")
	id := CheckpointIdentity{Settings: map[string]string{"method": "svm", "method.Folds": "3"}, DataSHA256: "abc"}
	c, err := OpenCheckpoint(path, id, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"a", "b", "c"} {
		if err := c.Record(k, []byte("outcome "+k)); err != nil {
			t.Fatal(err)
		}
	}
	c.Close()
	// A crash tore the last line.
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"key":"d","outc`)
	f.Close()

	var exist *CheckpointExistsError
	if _, err := OpenCheckpoint(path, id, false); !errors.As(err, &exist) || exist.Steps != 3 {
		t.Fatalf("a checkpoint with steps opened without resume: %v", err)
	}
	other := CheckpointIdentity{Settings: map[string]string{"method": "svm"}, DataSHA256: "abd"}
	var oe *OtherCheckpointError
	if _, err := OpenCheckpoint(path, other, true); !errors.As(err, &oe) ||
		strings.Join(oe.Diff, "; ") != "method.Folds: 3 → (default); data sha256: abc → abd" {
		t.Fatalf("another run's checkpoint: %v", err)
	}
	c, err = OpenCheckpoint(path, id, true)
	if err != nil {
		t.Fatal(err)
	}
	if b, ok := c.Outcome("b"); c.Steps() != 3 || !ok || string(b) != "outcome b" {
		t.Errorf("resumed: %d steps, b = %q %v", c.Steps(), b, ok)
	}
	if _, ok := c.Outcome("d"); ok {
		t.Errorf("the torn step was read")
	}
	c.Record("d", []byte("outcome d"))
	c.Close()
	data, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSuffix(string(data), "\n"), "\n"); len(lines) != 5 || !strings.HasPrefix(lines[4], `{"key":"d","outcome":`) {
		t.Errorf("after the resume the file is %q", data)
	}
	c, _ = OpenCheckpoint(path, id, true)
	if err := c.Remove(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("removed: %v", err)
	}
	// A file that is not a checkpoint, and one of another schema.
	os.WriteFile(path, []byte("notes\n"), 0o644)
	var nc *NotCheckpointError
	if _, err := OpenCheckpoint(path, id, true); !errors.As(err, &nc) {
		t.Errorf("not a checkpoint: %v", err)
	}
	os.WriteFile(path, []byte(`{"kind":"kerneltune checkpoint","schema_version":0}`+"\n"+`{"key":"a","outcome":""}`+"\n"), 0o644)
	if _, err := OpenCheckpoint(path, id, true); !errors.As(err, &oe) || oe.Diff[0] != "schema_version: 0 → 1" {
		t.Errorf("another schema: %v", err)
	}
}

// TestFileCheckpointHoldsNoOutcomes: the outcomes a run records are read
// back from the file when asked for (the newest of a key's, after a resume
// too), not held in memory: 200 outcomes of 64 kB leave the live heap
// within 2 MB of where it was (12.8 MB when each was kept).
func TestFileCheckpointHoldsNoOutcomes(t *testing.T) {
	path := filepath.Join(t.TempDir(), "m.json.checkpoint")
	id := CheckpointIdentity{Settings: map[string]string{"method": "gi"}, DataSHA256: "abc"}
	c, err := OpenCheckpoint(path, id, false)
	if err != nil {
		t.Fatal(err)
	}
	outcome := func(k int) []byte {
		b := make([]byte, 64<<10)
		for i := range b {
			b[i] = byte(k*7 + i*13)
		}
		return b
	}
	live := func() uint64 {
		var ms runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&ms)
		return ms.HeapAlloc
	}
	before := live()
	for k := range 200 {
		if err := c.Record(fmt.Sprintf("loop/gi/%d", k), outcome(k)); err != nil {
			t.Fatal(err)
		}
	}
	if grew := int64(live()) - int64(before); grew > 2<<20 {
		t.Errorf("200 outcomes of 64 kB: the live heap grew %d bytes", grew)
	}
	for _, k := range []int{0, 77, 199} {
		if b, ok := c.Outcome(fmt.Sprintf("loop/gi/%d", k)); !ok || !bytes.Equal(b, outcome(k)) {
			t.Fatalf("outcome %d read back: %v, %d bytes", k, ok, len(b))
		}
	}
	if err := c.Record("loop/gi/77", []byte("again")); err != nil {
		t.Fatal(err)
	}
	if b, ok := c.Outcome("loop/gi/77"); !ok || string(b) != "again" {
		t.Fatalf("a key recorded twice: %q %v, want the newer", b, ok)
	}
	if _, ok := c.Outcome("loop/gi/200"); ok {
		t.Fatal("a key never recorded was found")
	}
	c.Close()
	c, err = OpenCheckpoint(path, id, true)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if b, ok := c.Outcome("loop/gi/77"); c.Steps() != 200 || !ok || string(b) != "again" {
		t.Fatalf("resumed: %d steps, 77 = %q %v", c.Steps(), b, ok)
	}
	if err := c.Record("loop/gi/5", []byte("after the resume")); err != nil {
		t.Fatal(err)
	}
	for k, want := range map[int]string{5: "after the resume", 6: string(outcome(6))} {
		if b, ok := c.Outcome(fmt.Sprintf("loop/gi/%d", k)); !ok || string(b) != want {
			t.Fatalf("after the resume, outcome %d: %v, %d bytes", k, ok, len(b))
		}
	}
}
