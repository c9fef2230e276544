//go:build amd64 && !purego

package solver

import "golang.org/x/sys/cpu"

// useAVX2 selects the four-lane sweeps (sweeps_amd64.s). It is read-only
// after start-up except in tests, which switch it to compare the two forms.
var useAVX2 = cpu.X86.HasAVX2

// lowPassAVX2 is lowPass's loop over the first n entries (n a multiple of
// 4, at least 4), lane by lane, into ln.
//
//go:noescape
func lowPassAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64, ln *lowLanes)

// gradPassAVX2 is gradPass's loop over the first n entries (n a multiple of
// 4, at least 4), lane by lane, into ln.
//
//go:noescape
func gradPassAVX2(grad, qi, qj, up *float64, n int, dai, daj float64, ln *gradLanes)
