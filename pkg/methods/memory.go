package methods

import (
	"fmt"
	"math"
)

// Peak memory of the methods, estimated before any work (issue 11: refuse up
// front, with the largest n that fits, instead of dying of an out-of-memory
// kill half-way through a long run).
//
// Every method's memory is dominated by dense n×n float64 matrices (8n²
// bytes: 200 MB at n = 5,000, 3.2 GB at n = 20,000) and the SVM solver's
// column cache, which holds at most min(CacheMB, 8k²) bytes for a k×k
// problem. The estimates below count the matrices each method holds at once
// at its peak, read off its code; each is an upper bound on the Go heap's
// live data, checked against the maximum resident set size of `tune` in
// BENCHMARKS.md ("Memory"). The Go garbage collector may let the process
// grow above its live heap between collections (GOGC), so leave headroom.

// fl is the size of a float64.
const fl = 8

// RuntimeBytes is what the process holds besides the method's data: the
// binary, goroutine stacks, the runtime's own structures (about 20 MB
// resident on Linux/amd64) and the final fit's small buffers. PeakBytes
// counts it once; a process that runs several methods at once holds it
// once.
const RuntimeBytes = 32 << 20

// sq returns the bytes of a dense k×k float64 matrix.
func sq(k int) int64 { return fl * int64(k) * int64(k) }

// memModel holds what the estimates depend on besides n and d.
type memModel struct {
	folds   int   // CV folds
	workers int   // goroutines a method may run at once
	cache   int64 // solver cache bound in bytes
	// pairShare is Common.pairShare: the largest one-vs-one pair's share
	// of a fold's rows (0: binary data, or one-vs-rest).
	pairShare float64
}

func newMemModel(c Common) memModel {
	m := memModel{folds: c.Folds, workers: c.workers(), cache: 200 << 20, pairShare: c.pairShare}
	if m.folds == 0 {
		m.folds = defaultFolds
	}
	if c.CacheMB > 0 {
		m.cache = int64(c.CacheMB) << 20
	}
	return m
}

// peak returns a method's estimated peak on n rows of d features from its
// work: the runtime's share, the data (three copies: as read, normalised,
// and a method's working copy) and the work. Each settings type's PeakBytes
// says what its work holds.
func peak(n, d int, work int64) int64 {
	return RuntimeBytes + 3*fl*int64(n)*int64(d) + work
}

// cacheOf returns the solver cache's peak for a k×k problem.
func (m memModel) cacheOf(k int) int64 { return min(m.cache, sq(k)) }

// foldJob returns one CV job's peak on n rows: the fold's training Gram
// (k = n - ⌈n/folds⌉ rows, full storage), its test-by-training matrix and
// the solver cache over the Gram; one-vs-one on multi-class data
// (pairShare), the same of the largest pair's rows of the fold, which is
// all a job holds at once (foldSweepPairsD).
func (m memModel) foldJob(n int) int64 {
	test := (n + m.folds - 1) / m.folds
	k := n - test
	if m.pairShare > 0 {
		k = min(k, int(math.Ceil(m.pairShare*float64(k)))+m.folds)
	}
	return sq(k) + fl*int64(test)*int64(k) + m.cacheOf(k)
}

// grid returns gridSearchCV's peak: the n×n squared distances and one fold
// job per worker (10 γ × folds jobs). Above denseCVRows the full grid runs
// on a subset of GridRows rows and the refinement on all n takes the
// bounded-memory route (rowsJobs).
func (m memModel) grid(n, d int, c Common) int64 {
	if n <= denseCVRows {
		return m.denseGrid(n)
	}
	sub := n
	if r := c.gridRows(); r > 0 {
		sub = min(n, r)
	}
	// The subset's dense grid, unless it is itself above denseCVRows
	// (--grid-rows large or -1): then every job takes the rows route.
	dense := int64(0)
	if sub <= denseCVRows {
		dense = m.denseGrid(sub)
	}
	return max(dense, m.rowsJobs(n, d, len(gridLog2Gamma)))
}

// denseGrid is the dense route's grid on n rows: the squared distances
// (packed on one-vs-one multi-class data, pairShare: isoEval.setDistances)
// and the jobs.
func (m memModel) denseGrid(n int) int64 {
	dist := sq(n)
	if m.pairShare > 0 {
		dist = fl * int64(n) * int64(n+1) / 2
	}
	return dist + int64(min(m.workers, len(gridLog2Gamma)*m.folds))*m.foldJob(n)
}

// rowsJobs returns the peak of the bounded-memory CV (cvGroup with X) on n
// rows of d features with groups kernels: per worker, the solver's cache of
// a fold's training part, the kernel's prepared rows (at most a copy of
// the data and, on the sparse route, its CSR and CSC forms: 3 n×d) and the
// solve's O(n) vectors and workspace (16 n).
func (m memModel) rowsJobs(n, d, groups int) int64 {
	k := n - (n+m.folds-1)/m.folds
	job := m.cacheOf(k) + 3*fl*int64(n)*int64(d) + 16*fl*int64(n)
	return int64(min(m.workers, groups*m.folds)) * job
}

