// Package solver is kerneltune's one SMO solver for LIBSVM's generic dual
//
//	min_α ½ αᵀPα + pᵀα  s.t.  yᵀα = Δ,  0 ≤ α_i ≤ C_i,  P_ij = y_i y_j Q_ij,
//
// (second-order working-set selection, gradient maintenance with Ḡ, shrinking,
// an LRU cache of kernel columns bounded in bytes, warm starts), and the
// formulations that build problems for it: C-SVC, hard margin, L2 soft margin
// (K + νI) and the radius of the smallest enclosing ball (docs/design.md
// "One SVM solver, several duals").
//
// The algorithm is LIBSVM's Solver (Chang & Lin, LIBSVM 3.x, svm.cpp:
// Solver::Solve, select_working_set, do_shrinking, reconstruct_gradient,
// calculate_rho) with the WSS3 working-set selection of Fan, Chen & Lin (2005),
// "Working set selection using second order information for training SVM",
// JMLR 6, and it stops on the same criterion (maximal violating pair below
// Eps), so its results agree with LIBSVM's svm-train (see the golden tests:
// with LIBSVM's float32 kernel cache emulated, the same iteration count).
//
// Choices where LIBSVM and this package differ:
//   - Kernel columns are cached as float64 (LIBSVM: float32) up to 5,000
//     variables, because the tuning methods differentiate optimal values;
//     above, as float32, LIBSVM's own rounding (Settings.Precision).
//   - Shrinking permutes variables as LIBSVM does, but the cache applies the
//     swaps to a column lazily, when it is next read; and the argmax half of
//     WSS3 is computed inside the gradient-update sweep. Neither changes the
//     path.
//   - MaxIter is a Status (IterationLimit) with a usable α, not a warning.
//   - A sequence of C-SVCs on one matrix (SVCPath: svm's grid on the
//     bounded-memory route) keeps the solver's state from one C to the
//     next: the gradient, the cache and a seeded α (path.go), where svm-train
//     starts each C from α = 0.
//   - Result.Columns and Result.Entries count the kernel columns and
//     entries a solve computed (its cache misses).
//   - Unbounded variables (C_i = +Inf) are supported: hard and L2 margins,
//     the radius; an objective that runs off to -∞ is ErrUnbounded.
//   - A solve may use a second core for the kernel columns it computes
//     (Settings.Workers): each column is split in parts computed at once,
//     every entry exactly as serially, so results are deterministic and do
//     not depend on the number of workers. Callers that parallelise over
//     folds, partitions and grid points set Workers to 1.
//   - WSS3 and the gradient update run without branches on the label or the
//     bound status (NaN-masked signs), and on amd64 with AVX2 four entries
//     at a time in assembly (sweeps.go, sweeps_amd64.s; -tags purego for
//     the Go form). Every entry gets LIBSVM's operations in its order and
//     ties go to the last index, so the path is LIBSVM's, bit for bit.
package solver

import (
	"context"
	"errors"
	"fmt"
	"math"

	"github.com/kerneltune/kerneltune/pkg/kernel"
	"github.com/kerneltune/kerneltune/pkg/status"
)

// Errors returned by Solve and the formulations.
var (
	// ErrInfeasible: no α satisfies yᵀα = Δ and 0 ≤ α ≤ C, or a warm start
	// violates the constraints.
	ErrInfeasible = errors.New("infeasible problem")
	// ErrUnbounded: the objective decreases without bound (an unbounded
	// variable blew up), e.g. a hard margin on data that cannot be separated.
	ErrUnbounded = errors.New("objective unbounded below")
	// ErrNotSeparable: a hard-margin SVM on data that no hyperplane in the
	// kernel's feature space separates.
	ErrNotSeparable = errors.New("data not separable (hard margin)")
	// ErrNaN: the kernel matrix or the gradient produced NaN or ±Inf.
	ErrNaN = errors.New("non-finite value")
	// ErrSingleRange: above SingleAbove variables, where the cache keeps
	// kernel columns in float32 as LIBSVM does, the kernel's values lie
	// beyond float32's range: one above 3.4e38, or all of them below its
	// normal numbers (1.2e-38), where they underflow.
	ErrSingleRange = errors.New("kernel values beyond the range of float32 (in which the solver caches kernel columns above 5,000 training rows, as LIBSVM does)")
)

