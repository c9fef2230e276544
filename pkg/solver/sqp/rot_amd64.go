//go:build amd64 && !purego

package sqp

import "golang.org/x/sys/cpu"

// useAVX2 selects rotRows's four-lane form (rot_amd64.s). It is read-only
// after start-up except in tests, which switch it to compare the two forms.
var useAVX2 = cpu.X86.HasAVX2

// rotRowsAVX2 is rotRowsGo on the first n entries (n a multiple of 4, at
// least 4).
//
//go:noescape
func rotRowsAVX2(x, y *float64, n int, c, s float64)
