//go:build !amd64 || noasm || gccgo || safe

package sqp

// dotSum sums the products of columns given in increasing order, in order,
// as gonum's Go form of DotUnitary sums them.
type dotSum struct{ s float64 }

func newDotSum(start, end int) dotSum { return dotSum{} }

func (s *dotSum) add(c int, p float64) { s.s += p }

func (s *dotSum) sum() float64 { return s.s }
