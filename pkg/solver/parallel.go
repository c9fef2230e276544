package solver

import (
	"runtime"
	"sync/atomic"
	"time"
)

// The solver's one use of more than one core: a kernel column that the cache
// misses is computed in chunks by the solving goroutine and the helpers of a
// colPool, one persistent pool per solve (LIBSVM computes its columns on one
// core). Every entry is computed exactly as in a serial solve (the Matrix
// promises it: kernel.Splittable), so the iteration path, α and every other
// result are the same to the last bit whatever the number of workers.
//
// Synchronisation is one atomic word per column (job sequence, chunk count,
// next chunk), claimed by compare-and-swap. A helper that has finished
// spins for up to spinFor for the next column and then sleeps; the solving
// goroutine wakes a sleeping helper with a channel send. It never waits for
// a helper to start: it claims chunks itself until none is left, and then
// waits only for a chunk a helper has already claimed. So a helper that
// wakes late costs the solve little; one whose thread the OS deschedules
// in the middle of its chunk (a machine busy with other work) delays the
// column by up to that chunk.

// Tuning, measured on the 2-core bench VM (BENCHMARKS.md, "Small problems"): a
// column is split when its length times the Matrix's EntryCost reaches
// splitMinWork (≈ 5 µs of work serially), in one chunk per worker: every
// chunk costs about 1 µs of cache-line traffic between the cores, so a
// column of 5,000 entries took 0.58× the serial time in 2 chunks, 0.66× in
// 8 and 0.85× in 22. (chunksPerWorker > 1 is for the tests.)
var (
	splitMinWork    = 1 << 14
	chunksPerWorker = 1
)

// solvesRunning counts the solves in progress in the process, for the default
// Workers (0): a solve uses its helpers only while there are fewer solves
// than cores, so callers that run solves in parallel do not oversubscribe the
// machine even when they leave Workers at 0.
var solvesRunning atomic.Int64

// columnsSplit counts the column parts computed by a colPool (tests read it
// to know that the parallel branch ran).
var columnsSplit atomic.Int64

// workers resolves Settings.Workers: the goroutines a solve may use
// (1: serial) and whether the count was asked for explicitly.
func workers(w int) (n int, explicit bool) {
	procs := runtime.GOMAXPROCS(0)
	if w == 0 {
		return min(2, procs), false
	}
	return min(w, procs), true
}

// colPool computes kernel columns of one cache on the solving goroutine and
// helpers-many helper goroutines.
type colPool struct {
	c        *cache
	helpers  int
	explicit bool  // Workers was set: ignore solvesRunning
	procs    int64 // GOMAXPROCS at the start of the solve
	minLen   int   // shortest column worth splitting (splitMinWork / cost)
	workers  int   // helpers + 1

	hs []*helper

	// The current job, written by the solving goroutine before it
	// publishes the job in state, read by helpers only after they claimed a
	// chunk of it (so never while the next job is being written).
	i, have, chunk int
	dst            []float64

	// state is seq<<32 | nchunks<<16 | next: the job's sequence number, its
	// number of chunks and its next unclaimed chunk. A helper claims a
	// chunk by compare-and-swap, so a helper still holding an old job's
	// state can never claim a chunk of a newer one.
	state atomic.Uint64
	// remaining counts the current job's chunks not yet computed. When the
	// solving goroutine has to sleep for the last ones it sets waiting to 1,
	// and the helper that finishes the job swaps it to 2 and sends on done.
	remaining atomic.Int32
	waiting   atomic.Int32
	done      chan struct{}
	bad       atomic.Bool // a helper saw a non-finite entry
}

// newColPool returns a pool for c with w-1 helpers running, or nil when the
// solve is serial or c's matrix is not worth splitting.
func newColPool(c *cache, workers int, explicit bool) *colPool {
	if workers < 2 {
		return nil
	}
	cost := 0
	if s, ok := c.q.(interface{ EntryCost() int }); ok {
		cost = s.EntryCost()
	}
	if cost <= 0 {
		return nil
	}
	minLen := max(splitMinWork/cost, 2)
	if minLen > len(c.cols) {
		return nil // no column is long enough
	}
	p := &colPool{
		c: c, helpers: workers - 1, explicit: explicit,
		procs:   int64(runtime.GOMAXPROCS(0)),
		minLen:  minLen,
		workers: workers,
		done:    make(chan struct{}, 1),
	}
	for range p.helpers {
		h := &helper{wake: make(chan struct{}, 1)}
		p.hs = append(p.hs, h)
		go p.help(h)
	}
	return p
}

