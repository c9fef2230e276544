//go:build !amd64 || purego

package sqp

// useAVX2 is false off amd64 (or with the purego tag): rotRowsGo runs.
var useAVX2 = false

func rotRowsAVX2(x, y *float64, n int, c, s float64) {
	panic("sqp: rotRowsAVX2 without AVX2")
}
