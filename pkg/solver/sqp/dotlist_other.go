//go:build !amd64 || noasm || gccgo || safe

package sqp

// dotList is floats.Dot(x[start:end], y[start:end]) for an x that is zero
// outside the sorted columns cols, summed in order as gonum's Go form of
// DotUnitary sums it (the terms left out are products with x's zeros,
// which change no partial sum; TestDotListIsDot).
func dotList(x, y []float64, start, end int, cols []int32) float64 {
	var sum float64
	for _, c32 := range cols {
		c := int(c32)
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		sum += y[c] * x[c]
	}
	return sum
}

// dotListRev is dotList for x's non-zero columns listed in decreasing order
// (summed in increasing order, as dotList sums).
func dotListRev(x, y []float64, start, end int, cols []int32) float64 {
	var sum float64
	for k := len(cols) - 1; k >= 0; k-- {
		c := int(cols[k])
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		sum += y[c] * x[c]
	}
	return sum
}