// helper is the state of one helper goroutine: it sleeps on wake (closed at
// the end of the solve) after setting sleeping to 1, and whoever swaps
// sleeping back to 0 owes it exactly one token.
type helper struct {
	wake     chan struct{}
	sleeping atomic.Int32
}

// stop ends the helpers.
func (p *colPool) stop() {
	if p != nil {
		for _, h := range p.hs {
			close(h.wake)
		}
	}
}

// use reports whether a column part of length m should be split now.
func (p *colPool) use(m int) bool {
	return p != nil && m >= p.minLen && (p.explicit || solvesRunning.Load() < p.procs)
}

// fill computes dst = entries [have, have+len(dst)) of column i (as
// cache.fill does) with the helpers, and reports a non-finite entry.
func (p *colPool) fill(i, have int, dst []float64) (nonFinite bool) {
	columnsSplit.Add(1)
	p.i, p.have, p.dst = i, have, dst
	parts := p.workers * chunksPerWorker
	p.chunk = (len(dst) + parts - 1) / parts
	nchunks := (len(dst) + p.chunk - 1) / p.chunk
	p.remaining.Store(int32(nchunks))
	p.waiting.Store(0)
	p.bad.Store(false)
	seq := p.state.Load()>>32 + 1
	p.state.Store(seq<<32 | uint64(nchunks)<<16) // publishes the job
	for _, h := range p.hs {
		if h.sleeping.CompareAndSwap(1, 0) {
			h.wake <- struct{}{} // a spinning helper sees the job itself
		}
	}
	for {
		k := int(p.state.Add(1)-1) & 0xffff
		if k >= nchunks {
			break
		}
		if p.chunkAt(k) {
			nonFinite = true
		}
		p.remaining.Add(-1)
	}
	// Wait for the chunks the helpers claimed: a helper that was spinning
	// started at the same time and finishes about as soon, so yield for a
	// while first; sleep only when a helper is slow, i.e. its thread was
	// descheduled on a busy machine.
	for spin := 0; p.remaining.Load() != 0; spin++ {
		if spin < spinYields {
			runtime.Gosched()
			continue
		}
		p.waiting.Store(1)
		if p.remaining.Load() == 0 && p.waiting.CompareAndSwap(1, 0) {
			break // finished meanwhile, and no helper will send
		}
		<-p.done
		break
	}
	return nonFinite || p.bad.Load()
}

// spinYields is how often the solving goroutine yields while it waits for a
// helper's last chunk before it sleeps (≈ 10-20 µs). (A variable for the
// tests.)
var spinYields = 100

// chunkAt computes chunk k of the current job.
func (p *colPool) chunkAt(k int) bool {
	lo := k * p.chunk
	hi := min(lo+p.chunk, len(p.dst))
	return p.c.fill(p.i, p.have, lo, p.dst[lo:hi])
}

// help is a helper goroutine: it claims chunks of the current job until
// none is left, then spins for up to spinFor waiting for the next job (the
// next column the solver misses usually comes within microseconds, sooner
// than a sleeping thread wakes up: without the spin helpers computed only
// 5-15% of the chunks), and then sleeps until a job wakes it.
func (p *colPool) help(h *helper) {
	for {
		p.work()
		if p.spin() {
			continue
		}
		h.sleeping.Store(1)
		if p.hasWork() && h.sleeping.CompareAndSwap(1, 0) {
			continue // a job came between the spin and the flag
		}
		// Asleep, or the solving goroutine took the flag and sends a token.
		if _, ok := <-h.wake; !ok {
			return
		}
	}
}

// work claims and computes chunks of the current job while there are any.
func (p *colPool) work() {
	for {
		s := p.state.Load()
		k, nchunks := int(s&0xffff), int(s>>16&0xffff)
		if k >= nchunks {
			return
		}
		if !p.state.CompareAndSwap(s, s+1) {
			continue
		}
		if p.chunkAt(k) {
			p.bad.Store(true)
		}
		if p.remaining.Add(-1) == 0 && p.waiting.CompareAndSwap(1, 2) {
			p.done <- struct{}{}
		}
	}
}

// hasWork reports whether the current job has an unclaimed chunk.
func (p *colPool) hasWork() bool {
	s := p.state.Load()
	return s&0xffff < s>>16&0xffff
}

// spinFor bounds a helper's wait for the next job before it sleeps.
const spinFor = 50 * time.Microsecond

// spin waits up to spinFor for a job with unclaimed chunks.
func (p *colPool) spin() bool {
	start := time.Now()
	for i := 1; ; i++ {
		if p.hasWork() {
			return true
		}
		if i%64 == 0 {
			if time.Since(start) > spinFor {
				return false
			}
			runtime.Gosched()
		}
	}
}
