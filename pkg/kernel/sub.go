package kernel

import "sync"

// Sub returns the kernel matrix of m restricted to the rows idx (in that
// order): entry (a, b) is m's (idx[a], idx[b]). It is how a
// cross-validation fold trains on its rows of a kernel matrix computed from
// data rows without copying anything: the rows are prepared once (Rows) for
// the whole training part, and every fold, and every test row's decision,
// reads its columns through its own index list. Memory stays what the
// solver's column cache holds, not a fold's k×k Gram matrix.
//
// Like m, the result is safe for concurrent use if m is, and it is
// Splittable when m is (the same entries, computed the same way, whatever
// the index list).
func Sub(m Matrix, idx []int) Matrix {
	s := &sub{m: m, idx: idx}
	if _, ok := m.(Splittable); ok {
		return &splittableSub{s}
	}
	return s
}

type sub struct {
	m   Matrix
	idx []int
	// scratch holds []int buffers for index lists mapped through idx.
	scratch sync.Pool
}

func (s *sub) Len() int           { return len(s.idx) }
func (s *sub) Diag(i int) float64 { return s.m.Diag(s.idx[i]) }

func (s *sub) Column(i int, idx []int, dst []float64) {
	if idx == nil {
		s.m.Column(s.idx[i], s.idx[:len(dst)], dst)
		return
	}
	bp, _ := s.scratch.Get().(*[]int)
	if bp == nil || cap(*bp) < len(idx) {
		b := make([]int, len(idx), max(len(idx), len(s.idx)))
		bp = &b
	}
	mapped := (*bp)[:len(idx)]
	for k, j := range idx {
		mapped[k] = s.idx[j]
	}
	s.m.Column(s.idx[i], mapped, dst)
	s.scratch.Put(bp)
}

type splittableSub struct{ *sub }

func (s *splittableSub) EntryCost() int { return entryCost(s.m) }