// Problem is LIBSVM's generic dual
//
//	min_α ½ αᵀPα + pᵀα  s.t.  yᵀα = Δ,  0 ≤ α_i ≤ C_i,  P_ij = y_i y_j Q_ij.
//
// Q is a kernel matrix; the solver caches its columns and signs them on the
// fly. Slices are not modified.
type Problem struct {
	// Q is the n×n kernel matrix (symmetric; PSD, or PSD on yᵀα = 0 as the
	// L1 kernel: other matrices still terminate thanks to the τ guard).
	Q kernel.Matrix
	// Y holds the labels ±1; nil means all +1.
	Y []float64
	// P is the linear term; nil means all -1 (the SVM duals).
	P []float64
	// Delta is the right-hand side of yᵀα = Δ.
	Delta float64
	// C holds per-variable upper bounds C_i > 0 (+Inf allowed: unbounded).
	// When nil, C_i = Cp for y_i = +1 and Cn for y_i = -1.
	C []float64
	// Cp and Cn are the class-wise bounds used when C is nil.
	Cp, Cn float64
	// Alpha0 is an optional feasible warm start; nil starts from α = 0 (or,
	// when Δ ≠ 0, from a feasible point spreading Δ evenly).
	Alpha0 []float64
}

// Settings control Solve. The zero value of every field means its default.
type Settings struct {
	// Eps is the stopping tolerance on the maximal violating pair
	// (LIBSVM's -e); 0 means 1e-3.
	Eps float64
	// MaxIter bounds the SMO iterations; 0 means LIBSVM's max(10⁷, 100n).
	MaxIter int
	// NoShrinking disables LIBSVM's shrinking heuristic (-h 0).
	NoShrinking bool
	// CacheBytes bounds the kernel-column cache; 0 means 200 MB. It is raised
	// to at least two full columns.
	CacheBytes int
	// Workspace, when not nil, hands the kernel-column buffers of this
	// solve's cache to the next solve that uses the same Workspace, instead
	// of freeing them and allocating (and zeroing) new ones: a sweep of
	// solves over one matrix (the C values of a grid search) then allocates
	// its columns once. Column values are computed afresh by every solve,
	// so results do not depend on it.
	Workspace *Workspace
	// Workers is the number of goroutines a solve uses to compute the
	// kernel columns it misses, split in parts (the SMO iterations
	// themselves are sequential). Results do not depend on it: every entry
	// is computed as in a serial solve. 1 is serial; 0 means min(2,
	// GOMAXPROCS), used only while fewer solves than GOMAXPROCS run in the
	// process; n > 1 means min(n, GOMAXPROCS), always. Only matrices that
	// are kernel.Splittable (kernel columns from data rows, not a
	// precomputed Gram) are split, and only long columns. Callers that run
	// solves in parallel should set 1.
	Workers int
	// Precision is how the cache stores kernel columns: Auto (the zero
	// value) is float64 up to SingleAbove variables and float32 above, as
	// LIBSVM always stores them (half the bytes per entry, and svm-train's
	// rounding: the same path and support vectors as svm-train); Double
	// and Single force one. Up to SingleAbove variables every result is the
	// float64 one the tuning methods' derivatives were tested with.
	Precision Precision
}

// Precision of the kernel-column cache (Settings.Precision).
type Precision uint8

// The cache precisions.
const (
	Auto Precision = iota
	Double
	Single
)

// SingleAbove is the problem size above which Auto caches columns in
// float32: kerneltune's results up to 5,000 training rows (the default
// compare, the methods' learning subsets) stay those of float64 columns,
// and larger problems, where the cache is what bounds memory and speed,
// get LIBSVM's float32 cache.
const SingleAbove = 5000

// single resolves the precision for a problem of n variables.
func (p Precision) single(n int) bool {
	return p == Single || (p == Auto && n > SingleAbove)
}

// Workspace holds memory that consecutive solves reuse (Settings.Workspace):
// the column buffers of the last solve's cache, at most CacheBytes of them.
// It is not safe for concurrent use: give each goroutine its own. The zero
// value is ready to use.
type Workspace struct {
	free   [][]float64 // buffers of length 0, any capacity
	free32 [][]float32 // the same for single-precision columns
}

// Result is the outcome of Solve.
type Result struct {
	// Alpha is the solution α.
	Alpha []float64
	// Rho is LIBSVM's ρ, the multiplier of yᵀα = Δ: the decision function of
	// an SVM is Σ y_i α_i k(x_i, x) - ρ.
	Rho float64
	// Obj is the objective ½αᵀPα + pᵀα at Alpha (LIBSVM's "obj").
	Obj float64
	// Iter is the number of SMO iterations.
	Iter int
	// Status says how the solve ended.
	Status status.Status
	// G is the gradient Pα + p at Alpha.
	G []float64
	// Gap is the maximal KKT violation m(α) - M(α) at Alpha (the quantity
	// compared with Eps): ≤ Eps when Converged, larger after a limit.
	Gap float64
	// Columns is the number of kernel columns (or parts of one, a cached
	// prefix extended) the solve computed: its cache misses; Entries is
	// the kernel entries they held. Deterministic: a measure of a solve's
	// kernel work that does not depend on the machine's load.
	Columns int
	Entries int64
}

