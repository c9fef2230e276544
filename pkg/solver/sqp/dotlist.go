package sqp

// dotList is floats.Dot(x[start:end], y[start:end]) for an x that is zero
// outside the sorted columns cols, with floats.Dot's bits: the terms left
// out are products with x's zeros, which change no partial sum (dotSum
// adds the others as gonum's DotUnitary does; TestDotListIsDot).
func dotList(x, y []float64, start, end int, cols []int32) float64 {
	s := newDotSum(start, end)
	for _, c32 := range cols {
		c := int(c32)
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		s.add(c, x[c]*y[c])
	}
	return s.sum()
}

// dotListRev is dotList for x's non-zero columns listed in decreasing order
// (summed in increasing order, as dotList sums).
func dotListRev(x, y []float64, start, end int, cols []int32) float64 {
	s := newDotSum(start, end)
	for k := len(cols) - 1; k >= 0; k-- {
		c := int(cols[k])
		if c < start {
			continue
		}
		if c >= end {
			break
		}
		s.add(c, x[c]*y[c])
	}
	return s.sum()
}