// finalFit returns the final SVM's peak on n rows of d features (pkg/model,
// after the method): the solver's cache, the support vectors (at most a
// copy of the rows) and O(n) vectors.
func (m memModel) finalFit(n, d int) int64 {
	return m.cacheOf(n) + fl*int64(n)*int64(d) + 16*fl*int64(n)
}

// PeakBytes is the one memory estimate of the one entry (Tune) of s on n
// rows of d features: the method's own PeakBytes where it runs on all rows;
// for a kernel-learning method on more than KernelRows rows (tuneBinary),
// its PeakBytes on the subset, the data's copies at n and the subset's copy,
// or the final fit on all n rows, whichever is larger.
//
// It is a bound on the resident set, not only on the live data: each
// settings type's PeakBytes counts the live data, and PeakBytes adds 1/5 of
// the data and work (not of the runtime's fixed share) for what the Go heap
// holds beyond its soft limit when the collector's limit is the live
// estimate (GCLimit): svm at 32,561 rows, with the limit at 900 MB, peaked
// at 930 MB resident (without a limit at the estimate, at 1.5 GB); with
// 1/8, gi at 5,000 rows peaked 7 MB over its estimate of 1,336 MB.
func PeakBytes(s Spec, n, d int) int64 {
	return withHeadroom(liveBytes(s, n, d))
}

// GCLimit is the soft memory limit for the collector (debug.SetMemoryLimit)
// that keeps a run whose PeakBytes is need within need: the live data
// need counts.
func GCLimit(need int64) int64 {
	if need <= RuntimeBytes {
		return need
	}
	return RuntimeBytes + (need-RuntimeBytes)*5/6
}

// withHeadroom returns live plus 1/5 of what it holds above the runtime's
// share (GCLimit's inverse).
func withHeadroom(live int64) int64 {
	if live <= RuntimeBytes {
		return live
	}
	return live + (live-RuntimeBytes)/5
}

// liveBytes is the live data PeakBytes bounds.
func liveBytes(s Spec, n, d int) int64 {
	m := learnRows(s, n)
	if m == n {
		return s.PeakBytes(n, d)
	}
	mm := newMemModel(s.Base())
	learn := s.PeakBytes(m, d) + 3*fl*int64(n-m)*int64(d) + fl*int64(m)*int64(d)
	return max(learn, peak(n, d, mm.finalFit(n, d)))
}

// selectC returns selectC's peak: the caller's n×n kernel matrix and one
// fold job per worker (folds jobs).
func (m memModel) selectC(n int) int64 {
	return sq(n) + int64(min(m.workers, m.folds))*m.foldJob(n)
}

// MaxRows returns the largest number of rows (at most 10⁷) on which s
// stays within limit bytes by its PeakBytes, 0 when not even one row does.
func MaxRows(s Spec, d int, limit int64) int {
	return largestFit(1, func(n int) bool { return PeakBytes(s, n, d) <= limit })
}

// largestFit returns the largest n in [lo, 10⁷] for which fits holds, fits
// being true up to some n and false after (the estimates grow with n, with
// no overflow up to 10⁷), or 0 when it does not hold at lo.
func largestFit(lo int, fits func(n int) bool) int {
	if !fits(lo) {
		return 0
	}
	hi := 10_000_000
	if fits(hi) {
		return hi
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if fits(mid) {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo
}

// MemoryError is a refusal to run: the method's estimated peak memory on the
// data exceeds the bound the user set.
type MemoryError struct {
	Method     string
	N, D       int   // training rows and features
	Need, Max  int64 // estimated peak and the bound, in bytes
	MaxN       int   // the largest n within the bound
	Workers    int   // goroutines assumed (each holds a CV fold's matrices)
	CacheBytes int64 // the solver cache bound assumed
}

func (e *MemoryError) Error() string {
	return fmt.Sprintf("%s needs about %s for %d training rows × %d features, more than the bound of %s; within it %s can handle at most %d training rows (estimate with %d workers and a %s solver cache)",
		e.Method, mb(e.Need), e.N, e.D, mb(e.Max), e.Method, e.MaxN, e.Workers, mb(e.CacheBytes))
}

// mb formats bytes in MB (2²⁰ bytes), rounded up.
func mb(b int64) string { return fmt.Sprintf("%d MB", int64(math.Ceil(float64(b)/(1<<20)))) }

// CheckMemory returns a *MemoryError when the estimated peak of s on n rows
// of d features exceeds limit bytes, and nil otherwise (also for limit ≤ 0:
// no bound).
func CheckMemory(s Spec, n, d int, limit int64) error {
	if limit <= 0 {
		return nil
	}
	need := PeakBytes(s, n, d)
	if need <= limit {
		return nil
	}
	mm := newMemModel(s.Base())
	return &MemoryError{Method: s.Name(), N: n, D: d, Need: need, Max: limit, MaxN: MaxRows(s, d, limit), Workers: mm.workers, CacheBytes: mm.cache}
}
