//go:build amd64 && !noasm && !gccgo && !safe

package sqp

// dotSum sums the products of columns start ≤ c < end, given in increasing
// order, as gonum's amd64 assembly (DotUnitary) sums them, so with its
// bits: four lanes by position modulo 4 over the leading multiple of 4, the
// remaining 1–3 terms into lane 0 after them, and (lane 0 + lane 2) +
// (lane 1 + lane 3).
type dotSum struct {
	lane      [4]float64
	start, n4 int
}

func newDotSum(start, end int) dotSum { return dotSum{start: start, n4: start + (end-start)&^3} }

func (s *dotSum) add(c int, p float64) {
	if c >= s.n4 {
		s.lane[0] += p
		return
	}
	s.lane[(c-s.start)&3] += p
}

func (s *dotSum) sum() float64 { return (s.lane[0] + s.lane[2]) + (s.lane[1] + s.lane[3]) }
