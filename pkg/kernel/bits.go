package kernel

import (
	"math"
	"math/bits"
)

// This file holds the bitset form of the sparse route's columns
// (sparseRows.Column) for rows whose stored entries all have the same
// square w: binary and one-hot features under an isotropic metric (every
// stored entry of LIBSVM's a1a and w8a, and of any 0/1 file, is ±√(2γ)).
// The scatter then adds the same product w once per feature two rows share,
// to an entry that starts at 0, so x̃_i·x̃_j is dots[m], the sum of m copies
// of w added one at a time, m the number of shared features: the same bits
// in whatever order the features come. A column is then a popcount of two
// bitsets an entry instead of a scatter down every feature's rows and a
// gather (Adult's 14 of 123 features, four in ten rows each: about four
// scattered additions an entry, against two words).
//
// The Gaussian's exponent gaussArg(dot, h_i, h_j) then depends on m and
// h_j only, and such rows have few distinct h_j (½ of a sum of m copies of
// w again: one per number of features set), so when there are few of them
// a column takes its exp values from a table of gaussArg and expNonPos over
// those (h_j, m) pairs, computed per column, instead of an exp an entry:
// the same operations on the same operands, so the same bits as
// gaussColumn (TestSparseBitsSameBits).

// bitsMaxWords bounds the bitset route to 64·bitsMaxWords route columns.
const bitsMaxWords = 16

// bitsTableMax bounds the per-column table (distinct h values × (m_i+1)
// entries), which lives on the stack.
const bitsTableMax = 512

// noteBits builds the bitsets when every stored entry has the same square
// and they cost fewer word operations an entry than the scatter's
// additions (r.cost): r.bits then holds row j's route columns in words
// words, r.dots the sums of m products, and, when the rows have at most
// bitsTableMax distinct h values, r.hVals and r.hCls (h_j = hVals[hCls[j]]).
func (r *sparseRows) noteBits(ws *RowsWorkspace) {
	r.bits, r.dots, r.hVals, r.hCls = nil, nil, nil, nil
	if r.colConst == nil {
		return
	}
	u := len(r.colPtr) - 1
	words := (u + 63) / 64
	if words == 0 || words > bitsMaxWords || words > r.cost-16 {
		return
	}
	w := math.NaN()
	for k, c := range r.colConst {
		if r.colPtr[k+1] == r.colPtr[k] {
			continue
		}
		if math.IsNaN(c) {
			return
		}
		if cc := c * c; math.IsNaN(w) {
			w = cc
		} else if cc != w {
			return
		}
	}
	if math.IsNaN(w) {
		return
	}
	if ws != nil {
		r.bits = grow(&ws.bits, r.n*words)
	} else {
		r.bits = make([]uint64, r.n*words)
	}
	r.words = words
	for k := range u {
		for _, j := range r.colRow[r.colPtr[k]:r.colPtr[k+1]] {
			r.bits[int(j)*words+k/64] |= 1 << (k % 64)
		}
	}
	// dots[m] for m up to the most features a row has.
	maxRow := 0
	for j := range r.n {
		maxRow = max(maxRow, popcount(r.bits[j*words:(j+1)*words]))
	}
	r.dots = make([]float64, maxRow+1)
	for m := 1; m <= maxRow; m++ {
		r.dots[m] = r.dots[m-1] + w
	}
	if r.linear {
		return
	}
	cls := map[float64]uint16{}
	for _, hj := range r.h {
		if _, ok := cls[hj]; !ok {
			if len(cls) == bitsTableMax {
				return
			}
			cls[hj] = uint16(len(cls))
		}
	}
	r.hVals = make([]float64, len(cls))
	for hv, a := range cls {
		r.hVals[a] = hv
	}
	if ws != nil {
		r.hCls = grow(&ws.hCls, r.n)
	} else {
		r.hCls = make([]uint16, r.n)
	}
	for j, hj := range r.h {
		r.hCls[j] = cls[hj]
	}
}

// popcount is the number of bits set in b.
func popcount(b []uint64) int {
	m := 0
	for _, x := range b {
		m += bits.OnesCount64(x)
	}
	return m
}

// bitsColumn is Column on the bitset route: the entries of column i for the
// rows idx (the prefix of len(dst) rows when nil), the Gaussian's values
// included.
func (r *sparseRows) bitsColumn(i int, idx []int, dst []float64) {
	w := r.words
	bi := r.bits[i*w : (i+1)*w : (i+1)*w]
	mi := popcount(bi)
	stride := mi + 1
	if r.hVals == nil || len(r.hVals)*stride > bitsTableMax || len(r.hVals)*stride > len(dst)/4 {
		// The dot products, then the exponents and the exp pass as the
		// scatter's columns get them.
		dots := r.dots[:stride]
		if idx == nil {
			for j := range dst {
				dst[j] = dots[r.shared(bi, j)]
			}
		} else {
			for k, j := range idx {
				dst[k] = dots[r.shared(bi, j)]
			}
		}
		if !r.linear {
			gaussColumn(i, idx, dst, r.h)
		}
		return
	}
	var table [bitsTableMax]float64
	t := table[:len(r.hVals)*stride]
	hi := r.h[i]
	for a, hv := range r.hVals {
		for m := range stride {
			t[a*stride+m] = gaussArg(r.dots[m], hi, hv)
		}
	}
	expNonPosSlice(t)
	hc := r.hCls
	switch {
	case idx == nil:
		for j := range dst {
			dst[j] = t[int(hc[j])*stride+r.shared(bi, j)]
		}
		if i < len(dst) {
			dst[i] = 1
		}
		return
	case w == 2:
		// Adult's 123 features: two words, unrolled.
		b0, b1 := bi[0], bi[1]
		for k, j := range idx {
			bj := r.bits[2*j : 2*j+2 : 2*j+2]
			m := bits.OnesCount64(b0&bj[0]) + bits.OnesCount64(b1&bj[1])
			dst[k] = t[int(hc[j])*stride+m]
		}
	default:
		for k, j := range idx {
			dst[k] = t[int(hc[j])*stride+r.shared(bi, j)]
		}
	}
	for k, j := range idx {
		if j == i {
			dst[k] = 1
		}
	}
}

// shared is the number of route columns set in both bi (a row's bitset)
// and row j.
func (r *sparseRows) shared(bi []uint64, j int) int {
	w := len(bi)
	bj := r.bits[j*w : j*w+w : j*w+w]
	m := 0
	for q, x := range bi {
		m += bits.OnesCount64(x & bj[q])
	}
	return m
}
