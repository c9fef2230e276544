package sysmem

import (
	"os"
	"path/filepath"
	"runtime/debug"
	"testing"
)

// TestBound: the default bound reads MemTotal (moved from cmd's
// TestTuneMemMBFlag with memTotal, then from experiment's TestMemoryBound);
// a size in MB is that many bytes, -1 no bound.
func TestBound(t *testing.T) {
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
	if got := Bound(300); got != 300<<20 {
		t.Errorf("Bound(300) = %d", got)
	}
	if got := Bound(-1); got != 0 {
		t.Errorf("Bound(-1) = %d, want 0 (no bound)", got)
	}
}

// TestGCLimit: the collector's soft limit is the bound when there is one
// and 90% of the RAM for --mem-mb -1, which refuses nothing (Bound 0).
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
	if Bound(-1) != 0 {
		t.Error("-1 must still refuse nothing")
	}
}

// TestLimitGC: the runtime's limit is GCLimit's while the run lasts, and
// the one before it afterwards.
func TestLimitGC(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := LimitGC(300)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("limit during the run = %d, want %d", got, 300<<20)
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("limit after the run = %d, want %d", got, before)
	}
}

// LimitGCTo takes the estimate when it is below the bound, the bound
// otherwise, and restores the previous limit.
func TestLimitGCTo(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	restore := LimitGCTo(1000, 800<<20)
	if got := debug.SetMemoryLimit(-1); got != 800<<20 {
		t.Errorf("800 MB under a 1000 MB bound: limit %d", got)
	}
	restore()
	restore = LimitGCTo(100, 900<<20)
	if got := debug.SetMemoryLimit(-1); got != Bound(100) {
		t.Errorf("estimate 900 MB over a 100 MB bound: limit %d, want the bound %d", got, Bound(100))
	}
	restore()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("not restored: %d, was %d", got, before)
	}
}

// Runs under way at once in one process (a Go program's, cmd's parallel
// tests) share the limit, their sum, and restores in any order leave the
// limit before the first: a restore never leaves another run's limit, nor
// its own, in place.
func TestLimitGCOverlappingRuns(t *testing.T) {
	before := debug.SetMemoryLimit(-1)
	a := LimitGCTo(0, 100<<20)
	b := LimitGCTo(0, 200<<20)
	if got := debug.SetMemoryLimit(-1); got != 300<<20 {
		t.Errorf("two runs at once: limit %d, want their sum %d", got, 300<<20)
	}
	a()
	a() // a second call changes nothing
	if got := debug.SetMemoryLimit(-1); got != 200<<20 {
		t.Errorf("the first run ended: limit %d, want the second's %d", got, 200<<20)
	}
	b()
	if got := debug.SetMemoryLimit(-1); got != before {
		t.Errorf("both ended: limit %d, want the one before %d", got, before)
	}
}

// gcPercent reads GOGC without changing it.
func gcPercent() int {
	p := debug.SetGCPercent(100)
	debug.SetGCPercent(p)
	return p
}

// While every run under way is limited by its own estimate the
// proportional collector is off (the limit alone collects); a run limited
// by a bound alone turns it back on, and the last run's end restores GOGC.
func TestLimitGCToTurnsProportionalOff(t *testing.T) {
	before := gcPercent()
	if before < 0 {
		t.Skip("GOGC=off in this test's environment")
	}
	a := LimitGCTo(0, 100<<20)
	if got := gcPercent(); got != -1 {
		t.Errorf("a run within its estimate: GOGC %d, want off (-1)", got)
	}
	b := LimitGC(300) // a bound, no estimate
	if got := gcPercent(); got != before {
		t.Errorf("beside a run bounded by --mem-mb alone: GOGC %d, want %d", got, before)
	}
	big := LimitGCTo(0, 1<<30) // a large estimate keeps the proportional collector
	if got := gcPercent(); got != before {
		t.Errorf("beside a run of a 1 GB estimate: GOGC %d, want %d", got, before)
	}
	big()
	c := LimitGCTo(100, 900<<20) // the estimate over the bound: the bound
	b()
	if got := gcPercent(); got != before {
		t.Errorf("a run whose estimate is over its bound: GOGC %d, want %d", got, before)
	}
	c()
	if got := gcPercent(); got != -1 {
		t.Errorf("back to runs within their estimates: GOGC %d, want off", got)
	}
	a()
	if got := gcPercent(); got != before {
		t.Errorf("all ended: GOGC %d, want %d", got, before)
	}
}

// LimitGCCeiling sets the same limit as LimitGCTo but keeps the
// proportional collector on, at GOGC 25 (ceilingPercent: its heap grows by
// a quarter of the live data between collections, not by all of it) unless it was
// lower, even for a small estimate and beside runs that the limit alone
// collects for.
func TestLimitGCCeiling(t *testing.T) {
	before := gcPercent()
	if before < 0 {
		t.Skip("GOGC=off in this test's environment")
	}
	want := min(before, 25)
	r := LimitGCCeiling(0, 100<<20)
	if got, lim := gcPercent(), debug.SetMemoryLimit(-1); got != want || lim != 100<<20 {
		t.Errorf("a ceiling of 100 MB: GOGC %d and limit %d, want %d and %d", got, lim, want, 100<<20)
	}
	a := LimitGCTo(0, 50<<20)
	if got, lim := gcPercent(), debug.SetMemoryLimit(-1); got != want || lim != 150<<20 {
		t.Errorf("beside a run within its estimate: GOGC %d and limit %d, want %d and %d", got, lim, want, 150<<20)
	}
	r()
	if got := gcPercent(); got != -1 {
		t.Errorf("the ceiling's run ended: GOGC %d, want off", got)
	}
	a()
	if got := gcPercent(); got != before {
		t.Errorf("all ended: GOGC %d, want %d", got, before)
	}
	// A GOGC below 25 stays.
	debug.SetGCPercent(20)
	defer debug.SetGCPercent(before)
	r = LimitGCCeiling(0, 100<<20)
	if got := gcPercent(); got != 20 {
		t.Errorf("a ceiling under GOGC 20: GOGC %d, want 20", got)
	}
	r()
	if got := gcPercent(); got != 20 {
		t.Errorf("the ceiling ended under GOGC 20: GOGC %d, want 20", got)
	}
}
