package solver

import (
	"math"
	"runtime/debug"
	"syscall"
	"unsafe"
)

const hugePage = 2 << 20

// adviseHugePages asks the kernel to back the 2 MB-aligned interior of b
// with transparent huge pages (madvise MADV_HUGEPAGE; effective where
// /sys/kernel/mm/transparent_hugepage/enabled is "always" or "madvise"),
// before b is first touched: one fault per 2 MB instead of per 4 KB. It is
// advice only; errors are ignored.
func adviseHugePages(b []float64) {
	if len(b) == 0 {
		return
	}
	p := unsafe.Pointer(&b[0])
	start := uintptr(p)
	end := start + uintptr(len(b))*8
	lo := (start + hugePage - 1) &^ (hugePage - 1)
	hi := end &^ (hugePage - 1)
	if lo >= hi {
		return
	}
	region := unsafe.Slice((*byte)(unsafe.Add(p, lo-start)), hi-lo)
	_ = syscall.Madvise(region, 14) // MADV_HUGEPAGE
}

// mapArena returns n zero float64s in fresh anonymous memory outside the Go
// heap, 2 MB-aligned and advised as huge pages, with the function that
// unmaps them; nil when the memory cannot be mapped, or when a Go memory
// limit is set (debug.SetMemoryLimit, from --mem-mb: it would not count
// this memory).
//
// Why not the Go heap: a large allocation that overlaps pages the heap used
// before is zeroed by the runtime before adviseHugePages can act, in 4 KB
// faults. On a1a (1,605 rows, a 20 MB arena) that happened in about 40% of
// `train` runs, at random with the collector's timing: 7,300 page faults
// instead of 2,500, and the solve at 100-115 ms instead of 35-60 ms
// (BENCHMARKS.md, "Small problems"; the measurement in its history, git show 7e296e7:BENCHMARKS.md, "train on a1a").
func mapArena(n int) ([]float64, func()) {
	if n <= 0 || debug.SetMemoryLimit(-1) != math.MaxInt64 {
		return nil, nil
	}
	size := n*8 + hugePage
	b, err := syscall.Mmap(-1, 0, size, syscall.PROT_READ|syscall.PROT_WRITE, syscall.MAP_ANON|syscall.MAP_PRIVATE)
	if err != nil {
		return nil, nil
	}
	start := uintptr(unsafe.Pointer(&b[0]))
	off := int(((start + hugePage - 1) &^ (hugePage - 1)) - start)
	f := unsafe.Slice((*float64)(unsafe.Pointer(&b[off])), n)
	adviseHugePages(f)
	return f, func() { _ = syscall.Munmap(b) }
}
