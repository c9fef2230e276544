//go:build amd64 && !purego

package kernel

import "golang.org/x/sys/cpu"

// useAVX2 selects the four-lane forms of expNonPosSlice (fastexp_amd64.s)
// and l1Row (l1_amd64.s). It is read-only after start-up except in tests,
// which switch it to compare the two forms.
var useAVX2 = cpu.X86.HasAVX2

// expAVX2 replaces x[0:n] (n a multiple of 4, at least 4) by expNonPos of
// each entry, four at a time, leaving the entries below -708 and the NaNs as
// they were; it reports whether there were any.
//
//go:noescape
func expAVX2(x *float64, n int, tab *[64]float64) (left bool)

// l1RowAVX2 sets dst[k] = -l1dist(xi, row j) for k < n, row j at
// xs + j·d, j = idx[k] (idx non-nil) or k; d ≥ 1.
//
//go:noescape
func l1RowAVX2(dst, xi, xs *float64, d int, idx *int, n int)
