package report

import (
	"runtime"
	"testing"

	"github.com/olekukonko/tablewriter/pkg/twwidth"
)

// TestWidthCacheBounded: tablewriter's cache of string widths is the small
// one this package sets at its start (widthCacheEntries), not the 8,192
// entries twwidth makes for itself, a map live through every command:
// putting the package's own back grows the live heap by a quarter of a
// megabyte or more (0.47 MB here).
func TestWidthCacheBounded(t *testing.T) {
	live := func() int64 {
		runtime.GC()
		var m runtime.MemStats
		runtime.ReadMemStats(&m)
		return int64(m.HeapAlloc)
	}
	ours := live()
	twwidth.SetCacheCapacity(8192) // twwidth's own
	theirs := live()
	twwidth.SetCacheCapacity(widthCacheEntries)
	if theirs-ours < 1<<18 {
		t.Errorf("twwidth's own cache takes %d bytes more than the one in use: the width cache is not bounded", theirs-ours)
	}
}