const (
	defaultEps        = 1e-3
	defaultCacheBytes = 200 << 20
	// tau replaces a non-positive curvature K_ii + K_jj - 2K_ij in WSS3 and
	// in the two-variable update (LIBSVM's TAU; Fan, Chen & Lin 2005, §4),
	// so non-PSD matrices still make progress and terminate.
	tau = 1e-12
	// blowupFactor sets the bound beyond which an unbounded variable is taken
	// as a sign of an unbounded objective, relative to max|p| / (kernel scale).
	blowupFactor = 1e12
)

// Solve minimises p's quadratic program by SMO with LIBSVM's WSS3, gradient
// maintenance, shrinking and column cache. It returns an error for invalid or
// infeasible input, an unbounded objective (ErrUnbounded, Status Failure),
// non-finite values (ErrNaN) and cancellation (Status Canceled, ctx.Err()).
// Reaching MaxIter is Status IterationLimit with a usable α and no error.
// ctx is checked before starting, every 1000 columns of the initial gradient
// and then at the shrinking cadence (every min(n, 1000) iterations), never in
// the inner loop; a cancellation before the initial gradient is complete
// returns no α (Result.Alpha nil), a later one the current feasible α with
// its exact gradient. Slice lengths that do not match Q.Len() panic.
func Solve(ctx context.Context, p Problem, s Settings) (Result, error) {
	m, err := newSolve(p, s)
	if err != nil {
		return Result{}, err
	}
	defer m.cache.release()
	return m.run(ctx, s, true)
}

// newSolve checks p and s and returns the solver's state for p, its α the
// start and its gradient not yet computed.
func newSolve(p Problem, s Settings) (*smo, error) {
	if p.Q == nil {
		panic("solver: nil Q")
	}
	n := p.Q.Len()
	checkLen := func(name string, v []float64) {
		if v != nil && len(v) != n {
			panic(fmt.Sprintf("solver: len(%s) = %d, want Q.Len() = %d", name, len(v), n))
		}
	}
	checkLen("Y", p.Y)
	checkLen("P", p.P)
	checkLen("C", p.C)
	checkLen("Alpha0", p.Alpha0)
	if n == 0 {
		return nil, errors.New("solve QP: empty problem (n = 0)")
	}
	eps := s.Eps
	if eps == 0 {
		eps = defaultEps
	}
	if !(eps > 0) || math.IsInf(eps, 0) {
		return nil, fmt.Errorf("solve QP: Eps = %g, want a positive number", s.Eps)
	}
	if s.MaxIter < 0 {
		return nil, fmt.Errorf("solve QP: MaxIter = %d, want ≥ 0", s.MaxIter)
	}
	if s.Workers < 0 {
		return nil, fmt.Errorf("solve QP: Workers = %d, want ≥ 0", s.Workers)
	}
	if s.CacheBytes < 0 {
		return nil, fmt.Errorf("solve QP: CacheBytes = %d, want ≥ 0", s.CacheBytes)
	}
	cacheBytes := s.CacheBytes
	if cacheBytes == 0 {
		cacheBytes = defaultCacheBytes
	}
	if s.Precision > Single {
		return nil, fmt.Errorf("solve QP: Precision = %d, want Auto, Double or Single", s.Precision)
	}
	return newSMO(p, eps, !s.NoShrinking, cacheBytes, s.Workspace, s.Precision.single(n))
}

// run computes the gradient of the start (when init is set; otherwise m's
// gradient is already that of its α) and runs SMO to the end, with the
// helpers s allows.
func (m *smo) run(ctx context.Context, s Settings, init bool) (Result, error) {
	maxIter := s.MaxIter
	if maxIter == 0 {
		maxIter = max(10_000_000, 100*m.n)
	}
	solvesRunning.Add(1)
	defer solvesRunning.Add(-1)
	w, explicit := workers(s.Workers)
	m.cache.pool = newColPool(m.cache, w, explicit)
	defer func() {
		m.cache.pool.stop()
		m.cache.pool = nil
	}()
	if init {
		if err := m.initGradient(ctx); err != nil {
			// Cancelled before G was complete: there is no α with its gradient.
			return Result{Status: status.Canceled}, err
		}
	}
	st, err := m.solve(ctx, maxIter)
	return m.result(st), err
}
