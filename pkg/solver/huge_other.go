//go:build !linux

package solver

// adviseHugePages is a no-op outside Linux.
func adviseHugePages([]float64) {}
