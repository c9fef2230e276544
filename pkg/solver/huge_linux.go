package solver

import (
	"syscall"
	"unsafe"
)

// adviseHugePages asks the kernel to back the 2 MB-aligned interior of b
// with transparent huge pages (madvise MADV_HUGEPAGE; effective where
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise"),
// before b is first touched: one fault per 2 MB instead of per 4 KB. It is
// advice only; errors are ignored.
func adviseHugePages(b []float64) {
	const huge = 2 << 20
	if len(b) == 0 {
		return
	}
	p := unsafe.Pointer(&b[0])
	start := uintptr(p)
	end := start + uintptr(len(b))*8
	lo := (start + huge - 1) &^ (huge - 1)
	hi := end &^ (huge - 1)
	if lo >= hi {
		return
	}
	region := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = syscall.Madvise(region, 14) // MADV_HUGEPAGE
}
