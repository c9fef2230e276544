package solver

import (
	"math"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// cache is an LRU cache of signed kernel columns P_ij = y_i y_j Q_ij, bounded
// in bytes (LIBSVM's Cache + SVC_Q::get_Q). Columns are indexed by solver
// position and stored in position order; a column holds a prefix [0, len) of
// its entries and is extended on demand, so while variables are shrunk only
// the active part is computed. Columns are float64 (LIBSVM stores float32):
// the tuning methods differentiate optimal values and need the accuracy.
type cache struct {
	q    kernel.Matrix
	perm []int     // shared with smo: position → original index
	y    []float64 // shared with smo
	sign bool      // some y_i = -1: columns need signing

	cols       [][]float64 // by position; nil when not cached
	prev, next []int       // LRU list over positions, sentinel at index n
	budget     int         // in float64s
	used       int
	identity   bool // perm is still the identity (no swap yet)
	nonFinite  bool // a kernel entry was NaN or ±Inf
}

func newCache(q kernel.Matrix, perm []int, y []float64, bytes int) *cache {
	n := len(perm)
	c := &cache{
		q: q, perm: perm, y: y,
		cols:     make([][]float64, n),
		prev:     make([]int, n+1),
		next:     make([]int, n+1),
		budget:   max(bytes/8, 2*n),
		identity: true,
	}
	for _, v := range y {
		if v != 1 {
			c.sign = true
			break
		}
	}
	c.prev[n], c.next[n] = n, n
	return c
}

func (c *cache) unlink(i int) {
	c.next[c.prev[i]] = c.next[i]
	c.prev[c.next[i]] = c.prev[i]
}

// link inserts i as the most recently used.
func (c *cache) link(i int) {
	h := len(c.cols)
	c.prev[i], c.next[i] = c.prev[h], h
	c.next[c.prev[h]] = i
	c.prev[h] = i
}

// get returns entries [0, length) of column i (P_ij for positions j).
func (c *cache) get(i, length int) []float64 {
	col := c.cols[i]
	have := len(col)
	if have > 0 {
		c.unlink(i)
	}
	if have < length {
		need := length - have
		h := len(c.cols)
		for c.used+need > c.budget && c.next[h] != h {
			lru := c.next[h]
			c.unlink(lru)
			c.used -= len(c.cols[lru])
			c.cols[lru] = nil
		}
		var nc []float64
		if cap(col) >= length {
			nc = col[:length]
		} else {
			nc = make([]float64, length)
			copy(nc, col)
		}
		dst := nc[have:length]
		if have == 0 && c.identity {
			c.q.Column(c.perm[i], nil, dst)
		} else {
			c.q.Column(c.perm[i], c.perm[have:length], dst)
		}
		for _, v := range dst {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				c.nonFinite = true
				break
			}
		}
		if c.sign {
			yi := c.y[i]
			ys := c.y[have:length]
			for k := range dst {
				dst[k] *= yi * ys[k]
			}
		}
		c.used += need
		col = nc
		c.cols[i] = col
	}
	c.link(i)
	return col[:length]
}

// swap exchanges positions i and j (LIBSVM's Cache::swap_index): the columns
// of i and j trade places, and every cached column swaps its entries i and j,
// or is dropped when it holds only the first of them.
func (c *cache) swap(i, j int) {
	if i == j {
		return
	}
	c.identity = false
	if i > j {
		i, j = j, i
	}
	ci, cj := c.cols[i], c.cols[j]
	if len(ci) > 0 {
		c.unlink(i)
	}
	if len(cj) > 0 {
		c.unlink(j)
	}
	c.cols[i], c.cols[j] = cj, ci
	if len(cj) > 0 {
		c.link(i)
	}
	if len(ci) > 0 {
		c.link(j)
	}
	h := len(c.cols)
	for k := c.next[h]; k != h; {
		nk := c.next[k]
		col := c.cols[k]
		if len(col) > i {
			if len(col) > j {
				col[i], col[j] = col[j], col[i]
			} else {
				c.unlink(k)
				c.used -= len(col)
				c.cols[k] = nil
			}
		}
		k = nk
	}
}
