//go:build unix

package kernel

import (
	"syscall"
	"testing"
	"time"
)

// processCPU returns the user+system CPU time of the whole process so far.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// cpuMeter reports CPU time per op (cpu-ns/op) besides wall time: on a
// shared, loaded machine wall time mostly measures the neighbours, CPU time
// measures the work.
func cpuMeter(b *testing.B) func() {
	start := processCPU()
	return func() {
		b.ReportMetric(float64(processCPU()-start)/float64(b.N), "cpu-ns/op")
	}
}
