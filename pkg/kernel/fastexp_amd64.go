//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// useAVX2 selects expNonPosSlice's four-lane form (fastexp_amd64.s). It is
// read-only after start-up except in tests, which switch it to compare.
var useAVX2 = cpu.X86.HasAVX2

// expAVX2 replaces x[0:n] (n a multiple of 4, at least 4) by expNonPos of
// each entry, four at a time, leaving the entries below -708 and the NaNs as
// they were; it reports whether there were any.
//
//go:noescape
func expAVX2(x *float64, n int, tab *[64]float64) (left bool)
