//go:build amd64 && !purego

package solver

import "golang.org/x/sys/cpu"

// useAVX2 selects the four-lane sweeps (sweeps_amd64.s). It is read-only
// after start-up except in tests, which switch it to compare the two forms.
var useAVX2 = cpu.X86.HasAVX2

// lowPassAVX2 is lowPassGo over the first n entries (n a multiple of 4, at
// least 4), four lanes at a time, the lanes merged at the end.
//
//go:noescape
func lowPassAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)

// gradPassAVX2 is gradPassGo over the first n entries (n a multiple of 4, at
// least 4), four lanes at a time, the lanes merged at the end.
//
//go:noescape
func gradPassAVX2(grad, qi, qj, up *float64, n int, dai, daj float64) (gmax float64, idx int)

// widenAVX2 is widen over the first n entries (n a multiple of 8, at least
// 8), eight at a time.
//
//go:noescape
func widenAVX2(dst *float64, src *float32, n int)

// signedAddAVX2 is signedAddGo over the first n entries (n a multiple of
// 4, at least 4), four lanes at a time.
//
//go:noescape
func signedAddAVX2(dst, col, y *float64, n int, a, yi float64) (z float64)

// signedCopyAVX2 is signedCopyGo over the first n entries (n a multiple
// of 4, at least 4), four lanes at a time.
//
//go:noescape
func signedCopyAVX2(dst, col, y *float64, n int, yi float64) (z float64)

// gradPass32AVX2 is gradPassAVX2 with the columns in float32.
//
//go:noescape
func gradPass32AVX2(grad *float64, qi, qj *float32, up *float64, n int, dai, daj float64) (gmax float64, idx int)

// lowPass32AVX2 is lowPassAVX2 with the column in float32.
//
//go:noescape
func lowPass32AVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)

// lowPassSkipAVX2 is lowPassAVX2 that skips the division of four entries
// none of which can win (lowPassGo's bound), for long active sets.
//
//go:noescape
func lowPassSkipAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)

// lowPass32SkipAVX2 is lowPassSkipAVX2 with the column in float32.
//
//go:noescape
func lowPass32SkipAVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)

// narrowAVX2 is narrow's loop over the first n entries (n a multiple of 4,
// at least 4), four lanes at a time; its maximum is Go's max only when z
// is 0 (no NaN).
//
//go:noescape
func narrowAVX2(dst *float32, src *float64, n int) (maxAbs float64, z float32)
