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
	return limitGC(GCLimit(mb))
}

// LimitGCTo is LimitGC with the run's own soft limit soft (bytes; 0 when
// unknown: the live data its memory estimate counts, methods.GCLimit) when
// that is below the bound, so that the collector keeps the heap, and with
// it the resident set, within what the estimate promised instead of
// letting it grow to twice the live data between collections (svm at 32,561
// rows: 1.5 GB resident for an estimate of 864 MB of live data). The limit
// is soft: were the live data to outgrow it, the collector would work
// harder (at most half the CPU, the runtime's cap), not fail.
func LimitGCTo(mb int, soft int64) (restore func()) {
	lim := GCLimit(mb)
	if soft > 0 && (lim <= 0 || soft < lim) {
		lim = soft
	}
	return limitGC(lim)
}

// runs are the limits of the runs under way in this process: a Go program
// (or cmd's tests) may run several at once, and their restores need not
// come in the reverse order of their limits.
var runs struct {
	sync.Mutex
	n         int   // runs under way
	sum, prev int64 // their limits' sum; the limit before the first
}

// limitGC sets the runtime's limit to the sum of the limits of the runs
// under way, lim (when positive) among them, and returns the function that
// ends this run's share: the limit before the first run once none is left.
func limitGC(lim int64) (restore func()) {
	if lim <= 0 {
		return func() {}
	}
	runs.Lock()
	defer runs.Unlock()
	if runs.n == 0 {
		runs.prev = debug.SetMemoryLimit(-1)
	}
	runs.n, runs.sum = runs.n+1, runs.sum+lim
	debug.SetMemoryLimit(runs.sum)
	return sync.OnceFunc(func() {
		runs.Lock()
		defer runs.Unlock()
		runs.n, runs.sum = runs.n-1, runs.sum-lim
		if runs.n == 0 {
			debug.SetMemoryLimit(runs.prev)
		} else {
			debug.SetMemoryLimit(runs.sum)
		}
	})
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
