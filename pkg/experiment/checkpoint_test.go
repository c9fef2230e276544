package experiment

import (
	"errors"
	"os"
	"path/filepath"
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
