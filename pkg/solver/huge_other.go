//go:build !linux

package solver

// adviseHugePages is a no-op outside Linux.
func adviseHugePages([]float64) {}

// mapArena is unavailable outside Linux: the arena comes from the Go heap.
func mapArena(int) ([]float64, func()) { return nil, nil }
