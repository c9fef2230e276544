// Package kernel holds the kernel functions of kerneltune (Gaussian with a full,
// diagonal or isotropic metric Q, Boughorbel's multi-parameter L1 kernel, linear),
// their fast Gram matrices and columns, and their weighted parameter derivatives
// Σ_ij c_ij ∂K_ij/∂θ.
//
// It is a package of its own, not part of pkg/solver, because three different
// clients need kernels for different reasons: the solver needs kernel columns
// (through the Matrix seam below, and never learns which kernel it is), the
// tuning methods need Gram matrices and parameter derivatives, and a saved model
// needs to evaluate the kernel on new points and to serialise it (Spec). Keeping
// the kernels apart keeps the solver formulation-agnostic, as LIBSVM's Solver is.
//
// Conventions (docs/design.md "Notation and kernel conventions"): every
// Gaussian kernel is stored canonically as k_Q(x,z) = exp(-½ (x-z)ᵀ Q (x-z)), Q
// symmetric positive definite; LIBSVM's exp(-γ‖x-z‖²) is Q = 2γI. The L1 kernel
// is k_θ(x,z) = -Σ_k |x_k-z_k| / θ_k.
//
// The pieces:
//
//   - kernels: NewGaussian (full SPD Q), NewGaussianDiag, NewGaussianIso
//     (LIBSVM's γ), NewL1, Linear, and FromSpec / Kernel.Spec to save and load
//     them;
//   - a metric Q as a user gives and reads it: SpecFromMetric (a matrix read
//     from a file, checked symmetric positive definite, as the simplest of
//     isotropic, diagonal or full), Gaussian.Eigenvalues, and
//     Gaussian.Factor (L with Q = LLᵀ, to map data for LIBSVM's RBF kernel);
//   - bulk evaluation: Kernel.Gram (tiled SYRK + exp on all cores),
//     Kernel.Cross, and the column seam for the solver: Kernel.Rows,
//     Precomputed, Shifted (K + νI) and Centred (for the conditionally
//     positive definite L1 kernel);
//   - weighted derivatives Σ_ij c_ij ∂K_ij/∂θ for a weight matrix C = ∂F/∂K
//     supplied by an objective (the Shark split): GaussianGradQ,
//     GaussianGradDiag (also for LIBSVM's γ: ∂F/∂γ = 2 Σ_k ∂F/∂q_k),
//     L1GradTheta, with SelectRows and SelectSym to restrict them to support
//     vectors;
//   - start-point helpers: SquaredDistances, MedianOffDiag, GammaForMedian.
//
// Every kernel value and gradient is float64 and deterministic: parallel
// passes split the work into fixed tiles and never depend on scheduling.
package kernel

import (
	"errors"

	"gonum.org/v1/gonum/mat"
)

// Kernel is a kernel function on R^d with fast bulk evaluation.
type Kernel interface {
	// Eval returns k(x, z).
	Eval(x, z []float64) float64
	// Gram returns the n×n matrix K_ij = k(x_i, x_j) of the rows of X.
	Gram(X mat.Matrix) *mat.SymDense
	// Cross returns the m×n matrix k(a_i, b_j) of the rows of A and B.
	Cross(A, B mat.Matrix) *mat.Dense
	// Rows prepares the rows of X for repeated column evaluation; the solver's
	// kernel cache computes the columns it misses through it.
	Rows(X mat.Matrix) Matrix
	// Spec returns the serialisable description of the kernel.
	Spec() Spec
}

// Matrix is a kernel matrix that produces its columns on demand: either
// computed from data rows (Kernel.Rows) or read from a precomputed Gram matrix
// (Precomputed). It is the seam between kernels and the SMO solver.
type Matrix interface {
	// Len returns n.
	Len() int
	// Diag returns K_ii.
	Diag(i int) float64
	// Column sets dst[k] = K(i, idx[k]) for k < len(idx); with idx == nil it
	// sets dst[j] = K(i, j) for j < len(dst).
	Column(i int, idx []int, dst []float64)
}

// Stored is implemented by the Matrices that hold every entry in memory,
// each column contiguous (PrecomputedSquare, and PrecomputedRows above
// rowsMinN rows): a solver reads a column where it lies instead of copying
// it first (the dense route of the grid's cross-validation copied every
// column of a fold's matrix into the solver's cache once per C, and its
// warm starts read one per support vector: 21 % of a3a's grid). The
// entries are Column's, to the last bit.
type Stored interface {
	Matrix
	// StoredColumn returns K(i, j) for j < Len(), in the Matrix's own
	// memory: read-only, valid while the Matrix is.
	StoredColumn(i int) []float64
}

// Splittable is implemented by the Matrices whose column entries are costly
// enough (computed from data rows) that a solver may compute one column in
// parts on several goroutines at once. Such a Matrix promises that Column is
// safe for concurrent calls writing disjoint dst, and that an entry has the
// same value, to the last bit, whether computed in a full column, a prefix
// or through idx (so a column computed in parts equals the column computed
// whole).
type Splittable interface {
	Matrix
	// EntryCost is the approximate work of one column entry in
	// multiply-adds (the row dimension, plus the exp for a Gaussian): the
	// solver splits a column when its length times this is large. 0 means
	// never split (a wrapper around a Matrix that is not Splittable).
	EntryCost() int
}

// Spec is the serialisable description of a kernel (the form saved in model
// files and printed in JSON output). Exactly one group of fields is set.
type Spec struct {
	// Kind is "gaussian", "l1" or "linear".
	Kind string `json:"kind"`
	// Gamma is set for an isotropic Gaussian: exp(-γ‖x-z‖²), i.e. Q = 2γI.
	Gamma float64 `json:"gamma,omitempty"`
	// Diag is set for a Gaussian with diagonal Q: exp(-½ Σ_k Diag_k Δ_k²).
	Diag []float64 `json:"q_diag,omitempty"`
	// Q is set for a Gaussian with a full SPD matrix Q, row-major d×d.
	Q [][]float64 `json:"q,omitempty"`
	// Theta is set for the L1 kernel: -Σ_k |Δ_k| / θ_k.
	Theta []float64 `json:"theta,omitempty"`
}

// Kinds of kernel, the values of Spec.Kind.
const (
	KindGaussian = "gaussian"
	KindL1       = "l1"
	KindLinear   = "linear"
)

// ErrNotSPD is returned (wrapped) when a matrix that must be symmetric
// positive definite, such as the metric Q of a Gaussian kernel, is not.
var ErrNotSPD = errors.New("matrix is not symmetric positive definite")
