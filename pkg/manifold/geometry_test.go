package manifold

// The rest of the affine-invariant geometry, which no method uses: the
// tests' references for what the methods use (Curve, InvSqrt, LogDet,
// CongruenceStep), held to identities (exp ∘ log, the exponential map and
// its inverse, the distance, the Riemannian gradient) on random SPD
// matrices.

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// matSqrt sets dst = A^½, the SPD square root of an SPD matrix A.
func matSqrt(dst *mat.SymDense, a mat.Symmetric) error {
	return spdFunc("matrix square root", dst, a, math.Sqrt)
}

// matLog sets dst = log A, the principal (symmetric) logarithm of an SPD matrix A.
func matLog(dst *mat.SymDense, a mat.Symmetric) error {
	return spdFunc("matrix logarithm", dst, a, math.Log)
}

// matExp sets dst = exp(A) for a symmetric matrix A; the result is SPD unless
// an eigenvalue of A is below about -745 (e^λ underflows to 0). The error,
// wrapping ErrNotFinite, is non-nil for non-finite input and when the result
// overflows (an eigenvalue of A above about 709.78); dst then holds no
// meaningful values.
func matExp(dst *mat.SymDense, a mat.Symmetric) error {
	e, err := decompose("matrix exponential", a)
	if err != nil {
		return err
	}
	e.applyTo(dst, math.Exp)
	return checkResult("matrix exponential", dst)
}

// expMap sets dst = E_Q(T) = Q^½ exp(Q^-½ T Q^-½) Q^½, the exponential map of
// the affine-invariant metric at the SPD point Q applied to the symmetric
// tangent vector T, and d/dt E_Q(tT) at t = 0 is T. The result is SPD as
// long as the eigenvalues λ of Q^-½ T Q^-½ stay within about ±1400 (e^{λ/2}
// neither overflows, which is an error wrapping ErrNotFinite, nor underflows
// to a singular result).
//
// Laanaya et al. (2011, eq. 22) step with T = -η G, G the Euclidean gradient;
// the Riemannian-gradient step takes T = -η riemannianGrad(Q, G).
func expMap(dst *mat.SymDense, q, t mat.Symmetric) error {
	c, err := newCurve("exp map", q, t)
	if err != nil {
		return err
	}
	c.At(dst, 1)
	return checkResult("exp map", dst)
}

// logMap sets dst = log_Q(P) = Q^½ log(Q^-½ P Q^-½) Q^½, the inverse of
// expMap at Q: the tangent vector at Q whose geodesic reaches P at t = 1.
// Both Q and P must be SPD.
func logMap(dst *mat.SymDense, q, p mat.Symmetric) error {
	h, e, err := whiten("log map", q, p)
	if err != nil {
		return err
	}
	if err := e.checkSPD("log map"); err != nil {
		return err
	}
	reuse(dst, q.SymmetricDim())
	Symmetrize(dst, sandwich(h, e.apply(math.Log)))
	return nil
}

// inner returns the affine-invariant inner product ⟨U, V⟩_Q = tr(Q⁻¹U Q⁻¹V)
// of symmetric tangent vectors U and V at the SPD point Q. distance(Q, P)² =
// ⟨L, L⟩_Q for L = log_Q(P).
func inner(q, u, v mat.Symmetric) (float64, error) {
	n := q.SymmetricDim()
	if u.SymmetricDim() != n || v.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
	var ch mat.Cholesky
	if !ch.Factorize(q) {
		return 0, fmt.Errorf("inner product: %w (Cholesky factorisation failed)", ErrNotSPD)
	}
	var a, b mat.Dense
	if err := ch.SolveTo(&a, u); err != nil {
		return 0, fmt.Errorf("inner product: %w", err)
	}
	if err := ch.SolveTo(&b, v); err != nil {
		return 0, fmt.Errorf("inner product: %w", err)
	}
	// tr(AB) = Σ_ij A_ij B_ji.
	s := 0.0
	for i := 0; i < n; i++ {
		for j := 0; j < n; j++ {
			s += a.At(i, j) * b.At(j, i)
		}
	}
	return s, nil
}

// riemannianGrad sets dst = Q G Q, the gradient of the affine-invariant metric
// ⟨U, V⟩_Q = tr(Q⁻¹UQ⁻¹V) that corresponds to the Euclidean gradient G:
// ⟨QGQ, V⟩_Q = tr(GV) for every symmetric V.
func riemannianGrad(dst *mat.SymDense, q, g mat.Symmetric) {
	n := q.SymmetricDim()
	if g.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
	reuse(dst, n)
	Symmetrize(dst, sandwich(q, g))
}

// congruence sets dst = H A H for symmetric H and A.
func congruence(dst *mat.SymDense, h, a mat.Symmetric) {
	n := a.SymmetricDim()
	if h.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
	reuse(dst, n)
	Symmetrize(dst, sandwich(h, a))
}

// distance returns the affine-invariant geodesic distance
// ‖log(A^-½ B A^-½)‖_F between SPD matrices A and B. It is symmetric and
// invariant under congruence: d(MAMᵀ, MBMᵀ) = d(A, B) for invertible M.
func distance(a, b mat.Symmetric) (float64, error) {
	_, e, err := whiten("distance", a, b)
	if err != nil {
		return 0, err
	}
	if err := e.checkSPD("distance"); err != nil {
		return 0, err
	}
	s := 0.0
	for _, v := range e.vals {
		l := math.Log(v)
		s += l * l
	}
	return math.Sqrt(s), nil
}
