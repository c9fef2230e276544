package dataio

import (
	"hash/maphash"
	"math"
	"slices"

	"github.com/kerneltune/kerneltune/pkg/hint"
)

// describeSparse is Describe of sparse data, on its compressed rows: one
// pass over the non-zeros for the value range and the features' counts
// (and, with stats, their statistics), one over the rows for the
// duplicates, hashed by their stored (index, value) pairs and compared
// exactly within a hash; nothing of n × d is made.
func describeSparse(d *Dataset, stats bool) Summary {
	m := d.Sparse
	n, dim := m.Dims()
	pos, neg := d.ClassCounts()
	s := Summary{
		Name: d.Name, Source: d.Source, Format: d.Format, SHA256: d.SHA256,
		Rows: n, Features: dim, Positive: pos, Negative: neg, Labels: d.Labels,
		Constant: []int{}, Notes: hint.Strings(d.Notes), Unlabeled: !d.Labeled(),
		Classes: d.Classes, Missing: d.Missing, Storage: StorageSparse,
	}
	for _, sp := range d.Splits {
		s.Splits = append(s.Splits, SplitSize{Train: len(sp.Train), Test: len(sp.Test)})
	}
	// Per feature stored (featureIndex: O(features set), not O(d)): the
	// rows that store it (explicit zeros aside) and, for the constant
	// ones, whether every stored value is the first.
	fi := newFeatureIndex(m)
	set := make([]int, len(fi.cols))
	first := make([]float64, len(fi.cols))
	same := make([]bool, len(fi.cols))
	lo, hi := math.Inf(1), math.Inf(-1)
	for p, j := range m.Ind[:m.NNZ()] {
		v := m.Val[p]
		if v == 0 {
			continue
		}
		s.NonZeros++
		lo, hi = min(lo, v), max(hi, v)
		c := fi.pos(j)
		if set[c] == 0 {
			first[c], same[c] = v, true
		} else if v != first[c] {
			same[c] = false
		}
		set[c]++
	}
	if n > 0 && dim > 0 {
		s.Density = float64(s.NonZeros) / (float64(n) * float64(dim))
		if s.NonZeros < int64(n)*int64(dim) { // a zero among the values
			lo, hi = min(lo, 0), max(hi, 0)
		}
		s.ValueRange = [2]float64{lo, hi}
	}
	if n > 0 {
		// Every feature not stored, or stored as zeros only, is unset.
		s.UnsetFeatures = dim
		for c, j := range fi.cols {
			switch {
			case set[c] == 0:
			case set[c] == n && same[c]:
				s.UnsetFeatures--
				s.Constant = append(s.Constant, int(j)+1)
			default:
				s.UnsetFeatures--
			}
		}
	}
	if stats {
		s.Stats = sparseFeatureStats(d)
	}
	s.DuplicateRows, s.ConflictingVectors, s.ConflictingRows = sparseDuplicates(d)
	return s
}

// sparseFeatureStats are the min, max, mean and std (divisor n) of every
// feature of sparse data, from its compressed rows (csrColumnStats: the
// zeros a row does not store counted).
func sparseFeatureStats(d *Dataset) []FeatureStat {
	m := d.Sparse
	n, dim := m.Dims()
	st, err := csrColumnStats(m, true)
	out := make([]FeatureStat, dim)
	c := 0 // the position in st.fi.cols of the first feature ≥ j
	for j := range out {
		out[j] = FeatureStat{Name: d.FeatureName(j), Min: math.NaN(), Max: math.NaN(), Mean: math.NaN(), Std: math.NaN()}
		if err != nil || n == 0 {
			continue // a value that is not finite (the readers refuse them)
		}
		var lo, hi, mean, ss float64 // a feature no row stores is 0
		if c < len(st.fi.cols) && int(st.fi.cols[c]) == j {
			lo, hi, mean, ss = st.lo[c], st.hi[c], st.mean[c], st.ss[c]
			c++
		}
		out[j].Min, out[j].Max, out[j].Mean = lo, hi, mean
		out[j].Std = popStd(m, j, mean, ss, lo, hi)
	}
	return out
}

// sparseDuplicates counts the rows of sparse data whose features equal an
// earlier row's, and the distinct vectors seen with both labels and their
// rows, as Describe does of dense data (stored zeros and -0 are zeros).
func sparseDuplicates(d *Dataset) (dup, conflictVec, conflictRows int) {
	m := d.Sparse
	n, _ := m.Dims()
	seed := maphash.MakeSeed()
	type group struct{ row, pos, neg int }
	groups := map[uint64][]*group{}
	var buf []byte
	for i := 0; i < n; i++ {
		ind, val := m.Row(i)
		buf = buf[:0]
		for p, j := range ind {
			if v := val[p]; v != 0 {
				buf = append(buf, byte(j), byte(j>>8), byte(j>>16), byte(j>>24))
				b := math.Float64bits(v)
				for k := 0; k < 64; k += 8 {
					buf = append(buf, byte(b>>k))
				}
			}
		}
		h := maphash.Bytes(seed, buf)
		var g *group
		for _, c := range groups[h] {
			if sameSparseRow(d, c.row, i) {
				g = c
				break
			}
		}
		if g == nil {
			g = &group{row: i}
			groups[h] = append(groups[h], g)
		} else {
			dup++
		}
		switch {
		case !d.Labeled():
		case d.Y != nil && d.Y[i] > 0:
			g.pos++
		default:
			g.neg++
		}
	}
	for _, gs := range groups {
		for _, g := range gs {
			if g.pos > 0 && g.neg > 0 {
				conflictVec++
				conflictRows += g.pos + g.neg
			}
		}
	}
	return dup, conflictVec, conflictRows
}

// sameSparseRow reports whether rows a and b of d's compressed rows hold
// the same features (zeros stored or not alike).
func sameSparseRow(d *Dataset, a, b int) bool {
	type pair struct {
		j int32
		v float64
	}
	nonzero := func(i int) []pair {
		ind, val := d.Sparse.Row(i)
		out := make([]pair, 0, len(ind))
		for p, j := range ind {
			if val[p] != 0 {
				out = append(out, pair{j, val[p]})
			}
		}
		return out
	}
	return slices.Equal(nonzero(a), nonzero(b))
}
