package kernel

import (
	"fmt"
	"math"
	"slices"

	"gonum.org/v1/gonum/mat"
)

// The metric Q of a Gaussian kernel k_Q(x,z) = exp(-½ (x-z)ᵀ Q (x-z)) as a
// user gives it (a matrix read from a file) and as a user reads it back (its
// eigenvalues, and the factor L of Q = LLᵀ that maps the data so that an
// isotropic Gaussian reproduces k_Q).

// minRelEig is the smallest λ_min/λ_max SpecFromMetric accepts: a metric
// below it is positive definite only by rounding, and its kernel depends on
// directions the data cannot fix.
const minRelEig = 1e-12

// NotSPDError reports a symmetric metric Q that is not positive definite, or
// only by rounding (λ_min ≤ 1e-12 λ_max), with its smallest and largest
// eigenvalues. It wraps ErrNotSPD.
type NotSPDError struct {
	Min, Max float64 // the extreme eigenvalues of Q
}

func (e *NotSPDError) Error() string {
	return fmt.Sprintf("check metric: q is not positive definite (eigenvalues in [%.4g, %.4g])", e.Min, e.Max)
}

func (e *NotSPDError) Unwrap() error { return ErrNotSPD }

// SpecFromMetric returns the Gaussian spec of the d×d metric Q given as rows:
// isotropic (LIBSVM's γ = q/2) when Q = qI, diagonal when Q is diagonal, full
// otherwise. Q must be square and symmetric as FromSpec checks it (a pair
// that differs by more than 1e-12 of the largest entry is a *SymmetryError;
// Q is then symmetrised) and positive definite with λ_min > 1e-12 λ_max (a
// *NotSPDError otherwise). The spec's entries are those of the symmetrised
// Q, so FromSpec accepts it.
func SpecFromMetric(q [][]float64) (Spec, error) {
	sym, err := symFromRows("check metric", q)
	if err != nil {
		return Spec{}, err
	}
	ev, err := eigenvalues("check metric", sym)
	if err != nil {
		return Spec{}, err
	}
	lo, hi := ev[0], ev[len(ev)-1]
	if lo <= 0 || lo <= minRelEig*hi {
		return Spec{}, &NotSPDError{Min: lo, Max: hi}
	}
	d := len(q)
	diagonal, iso := true, true
	for i := 0; i < d; i++ {
		for j := 0; j < d; j++ {
			if i != j && sym.At(i, j) != 0 {
				diagonal = false
			}
		}
		if sym.At(i, i) != sym.At(0, 0) {
			iso = false
		}
	}
	switch {
	case diagonal && iso:
		return Spec{Kind: KindGaussian, Gamma: sym.At(0, 0) / 2}, nil
	case diagonal:
		dg := make([]float64, d)
		for i := range dg {
			dg[i] = sym.At(i, i)
		}
		return Spec{Kind: KindGaussian, Diag: dg}, nil
	}
	full := make([][]float64, d)
	for i := range full {
		full[i] = make([]float64, d)
		for j := range full[i] {
			full[i][j] = sym.At(i, j)
		}
	}
	return Spec{Kind: KindGaussian, Q: full}, nil
}

// eigenvalues returns the eigenvalues of s, ascending.
func eigenvalues(op string, s mat.Symmetric) ([]float64, error) {
	var e mat.EigenSym
	if !e.Factorize(s, false) {
		n := s.SymmetricDim()
		return nil, fmt.Errorf("%s: eigenvalue decomposition of the %d×%d metric Q failed", op, n, n)
	}
	return e.Values(nil), nil
}

// Eigenvalues returns the eigenvalues of the d×d metric Q, ascending: 2γ d
// times for an isotropic kernel, the sorted q_k for a diagonal one, and for
// a full Q those of a symmetric eigendecomposition (whose failure is the only
// error). Like Metric it panics if the kernel has a fixed dimension other
// than d.
func (g *Gaussian) Eigenvalues(d int) ([]float64, error) {
	g.checkDim(d)
	switch g.kind {
	case gaussIso:
		ev := make([]float64, d)
		for k := range ev {
			ev[k] = 2 * g.gamma
		}
		return ev, nil
	case gaussDiag:
		ev := slices.Clone(g.q)
		slices.Sort(ev)
		return ev, nil
	}
	return eigenvalues("compute eigenvalues", g.qm)
}

// Factor returns the lower triangular d×d matrix L with Q = LLᵀ, so that
//
//	k_Q(x,z) = exp(-½ ‖Lᵀx - Lᵀz‖²),
//
// the isotropic Gaussian with γ = ½ (LIBSVM's -g 0.5) on the mapped points
// Lᵀx. L is √(2γ) I for an isotropic kernel, diag(√q_k) for a diagonal one
// (a zero weight gives a zero column: the feature is dropped) and the
// Cholesky factor NewGaussian computed for a full Q. Like Metric it panics
// if the kernel has a fixed dimension other than d.
func (g *Gaussian) Factor(d int) *mat.TriDense {
	g.checkDim(d)
	L := mat.NewTriDense(d, mat.Lower, nil)
	switch g.kind {
	case gaussIso:
		s := math.Sqrt(2 * g.gamma)
		for k := 0; k < d; k++ {
			L.SetTri(k, k, s)
		}
	case gaussDiag:
		for k, q := range g.q {
			L.SetTri(k, k, math.Sqrt(q))
		}
	case gaussFull:
		for i := 0; i < d; i++ {
			for j := 0; j <= i; j++ {
				L.SetTri(i, j, g.l[i*d+j])
			}
		}
	}
	return L
}
