//go:build amd64 && !noasm && !gccgo && !safe

package sqp

// dotList is floats.Dot(x[start:end], y[start:end]) for an x that is zero
// outside the sorted columns cols, summed as gonum's amd64 assembly
// (DotUnitary) sums it, so with its bits: four lanes by position modulo 4
// over the leading multiple of 4, the remaining 1–3 terms into lane 0 after
// them, and (lane 0 + lane 2) + (lane 1 + lane 3). The terms left out are
// products with x's zeros, which change no lane (TestDotListIsDot).
func dotList(x, y []float64, start, end int, cols []int32) float64 {
	n4 := start + (end-start)&^3
	var l0, l1, l2, l3 float64
	for _, c32 := range cols {
		c := int(c32)
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		p := x[c] * y[c]
		if c >= n4 {
			l0 += p
			continue
		}
		switch (c - start) & 3 {
		case 0:
			l0 += p
		case 1:
			l1 += p
		case 2:
			l2 += p
		default:
			l3 += p
		}
	}
	return (l0 + l2) + (l1 + l3)
}

// dotListRev is dotList for x's non-zero columns listed in decreasing order
// (summed in increasing order, as dotList sums).
func dotListRev(x, y []float64, start, end int, cols []int32) float64 {
	n4 := start + (end-start)&^3
	var l0, l1, l2, l3 float64
	for k := len(cols) - 1; k >= 0; k-- {
		c := int(cols[k])
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		p := x[c] * y[c]
		if c >= n4 {
			l0 += p
			continue
		}
		switch (c - start) & 3 {
		case 0:
			l0 += p
		case 1:
			l1 += p
		case 2:
			l2 += p
		default:
			l3 += p
		}
	}
	return (l0 + l2) + (l1 + l3)
}
