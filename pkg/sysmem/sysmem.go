// Package sysmem reads the machine's RAM (MemTotal of /proc/meminfo) and
// turns the --mem-mb of tune and compare into a bound on a method's
// estimated peak memory and a soft limit for the Go garbage collector.
//
// It is a package of its own because reading the operating system is
// neither the protocol nor a method: experiment and methods take a bound in
// bytes and never look at the machine, so that their results do not depend
// on where they run; the commands ask sysmem for the bound.
package sysmem

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
)

// MemInfoPath is where Bound reads the total RAM (Linux).
const MemInfoPath = "/proc/meminfo"

// Bound returns a bound on a method's peak memory in bytes
// (experiment.TuneSettings.MemBytes, experiment.CompareSettings.MemBytes)
// from a size in MB: mb MB when positive, half of the RAM (MemTotal in
// MemInfoPath) for 0, and 0 (no bound) for a negative mb or when the RAM
// cannot be read (not Linux).
func Bound(mb int) int64 {
	switch {
	case mb > 0:
		return int64(mb) << 20
	case mb < 0:
		return 0
	}
	total, err := memTotal(MemInfoPath)
	if err != nil {
		return 0
	}
	return total / 2
}

// GCLimit is the soft memory limit for the Go runtime (debug.SetMemoryLimit)
// during a run with --mem-mb mb: the bound itself (Bound) when there
// is one, and for -1 (no bound: nothing is refused) 90% of the RAM, so that
// the collector works harder near the RAM rather than letting the heap grow
// to twice the live data past it (spd at n = 20,000 was killed by the
// kernel's OOM killer at 23.8 GB that way, while its live data fit).
// 0 when the RAM cannot be read.
func GCLimit(mb int) int64 {
	if mb >= 0 {
		return Bound(mb)
	}
	total, err := memTotal(MemInfoPath)
	if err != nil {
		return 0
	}
	return gcLimitOfRAM(total)
}

func gcLimitOfRAM(total int64) int64 { return total / 10 * 9 }

// LimitGC sets the Go runtime's soft memory limit (debug.SetMemoryLimit)
// to GCLimit(mb) when that is positive, and returns the function that
// restores the limit it replaced (nothing to restore otherwise), for a
// command's run:
//
//	defer sysmem.LimitGC(mb)()
func LimitGC(mb int) (restore func()) {
	return limitGC(GCLimit(mb), false, false)
}

// LimitGCTo is LimitGC with the run's own soft limit soft (bytes; 0 when
// unknown: the live data its memory estimate counts, methods.GCLimit) when
// that is below the bound, so that the collector keeps the heap, and with
// it the resident set, within what the estimate promised instead of
// letting it grow to twice the live data between collections (svm at 32,561
// rows: 1.5 GB resident for an estimate of 864 MB of live data). The limit
// is soft: were the live data to outgrow it, the collector would work
// harder (at most half the CPU, the runtime's cap), not fail.
//
// While every run under way is limited by its own estimate of at most
// smallRun bytes, the proportional collector (GOGC) is off and the limit
// alone triggers a collection: the heap may grow to what the estimate
// promised and no further. On small data the proportional collector ran at its 4 MB
// minimum heap, about a hundred collections a second: the default compare
// made 1,470, a quarter of its CPU profile in asyncPreempt and madvise; with
// the limit alone its CPU time fell by about a quarter, and its resident
// set stayed within the estimate (49 MB). A larger run keeps the
// proportional collector: train on w8a (49,749 rows), whose estimate is an
// upper bound well above its live data, peaked at 628 MB with the limit
// alone against 420 MB with it. So does a run limited only by --mem-mb or
// the RAM, which would otherwise reach that bound before its first
// collection.
func LimitGCTo(mb int, soft int64) (restore func()) {
	lim := GCLimit(mb)
	own := false
	if soft > 0 && (lim <= 0 || soft < lim) {
		lim, own = soft, soft <= smallRun
	}
	return limitGC(lim, own, false)
}

// LimitGCCeiling is LimitGCTo keeping the proportional collector (GOGC)
// on whatever soft is: the limit caps the heap, and between collections
// the heap grows in proportion to the live data, not to the limit. It is
// for a run whose estimate is a bound far above its live data, to which
// the limit alone would let the heap grow (a multi-class fit's estimate
// counts every pair's cache full: on ten classes of 778 features, 151 MB
// against at most 66 MB live).
func LimitGCCeiling(mb int, soft int64) (restore func()) {
	lim := GCLimit(mb)
	if soft > 0 && (lim <= 0 || soft < lim) {
		lim = soft
	}
	return limitGC(lim, false, true)
}

