package experiment

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemoryBound: the default bound reads MemTotal (moved from cmd's
// TestTuneMemMBFlag with memTotal); a size in MB is that many bytes, -1 no
// bound.
func TestMemoryBound(t *testing.T) {
	path := filepath.Join(t.TempDir(), "meminfo")
	if err := os.WriteFile(path, []byte("MemTotal:       24683620 kB\nMemFree:        19747452 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := memTotal(path); err != nil || got != 24683620<<10 {
		t.Errorf("memTotal = %d, %v; want %d", got, err, int64(24683620)<<10)
	}
	if err := os.WriteFile(path, []byte("MemFree: 1 kB\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := memTotal(path); err == nil {
		t.Error("no MemTotal line: want an error")
	}
	if got := MemoryBound(300); got != 300<<20 {
		t.Errorf("MemoryBound(300) = %d", got)
	}
	if got := MemoryBound(-1); got != 0 {
		t.Errorf("MemoryBound(-1) = %d, want 0 (no bound)", got)
	}
}
