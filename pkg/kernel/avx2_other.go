//go:build !amd64 || purego

package kernel

// useAVX2 is false off amd64 (or with the purego tag): the Go loops run.
var useAVX2 = false

func expAVX2(x *float64, n int, tab *[64]float64) (left bool) {
	panic("kernel: expAVX2 without AVX2")
}

func l1RowAVX2(dst, xi, xs *float64, d int, idx *int, n int) {
	panic("kernel: l1RowAVX2 without AVX2")
}
