//go:build !amd64 || purego

package solver

// useAVX2 is false off amd64 (or with the purego tag): the Go sweeps run.
var useAVX2 = false

func lowPassAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int) {
	panic("solver: lowPassAVX2 without AVX2")
}

func gradPassAVX2(grad, qi, qj, up *float64, n int, dai, daj float64) (gmax float64, idx int) {
	panic("solver: gradPassAVX2 without AVX2")
}

func widenAVX2(dst *float64, src *float32, n int) {
	panic("solver: widenAVX2 without AVX2")
}

func signedAddAVX2(dst, col, y *float64, n int, a, yi float64) (z float64) {
	panic("solver: signedAddAVX2 without AVX2")
}

func signedCopyAVX2(dst, col, y *float64, n int, yi float64) (z float64) {
	panic("solver: signedCopyAVX2 without AVX2")
}

func gradPass32AVX2(grad *float64, qi, qj *float32, up *float64, n int, dai, daj float64) (gmax float64, idx int) {
	panic("solver: gradPass32AVX2 without AVX2")
}

func lowPass32AVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int) {
	panic("solver: lowPass32AVX2 without AVX2")
}

func lowPassSkipAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int) {
	panic("solver: lowPassSkipAVX2 without AVX2")
}

func lowPass32SkipAVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int) {
	panic("solver: lowPass32SkipAVX2 without AVX2")
}

func narrowAVX2(dst *float32, src *float64, n int) (maxAbs float64, z float32) {
	panic("solver: narrowAVX2 without AVX2")
}
