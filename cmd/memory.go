package cmd

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/kerneltune/kerneltune/pkg/methods"
)

// memInfoPath is where the total RAM is read from (Linux).
const memInfoPath = "/proc/meminfo"

// memFlagHelp documents --mem-mb.
const memFlagHelp = "bound on the method's estimated peak memory in MB; a method that would need more is refused before it starts, naming the largest n it can handle (0 = half of the RAM in " + memInfoPath + "; -1 = no bound)"

// resolveMemMB returns the memory bound in bytes for the --mem-mb value v: v
// MB when positive, half of MemTotal for 0, and 0 (no bound) for -1 or when
// the RAM cannot be read (not Linux).
func resolveMemMB(v int) int64 {
	switch {
	case v > 0:
		return int64(v) << 20
	case v < 0:
		return 0
	}
	total, err := memTotal(memInfoPath)
	if err != nil {
		return 0
	}
	return total / 2
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

// checkMemory refuses (a usage error, exit code 2) a run of method on n rows
// of d features whose estimated peak exceeds --mem-mb: nothing has run, and
// the remedy is on the command line (a larger --mem-mb, fewer rows, fewer
// --workers or a smaller --cache-mb).
func checkMemory(flagMB int, method string, n, d int, opts methods.Options) error {
	err := methods.CheckMemory(method, n, d, opts, resolveMemMB(flagMB))
	var me *methods.MemoryError
	if errors.As(err, &me) {
		bound := fmt.Sprintf("--mem-mb %d", flagMB)
		if flagMB == 0 {
			bound = "the default --mem-mb, half of the RAM: " + mbString(me.Max)
		}
		fit := fmt.Sprintf("it can handle at most %d training rows within it", me.MaxN)
		if me.MaxN == 0 {
			fit = "no data fits within it (the runtime alone takes about 32 MB)"
		}
		return usageErrorf("tune: %s needs about %s for %d training rows × %d features, more than %s; %s. Raise --mem-mb, or use fewer rows (--test-fraction), fewer --workers or a smaller --cache-mb",
			method, mbString(me.Need), me.N, me.D, bound, fit)
	}
	return err
}

func mbString(b int64) string { return strconv.FormatInt((b+(1<<20)-1)>>20, 10) + " MB" }
