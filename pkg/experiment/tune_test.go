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

// TestGCLimit: the collector's soft limit is the bound when there is one
// and 90% of the RAM for --mem-mb -1, which refuses nothing (MemoryBound 0).
func TestGCLimit(t *testing.T) {
	if got := GCLimit(300); got != 300<<20 {
		t.Errorf("GCLimit(300) = %d, want %d", got, 300<<20)
	}
	if got := gcLimitOfRAM(24683620 << 10); got != 22748424192 {
		t.Errorf("90%% of 24683620 kB = %d, want 22748424192", got)
	}
	total, err := memTotal(MemInfoPath)
	if err != nil {
		t.Skipf("no %s: %v", MemInfoPath, err)
	}
	if got, want := GCLimit(-1), total/10*9; got != want || got <= 0 {
		t.Errorf("GCLimit(-1) = %d, want %d", got, want)
	}
	if got, want := GCLimit(0), total/2; got != want {
		t.Errorf("GCLimit(0) = %d, want %d (the default bound)", got, want)
	}
	if MemoryBound(-1) != 0 {
		t.Error("-1 must still refuse nothing")
	}
}