// ceilingPercent is GOGC while a ceiling's run (LimitGCCeiling) is under
// way, where it was higher: the heap grows by a quarter of its live data
// between collections, not by all of it. A multi-class fit's live data is
// mostly arrays without pointers (the rows, the pairs' caches and
// compressed columns), which a cycle barely scans: on ten classes of 778
// features held sparse (10,000 rows, 44 MB live) train peaked at 85-90 MB
// resident at GOGC 100, 75-78 MB at 50 or 30, in the same CPU time. Once
// the pairs kept only their models and letter's fit allocated half as
// much (188 MB), 25 against 50: 10,000 rows 73-77 -> 68-71 MB, 5,000 rows
// 43-48 -> 41-43, letter 43-49 -> 40-42, the same CPU seconds (4 runs
// each, alternated).
const ceilingPercent = 25

// smallRun is the largest estimate under which the limit alone collects
// (LimitGCTo): where the proportional collector's 4 MB minimum heap makes
// collections many times a second.
const smallRun = 256 << 20

// runs are the limits of the runs under way in this process: a Go program
// (or cmd's tests) may run several at once, and their restores need not
// come in the reverse order of their limits.
var runs struct {
	sync.Mutex
	n         int   // runs under way
	bounded   int   // of them, those limited by a bound or a large estimate
	sum, prev int64 // their limits' sum; the limit before the first
	gcPercent int   // GOGC before the first run; -2 while it is in force
	ceilings  int   // of them, ceilings' runs (LimitGCCeiling: ceilingPercent)
}

// limitGC sets the runtime's limit to the sum of the limits of the runs
// under way, lim (when positive) among them, and returns the function that
// ends this run's share: the limit before the first run once none is left.
// own says that lim is the run's own estimate (LimitGCTo): while all the
// runs under way are, the proportional collector is off.
func limitGC(lim int64, own, ceiling bool) (restore func()) {
	if lim <= 0 {
		return func() {}
	}
	runs.Lock()
	defer runs.Unlock()
	if runs.n == 0 {
		runs.prev = debug.SetMemoryLimit(-1)
		runs.gcPercent = -2
	}
	runs.n, runs.sum = runs.n+1, runs.sum+lim
	if !own {
		runs.bounded++
	}
	if ceiling {
		runs.ceilings++
	}
	debug.SetMemoryLimit(runs.sum)
	setProportional()
	return sync.OnceFunc(func() {
		runs.Lock()
		defer runs.Unlock()
		runs.n, runs.sum = runs.n-1, runs.sum-lim
		if !own {
			runs.bounded--
		}
		if ceiling {
			runs.ceilings--
		}
		if runs.n == 0 {
			debug.SetMemoryLimit(runs.prev)
		} else {
			debug.SetMemoryLimit(runs.sum)
		}
		setProportional()
	})
}

// setProportional turns the proportional collector off while runs are
// under way and all of them are limited by their own estimates, sets it to
// ceilingPercent while a ceiling's run is under way (unless GOGC was lower
// or off), and back to what it was otherwise (runs held).
func setProportional() {
	target := 0 // 0: GOGC as before the runs
	switch {
	case runs.n > 0 && runs.bounded == 0:
		target = -1
	case runs.ceilings > 0:
		target = ceilingPercent
	}
	if target == 0 {
		if runs.gcPercent != -2 {
			debug.SetGCPercent(runs.gcPercent)
			runs.gcPercent = -2
		}
		return
	}
	prev := debug.SetGCPercent(target)
	if runs.gcPercent == -2 {
		runs.gcPercent = prev
	}
	if target > 0 && runs.gcPercent < target { // GOGC lower, or off: it stays
		debug.SetGCPercent(runs.gcPercent)
	}
}

// memTotal returns MemTotal of a /proc/meminfo file in bytes.
func memTotal(path string) (int64, error) {
	f, err := os.Open(path)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		fields := strings.Fields(rest)
		if len(fields) != 2 || fields[1] != "kB" {
			return 0, fmt.Errorf("%s: unexpected MemTotal line %q", path, sc.Text())
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil || kb <= 0 {
			return 0, fmt.Errorf("%s: unexpected MemTotal line %q", path, sc.Text())
		}
		return kb << 10, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, errors.New(path + ": no MemTotal line")
}
