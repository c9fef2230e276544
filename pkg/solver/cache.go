package solver

import (
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/kernel"
)

// cache is an LRU cache of signed kernel columns P_ij = y_i y_j Q_ij, bounded
// in bytes (LIBSVM's Cache + SVC_Q::get_Q). Columns are indexed by solver
// position and stored in position order; a column holds a prefix [0, len) of
// its entries and is extended on demand, so while variables are shrunk only
// the active part is computed. Columns are float64 up to SingleAbove
// variables (LIBSVM stores float32): the tuning methods differentiate
// optimal values and need the accuracy; above, float32 (see below).
//
// Swaps of positions (shrinking) are logged and applied to a column only when
// it is next used, instead of to every cached column at once as LIBSVM's
// Cache::swap_index does: most cached columns belong to shrunk variables and
// are never read again before the final unshrink, and a column that holds
// only the first of two swapped positions is cut to the valid prefix rather
// than dropped. The memory bound counts capacities, so it is a true bound.
//
// In single precision (Settings.Precision; by default above singleAbove
// variables) the columns are stored as float32, as LIBSVM's Qfloat: each
// entry computed in float64, signed, then rounded, the diagonal kept in
// float64 (QD). A column then costs half the bytes, so a budget holds twice
// the entries, and the solver sees svm-train's numbers, so it follows
// svm-train's path to the same support vectors (TestSinglePrecisionIsLIBSVM).
// get converts the requested entries into one of two float64 buffers, in
// turn, which keeps get's promise (valid until the next get but one) and
// the sweeps' float64 form.
type cache struct {
	q kernel.Matrix
	// stored is q when it holds its columns in memory (kernel.Stored):
	// fill and initGradient read them where they lie.
	stored kernel.Stored
	perm   []int     // shared with smo: position → original index
	y      []float64 // shared with smo
	sign   bool      // some y_i = -1: columns need signing

	cols       [][]float64  // by position; nil when not cached (double precision)
	cols32     [][]float32  // the same in single precision; nil in double
	out        [2][]float64 // single: get's result buffers, used in turn
	turn       int
	part       []float64 // single: a column part computed in float64
	ver        []int     // swaps in log already applied to cols[i]
	log        []swapPair
	prev, next []int      // LRU list over positions, sentinel at index n
	budget     int        // in entries (float64s, or float32s when single)
	used       int        // Σ cap(cols[i]) (or cols32)
	identity   bool       // perm is still the identity (no swap yet)
	nonFinite  bool       // a kernel entry was NaN or ±Inf (or beyond float32, single)
	maxAbs     float64    // single: the largest |entry| computed, and |diagonal| (rangeErr)
	ws         *Workspace // buffers to take before allocating; nil: none
	pool       *colPool   // helpers that compute long columns; nil: serial

	// misses counts the column computations (a miss, or a cached prefix
	// extended) and entries the kernel entries they computed: what a solve
	// cost in kernel evaluations (Result.Columns, Result.Entries).
	misses  int
	entries int64

	// When the budget holds the whole matrix (and the matrix is large),
	// every column buffer gets the full capacity n, carved from one arena
	// allocated at the first miss and advised to the kernel as huge pages:
	// then no buffer is ever evicted or outgrown, and the page faults of
	// touching ~n² floats (15-25% of a solve at n = 5,000 with 4 KB pages)
	// drop by the huge page's factor. arenaNext counts the slots taken.
	// A solve that starts with buffers in its workspace (the next C of a
	// grid sweep) takes those and allocates further columns one by one: a
	// second arena would double the heap that a memory limit sees.
	whole     bool
	arenaOK   bool
	arena     []float64
	arenaNext int // slots taken of arena
	arenaCols int // columns of the slabs allocated in the Go heap
	mapTried  bool
	unmap     func() // releases a mapped arena; nil: none, or in the Go heap
}

// arenaMinBytes is the smallest whole matrix served from an arena: below,
// the page faults are few and the columns are allocated one by one. (A
// variable for the tests.)
var arenaMinBytes = 8 << 20

// arenaSlabBytes is the size of one slab of an arena in the Go heap (a
// variable for the tests).
var arenaSlabBytes = 1 << 20

type swapPair struct{ i, j int } // i < j

