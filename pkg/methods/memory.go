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
}

func newMemModel(opts Options) memModel {
	m := memModel{folds: opts.Folds, workers: opts.common().workers(), cache: 200 << 20}
	if m.folds == 0 {
		m.folds = defaultFolds
	}
	if opts.CacheMB > 0 {
		m.cache = int64(opts.CacheMB) << 20
	}
	return m
}

// cacheOf returns the solver cache's peak for a k×k problem.
func (m memModel) cacheOf(k int) int64 { return min(m.cache, sq(k)) }

// foldJob returns one CV job's peak on n rows: the fold's training Gram
// (k = n - ⌈n/folds⌉ rows, full storage), its test-by-training matrix and
// the solver cache over the Gram.
func (m memModel) foldJob(n int) int64 {
	test := (n + m.folds - 1) / m.folds
	k := n - test
	return sq(k) + fl*int64(test)*int64(k) + m.cacheOf(k)
}

// grid returns gridSearchCV's peak: the n×n squared distances and one fold
// job per worker (10 γ × folds jobs).
func (m memModel) grid(n int) int64 {
	return sq(n) + int64(min(m.workers, len(gridLog2Gamma)*m.folds))*m.foldJob(n)
}

// selectC returns selectC's peak: the caller's n×n kernel matrix and one
// fold job per worker (folds jobs).
func (m memModel) selectC(n int) int64 {
	return sq(n) + int64(min(m.workers, m.folds))*m.foldJob(n)
}

// PeakBytes estimates the peak memory in bytes of method tuning on n rows
// of d features with opts: the runtime's share, the data (three copies: as
// read, normalised, and a method's working copy) and the method's work.
func PeakBytes(method string, n, d int, opts Options) (int64, error) {
	m := newMemModel(opts)
	data := 3 * fl * int64(n) * int64(d)
	var work int64
	switch method {
	case "svm":
		// The grid search; the final fit afterwards needs only a cache.
		work = max(m.grid(n), m.cacheOf(n))
	case "spd":
		// K′ (the reference kernel), K, the weights ∂w/∂K, a trial K of
		// the line search, one more n×n matrix of headroom, and the solver
		// cache; --init cv first runs the grid search. (Five matrices, not
		// the four read off the code: with --mem-mb at four the RSS at
		// n = 2,000 was 15% above the bound.)
		work = 5*sq(n) + m.cacheOf(n)
		if opts.Init == "cv" {
			work = max(work, m.grid(n))
		}
	case "gi":
		// The Jaakkola start's distances are freed before the steps, which
		// hold K (and the previous step's state), its support-vector block,
		// the weights, and two solver caches (the SVM and the radius); C by
		// the grid search unless given or hard. (Four matrices: with three,
		// the RSS at n = 2,000 under --mem-mb was 11% above the bound.)
		work = 4*sq(n) + 2*m.cacheOf(n)
		if opts.C == 0 && opts.Margin != "hard" {
			work = max(work, m.grid(n))
		}
	case "lccp":
		// C by selectC on the L1 Gram at θ0, then K, the weights and the
		// SVM and radius caches per step.
		work = max(m.selectC(n), 3*sq(n)+2*m.cacheOf(n))
	case "rcsc":
		// The distances (iso) or the previous Gram (diag), K, the gradient's
		// G (diag); up to n = rcscDirectMax also R = K + nλI and its
		// Cholesky factor (above, conjugate gradients need a few vectors);
		// then C by selectC on the final Gram.
		work = max(3*sq(n)+2*sq(min(n, rcscDirectMax)), m.selectC(n))
	case "twolevel":
		// The 1:2 split: an SVM part of n/3 rows and a validation part of
		// 2n/3. K and the free set's A_I with its Cholesky factor on the SVM
		// part, the validation cross matrix and its derivative products; the
		// SQP has a variable and a constraint per validation row (the slacks
		// of eq. 11–12), and holds about six dense matrices of that size
		// (pkg/solver/sqp: its BFGS matrix, the inequality Jacobian, the QP
		// subproblem's factors). Before and after the SQP, the SVM on all n
		// rows (eq. 26, for the support-vector share and μ): its Gram and
		// cache.
		s := (n + 2) / 3
		v := n - s
		work = max(3*sq(s)+3*fl*int64(v)*int64(s)+m.cacheOf(s)+6*sq(v), sq(n)+m.cacheOf(n))
	default:
		return 0, fmt.Errorf("methods: no memory estimate for method %q", method)
	}
	return RuntimeBytes + data + work, nil
}

// MaxRows returns the largest number of rows (at most 10⁷) on which method
// stays within limit bytes by PeakBytes, 0 when not even one row does.
func MaxRows(method string, d int, opts Options, limit int64) (int, error) {
	fits := func(n int) (bool, error) {
		b, err := PeakBytes(method, n, d, opts)
		return b <= limit, err
	}
	if ok, err := fits(1); err != nil || !ok {
		return 0, err
	}
	lo, hi := 1, 10_000_000 // fits(lo); the estimates grow with n (no overflow up to hi)
	if ok, _ := fits(hi); ok {
		return hi, nil
	}
	for hi-lo > 1 {
		mid := lo + (hi-lo)/2
		if ok, _ := fits(mid); ok {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo, nil
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
	return fmt.Sprintf("methods: %s needs about %s for %d training rows × %d features, more than the bound of %s; within it %s can handle at most %d training rows (estimate with %d workers and a %s solver cache)",
		e.Method, mb(e.Need), e.N, e.D, mb(e.Max), e.Method, e.MaxN, e.Workers, mb(e.CacheBytes))
}

// mb formats bytes in MB (2²⁰ bytes), rounded up.
func mb(b int64) string { return fmt.Sprintf("%d MB", int64(math.Ceil(float64(b)/(1<<20)))) }

// CheckMemory returns a *MemoryError when method's estimated peak on n rows
// of d features exceeds limit bytes, and nil otherwise (also for limit ≤ 0:
// no bound).
func CheckMemory(method string, n, d int, opts Options, limit int64) error {
	if limit <= 0 {
		return nil
	}
	need, err := PeakBytes(method, n, d, opts)
	if err != nil {
		return err
	}
	if need <= limit {
		return nil
	}
	maxN, err := MaxRows(method, d, opts, limit)
	if err != nil {
		return err
	}
	mm := newMemModel(opts)
	return &MemoryError{Method: method, N: n, D: d, Need: need, Max: limit, MaxN: maxN, Workers: mm.workers, CacheBytes: mm.cache}
}