func newCache(q kernel.Matrix, perm []int, y []float64, bytes int, ws *Workspace) *cache {
	return newCacheOf(q, perm, y, bytes, ws, false)
}

// newCacheOf is newCache, in single precision when single is set.
func newCacheOf(q kernel.Matrix, perm []int, y []float64, bytes int, ws *Workspace, single bool) *cache {
	n := len(perm)
	c := &cache{
		q: q, perm: perm, y: y,
		cols:     make([][]float64, n), // len(cols) is n in either precision
		ver:      make([]int, n),
		prev:     make([]int, n+1),
		next:     make([]int, n+1),
		budget:   max(bytes/8, 2*n),
		identity: true,
		ws:       ws,
	}
	for _, v := range y {
		if v != 1 {
			c.sign = true
			break
		}
	}
	c.stored, _ = q.(kernel.Stored)
	c.prev[n], c.next[n] = n, n
	if single {
		c.cols32 = make([][]float32, n)
		c.part = make([]float64, n)
		c.budget = max(bytes/4, 2*n)
		c.whole = n*n <= c.budget // columns at full capacity, no arena
		return c
	}
	c.whole = n*n <= c.budget && n*n*8 >= arenaMinBytes
	c.arenaOK = c.whole && (ws == nil || len(ws.free) == 0)
	return c
}

// newBuffer returns a buffer of length length for a column that the cache
// has room for: from the workspace, or (whole matrix) a full-capacity slot of
// the arena, or a new allocation.
func (c *cache) newBuffer(length int) []float64 {
	if !c.whole {
		if b := c.fromWorkspace(length); b != nil {
			return b[:length]
		}
		return make([]float64, length)
	}
	n := len(c.cols)
	if b := c.fromWorkspace(n); b != nil {
		return b[:length]
	}
	if !c.mapTried && c.arenaOK && c.ws == nil {
		c.mapTried = true
		// Without a workspace no column outlives the solve (release), so
		// the arena can be mapped memory, unmapped at the end (mapArena):
		// its pages are zero and touched only where a column lands.
		c.arena, c.unmap = mapArena(n * n)
	}
	if k := c.arenaNext; c.arena != nil && (k+1)*n <= len(c.arena) {
		c.arenaNext++
		return c.arena[k*n : k*n+length : (k+1)*n]
	}
	if c.arenaOK && c.unmap == nil && c.arenaCols < n {
		// In the Go heap (a memory limit is set, or the map failed) the
		// arena comes in slabs of 1 MB: a make of the whole n×n zeroes
		// every page at once, where a solve may touch a few columns (the
		// 325 pairs of a 26-class set: 10 MB cleared per pair for about
		// 2 MB used, 7% of letter's training; 4 MB slabs left 7% of the
		// rest, 1 MB cut letter's CPU by another 5-7%, with no change on
		// 5,000 sparse rows).
		cols := min(max(arenaSlabBytes/(8*n), 1), n-c.arenaCols)
		c.arena = make([]float64, cols*n)
		adviseHugePages(c.arena)
		c.arenaCols += cols
		c.arenaNext = 1
		return c.arena[:length:n]
	}
	return make([]float64, length, n)
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

// catchUp applies the logged swaps that column i has not seen.
func (c *cache) catchUp(i int) {
	if c.cols32 != nil {
		c.cols32[i] = catchUpCol(c.cols32[i], c.log[c.ver[i]:])
	} else {
		c.cols[i] = catchUpCol(c.cols[i], c.log[c.ver[i]:])
	}
	c.ver[i] = len(c.log)
}

// catchUpCol applies the swaps of log to col and returns it, cut to its
// valid prefix.
func catchUpCol[E float32 | float64](col []E, log []swapPair) []E {
	for _, s := range log {
		switch {
		case len(col) > s.j:
			col[s.i], col[s.j] = col[s.j], col[s.i]
		case len(col) > s.i:
			col = col[:s.i] // position s.i now holds another variable
		}
	}
	return col
}

// evict drops the least recently used column of cols (the cache's cols, or
// cols32 in single precision) and returns its buffer.
func evict[E float32 | float64](c *cache, cols [][]E) []E {
	h := len(c.cols)
	k := c.next[h]
	c.unlink(k)
	buf := cols[k]
	cols[k] = nil
	c.used -= cap(buf)
	return buf
}

// makeRoom evicts the least recently used columns of cols until length
// more entries fit in the budget, and returns an evicted buffer of capacity
// at least length to reuse (no allocation, no zeroing), or nil.
func makeRoom[E float32 | float64](c *cache, cols [][]E, length int) (spare []E) {
	h := len(c.cols)
	for c.used+length > c.budget && c.next[h] != h {
		if b := evict(c, cols); spare == nil && cap(b) >= length {
			spare = b
		}
	}
	return spare
}

// current takes column i of cols (the cache's cols, or cols32) out of the
// LRU list, when cached, and brings it up to date with the logged swaps.
func current[E float32 | float64](c *cache, cols [][]E, i int) []E {
	if cols[i] != nil {
		c.unlink(i)
		if c.ver[i] < len(c.log) {
			c.catchUp(i)
		}
	}
	return cols[i]
}

// has reports whether column i is cached.
func (c *cache) has(i int) bool {
	if c.cols32 != nil {
		return c.cols32[i] != nil
	}
	return c.cols[i] != nil
}

// get returns entries [0, length) of column i (P_ij for positions j).
//
// The returned slice stays valid until the next get but one: a buffer is
// evicted (and possibly reused) only from the LRU end, and since every buffer
// holds at most n entries and the budget is at least 2n, the most recently
// returned column is never evicted by the next get. update relies on this to
// hold columns i and j at once.
func (c *cache) get(i, length int) []float64 {
	if c.cols32 != nil {
		return c.get32(i, length)
	}
	col := current(c, c.cols, i)
	if have := len(col); have < length {
		switch {
		case cap(col) >= length:
		case c.whole:
			// Room for every column at full capacity: no eviction, and
			// this buffer is never outgrown.
			nc := c.newBuffer(length)
			copy(nc, col)
			c.used += cap(nc) - cap(col)
			col = nc
		default:
			// A new buffer: evict until it fits, reusing an evicted buffer
			// that is large enough (no allocation, no zeroing).
			c.used -= cap(col)
			spare := makeRoom(c, c.cols, length)
			var nc []float64
			if spare != nil {
				nc = spare[:length]
			} else {
				nc = c.newBuffer(length)
			}
			copy(nc, col)
			c.used += cap(nc)
			col = nc
		}
		col = col[:length]
		c.compute(i, have, col[have:length])
		c.cols[i] = col
		c.ver[i] = len(c.log)
	}
	c.link(i)
	return col[:length]
}

// getCol is get in the cache's own precision: in single precision the
// column's float32 buffer itself, entries [0, length), not widened. It
// keeps get's promise (valid until the next get but one: a buffer is
// evicted only from the LRU end).
func (c *cache) getCol(i, length int) column {
	if c.cols32 == nil {
		return column{d: c.get(i, length)}
	}
	return column{s: c.col32(i, length)}
}

// get32 is get in single precision: the column is kept in float32 and its
// entries [0, length) returned in float64 in one of the two buffers out.
func (c *cache) get32(i, length int) []float64 {
	col := c.col32(i, length)
	out := c.out[c.turn]
	if cap(out) < length {
		out = make([]float64, length, len(c.cols))
		c.out[c.turn] = out
	}
	out = out[:length]
	widen(out, col)
	c.turn ^= 1
	return out
}

// col32 returns entries [0, length) of column i, kept in float32: the
// cached buffer, computed or extended first when it is short.
func (c *cache) col32(i, length int) []float32 {
	col := current(c, c.cols32, i)
	if have := len(col); have < length {
		if cap(col) < length {
			// A new buffer (at full capacity when the whole matrix fits):
			// evict until it fits, reusing an evicted buffer that is large
			// enough.
			c.used -= cap(col)
			spare := makeRoom(c, c.cols32, length)
			var nc []float32
			switch {
			case spare != nil:
				nc = spare[:length]
			case c.whole:
				nc = c.fromWorkspace32(len(c.cols))[:length]
			default:
				nc = c.fromWorkspace32(length)
			}
			copy(nc, col)
			c.used += cap(nc)
			col = nc
		}
		col = col[:length]
		part := c.part[:length-have]
		c.compute(i, have, part)
		mx, bad := narrow(col[have:], part)
		c.maxAbs = max(c.maxAbs, mx)
		if bad { // an entry beyond float32's range (±3.4e38)
			c.nonFinite = true
		}
		c.cols32[i] = col
		c.ver[i] = len(c.log)
	}
	c.link(i)
	return col[:length]
}

// minNormal32 is float32's smallest normal number, 2^-126 (about 1.2e-38):
// below it a float32 keeps fewer digits, and under 1.4e-45 none.
const minNormal32 = 0x1p-126

// rangeErr is the error of kernel entries the cache cannot hold, or nil:
// in single precision a finite entry beyond float32's range (which makes
// its float32 infinite) or every entry, the diagonal's too, below
// float32's normal range (so that the columns underflow to 0 and the solve
// "converges" on nothing: a linear kernel on features near 1e-25 trained
// to 93.5 % at 5,000 rows and to 50.0 % at 5,001), ErrSingleRange; a NaN
// or ±Inf entry, ErrNaN.
func (c *cache) rangeErr() error {
	single := c.cols32 != nil
	switch {
	case single && c.maxAbs > math.MaxFloat32 && !math.IsInf(c.maxAbs, 0):
		return fmt.Errorf("%w: a kernel value of %.3g is beyond float32's largest, %.3g: the features are too large for the kernel (scale them)", ErrSingleRange, c.maxAbs, math.MaxFloat32)
	case c.nonFinite:
		return fmt.Errorf("%w: in a kernel column", ErrNaN)
	case single && c.maxAbs > 0 && c.maxAbs < minNormal32:
		return fmt.Errorf("%w: the largest kernel value, %.3g, is below float32's smallest normal number, %.3g, so the columns underflow to 0: the features are too small for the kernel (scale them)", ErrSingleRange, c.maxAbs, float64(minNormal32))
	}
	return nil
}

// compute sets dst to the entries have, have+1, ... of column i, with the
// pool's helpers when the part is long enough, and notes a non-finite one.
func (c *cache) compute(i, have int, dst []float64) {
	c.misses++
	c.entries += int64(len(dst))
	var bad bool
	if c.pool.use(len(dst)) {
		bad = c.pool.fill(i, have, dst)
	} else {
		bad = c.fill(i, have, 0, dst)
	}
	if bad {
		c.nonFinite = true
	}
}

// fill computes dst = P_ij for the positions j = have+lo, have+lo+1, ... of
// column i (a part of the entries [have, length) that get computes), and
// reports whether an entry was NaN or ±Inf. It reads the cache's matrix,
// permutation and labels and writes only dst, so the goroutines of a colPool
// run it at once on disjoint parts.
func (c *cache) fill(i, have, lo int, dst []float64) (nonFinite bool) {
	from := have + lo
	if c.stored != nil {
		return c.fillStored(c.stored.StoredColumn(c.perm[i]), i, from, dst)
	}
	if from == 0 && c.identity {
		c.q.Column(c.perm[i], nil, dst)
	} else {
		c.q.Column(c.perm[i], c.perm[from:from+len(dst)], dst)
	}
	nonFinite = anyNonFinite(dst)
	if c.sign {
		yi := c.y[i]
		ys := c.y[from : from+len(dst)]
		for k := range dst {
			dst[k] *= yi * ys[k]
		}
	}
	return nonFinite
}

// anyNonFinite reports whether an entry of s is NaN or ±Inf. v - v is 0
// for finite v and NaN otherwise, so Σ v - v is 0 exactly when every entry
// is finite, in whatever order it is summed: four independent sums, one
// branch-free sweep whose additions do not wait on each other (a single
// sum's chain of dependent additions cost 3 % of a 26,000-row solve at
// large C).
func anyNonFinite(s []float64) bool {
	var z0, z1, z2, z3 float64
	k := 0
	for ; k+4 <= len(s); k += 4 {
		v := s[k : k+4 : k+4]
		z0 += v[0] - v[0]
		z1 += v[1] - v[1]
		z2 += v[2] - v[2]
		z3 += v[3] - v[3]
	}
	for _, v := range s[k:] {
		z0 += v - v
	}
	return z0+z1+z2+z3 != 0 // NaN != 0
}

// fillStored is fill from a column held in memory, src (the entries by
// original index): one pass that gathers, signs and checks, where fill
// copies the column (kernel.Matrix.Column) and passes over it twice more.
// Each entry is fill's to the last bit: K_ij·(y_i y_j), and the check sums
// v - v over the same values.
func (c *cache) fillStored(src []float64, i, from int, dst []float64) (nonFinite bool) {
	z := 0.0
	switch {
	case c.identity && !c.sign:
		copy(dst, src[from:from+len(dst)])
		return anyNonFinite(dst)
	case c.identity:
		z = signedCopy(dst, src[from:from+len(dst)], c.y[from:from+len(dst)], c.y[i])
	case !c.sign:
		for k, j := range c.perm[from : from+len(dst)] {
			v := src[j]
			z += v - v
			dst[k] = v
		}
	default:
		yi := c.y[i]
		ys := c.y[from : from+len(dst)]
		for k, j := range c.perm[from : from+len(dst)] {
			v := src[j]
			z += v - v
			dst[k] = v * (yi * ys[k])
		}
	}
	return z != 0 // NaN != 0
}

// fromWorkspace returns a buffer of capacity at least length from the
// workspace, or nil. Buffers too small for the request are dropped: within
// one sweep of solves they are rare (a column of a shrunk problem).
func (c *cache) fromWorkspace(length int) []float64 {
	if c.ws == nil {
		return nil
	}
	for k := len(c.ws.free) - 1; k >= 0; k-- {
		b := c.ws.free[k]
		c.ws.free[k] = nil
		c.ws.free = c.ws.free[:k]
		if cap(b) >= length {
			return b
		}
	}
	return nil
}

// fromWorkspace32 returns a float32 buffer of length length, from the
// workspace when it holds one large enough.
func (c *cache) fromWorkspace32(length int) []float32 {
	if c.ws != nil {
		for k := len(c.ws.free32) - 1; k >= 0; k-- {
			b := c.ws.free32[k]
			c.ws.free32[k] = nil
			c.ws.free32 = c.ws.free32[:k]
			if cap(b) >= length {
				return b[:length]
			}
		}
	}
	return make([]float32, length)
}

// release hands the cached column buffers to the workspace (when there is
// one) at the end of a solve, or unmaps a mapped arena; the cache is empty
// afterwards.
func (c *cache) release() {
	if c.unmap != nil {
		clear(c.cols)
		c.arena = nil
		c.unmap()
		c.unmap = nil
	}
	if c.ws == nil {
		return
	}
	for i, col := range c.cols32 {
		if col != nil {
			c.ws.free32 = append(c.ws.free32, col[:0])
			c.cols32[i] = nil
		}
	}
	for i, col := range c.cols {
		if col != nil {
			c.ws.free = append(c.ws.free, col[:0])
			c.cols[i] = nil
		}
	}
	c.used = 0
}

// swap exchanges positions i and j: their columns trade places now, and the
// entries i and j of every column are swapped when it is next used.
func (c *cache) swap(i, j int) {
	if i == j {
		return
	}
	c.identity = false
	if i > j {
		i, j = j, i
	}
	hi, hj := c.has(i), c.has(j)
	if hi {
		c.unlink(i)
	}
	if hj {
		c.unlink(j)
	}
	c.cols[i], c.cols[j] = c.cols[j], c.cols[i]
	if c.cols32 != nil {
		c.cols32[i], c.cols32[j] = c.cols32[j], c.cols32[i]
	}
	c.ver[i], c.ver[j] = c.ver[j], c.ver[i]
	if hj {
		c.link(i)
	}
	if hi {
		c.link(j)
	}
	c.log = append(c.log, swapPair{i, j})
	if len(c.log) > 4*len(c.cols)+1024 {
		c.compact()
	}
}

// compact brings every cached column up to date and empties the log.
func (c *cache) compact() {
	h := len(c.cols)
	for k := c.next[h]; k != h; k = c.next[k] {
		if c.ver[k] < len(c.log) {
			c.catchUp(k)
		}
	}
	clear(c.ver)
	c.log = c.log[:0]
}
