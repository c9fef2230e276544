// Package manifold is the geometry of symmetric positive definite (SPD)
// matrices that kerneltune's metric-learning methods move on: matrix
// functions of symmetric matrices through one eigendecomposition (the
// inverse square root, log det), the geodesic t ↦ Q^½ exp(t Q^-½ T Q^-½) Q^½
// of the affine-invariant metric (Curve: spd's exponential-map step and its
// line search), the congruence step B ← e^{-S} B e^{-S} of an exponential
// chart (gi), and the linear projections onto the subspaces that restrict a
// step (isotropic, diagonal, trace-free, diagonal trace-free). The rest of
// that geometry (exp, log, the exponential and logarithm maps, the distance,
// the Riemannian gradient) lives in the tests, which hold these functions
// to its identities.
//
// The functions follow gonum's conventions: the destination comes first, an
// empty destination (the zero value) is allocated, a destination of the wrong
// size panics, and dst may alias an argument. A matrix that must be SPD and is
// not gives an error wrapping ErrNotSPD; non-finite input, or a matrix
// exponential that overflows float64, gives ErrNotFinite.
package manifold

import (
	"errors"
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

var (
	// ErrNotSPD: a matrix that must be symmetric positive definite has an
	// eigenvalue ≤ 0.
	ErrNotSPD = errors.New("matrix is not symmetric positive definite")
	// ErrNotFinite: a matrix holds NaN or ±Inf, its eigendecomposition
	// failed to converge, or a result overflows float64.
	ErrNotFinite = errors.New("matrix is not finite")
)

// reuse makes dst an n×n symmetric matrix: an empty dst is allocated, a
// non-empty one must already be n×n.
func reuse(dst *mat.SymDense, n int) {
	if dst.IsEmpty() {
		dst.ReuseAsSym(n)
		return
	}
	if dst.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
}

// eigen is the spectral decomposition A = V diag(λ) Vᵀ of a symmetric matrix.
type eigen struct {
	vals []float64
	vecs *mat.Dense
}

func decompose(op string, a mat.Symmetric) (eigen, error) {
	n := a.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := a.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return eigen{}, fmt.Errorf("%s: %w (entry %d,%d is %v)", op, ErrNotFinite, i, j, v)
			}
		}
	}
	var es mat.EigenSym
	if !es.Factorize(a, true) {
		return eigen{}, fmt.Errorf("%s: %w (eigendecomposition did not converge)", op, ErrNotFinite)
	}
	e := eigen{vals: es.Values(nil), vecs: &mat.Dense{}}
	es.VectorsTo(e.vecs)
	return e, nil
}

// checkSPD returns an ErrNotSPD error when some eigenvalue is not positive.
func (e eigen) checkSPD(op string) error {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range e.vals {
		lo, hi = math.Min(lo, v), math.Max(hi, v)
	}
	if len(e.vals) > 0 && !(lo > 0) {
		return fmt.Errorf("%s: %w (eigenvalues in [%g, %g])", op, ErrNotSPD, lo, hi)
	}
	return nil
}

// apply returns V diag(f(λ)) Vᵀ as a dense matrix.
func (e eigen) apply(f func(float64) float64) *mat.Dense {
	n := len(e.vals)
	w := mat.NewDense(n, n, nil)
	w.Copy(e.vecs)
	for j, v := range e.vals {
		fv := f(v)
		for i := 0; i < n; i++ {
			w.Set(i, j, w.At(i, j)*fv)
		}
	}
	var out mat.Dense
	out.Mul(w, e.vecs.T())
	return &out
}

// applyTo writes V diag(f(λ)) Vᵀ into dst, symmetrised.
func (e eigen) applyTo(dst *mat.SymDense, f func(float64) float64) {
	reuse(dst, len(e.vals))
	Symmetrize(dst, e.apply(f))
}

// checkResult returns an ErrNotFinite error when dst holds NaN or ±Inf: a
// matrix exponential whose eigenvalues overflow e^λ (λ above about 709.78)
// gives Inf, and Inf·0 in the products gives NaN.
func checkResult(op string, dst *mat.SymDense) error {
	n := dst.SymmetricDim()
	for i := 0; i < n; i++ {
		for j := i; j < n; j++ {
			if v := dst.At(i, j); math.IsNaN(v) || math.IsInf(v, 0) {
				return fmt.Errorf("%s: %w (the matrix exponential overflows: entry %d,%d is %v)", op, ErrNotFinite, i, j, v)
			}
		}
	}
	return nil
}

// Symmetrize sets dst = (a + aᵀ)/2 for a square a.
func Symmetrize(dst *mat.SymDense, a mat.Matrix) {
	r, c := a.Dims()
	if r != c {
		panic(mat.ErrSquare)
	}
	reuse(dst, r)
	// Read both triangles before writing: dst may alias a.
	for i := 0; i < r; i++ {
		for j := i; j < r; j++ {
			dst.SetSym(i, j, 0.5*(a.At(i, j)+a.At(j, i)))
		}
	}
}

func spdFunc(op string, dst *mat.SymDense, a mat.Symmetric, f func(float64) float64) error {
	e, err := decompose(op, a)
	if err != nil {
		return err
	}
	if err := e.checkSPD(op); err != nil {
		return err
	}
	e.applyTo(dst, f)
	return nil
}

// InvSqrt sets dst = A^-½ for an SPD matrix A.
func InvSqrt(dst *mat.SymDense, a mat.Symmetric) error {
	return spdFunc("inverse matrix square root", dst, a, func(v float64) float64 { return 1 / math.Sqrt(v) })
}

// LogDet returns log det A for an SPD matrix A.
func LogDet(a mat.Symmetric) (float64, error) {
	e, err := decompose("log det", a)
	if err != nil {
		return 0, err
	}
	if err := e.checkSPD("log det"); err != nil {
		return 0, err
	}
	s := 0.0
	for _, v := range e.vals {
		s += math.Log(v)
	}
	return s, nil
}

// whiten returns Q^½ and the eigendecomposition of Q^-½ B Q^-½ (symmetrised)
// for an SPD matrix Q and a symmetric B of the same size: the first steps of
// Curve (and of the tests' logarithm map and distance).
func whiten(op string, q, b mat.Symmetric) (h *mat.Dense, e eigen, err error) {
	if b.SymmetricDim() != q.SymmetricDim() {
		panic(mat.ErrShape)
	}
	eq, err := decompose(op, q)
	if err != nil {
		return nil, eigen{}, err
	}
	if err := eq.checkSPD(op); err != nil {
		return nil, eigen{}, err
	}
	hinv := eq.apply(func(v float64) float64 { return 1 / math.Sqrt(v) })
	var m mat.SymDense
	Symmetrize(&m, sandwich(hinv, b))
	e, err = decompose(op, &m)
	if err != nil {
		return nil, eigen{}, err
	}
	return eq.apply(math.Sqrt), e, nil
}

// sandwich returns H A H for square H and A, as a dense matrix.
func sandwich(h mat.Matrix, a mat.Matrix) *mat.Dense {
	var t, out mat.Dense
	hs, ok1 := h.(*mat.SymDense)
	as, ok2 := a.(*mat.SymDense)
	if ok1 && ok2 {
		MulSym(&t, hs, as) // gonum's generic loop's bits, faster
	} else {
		t.Mul(h, a)
	}
	out.Mul(&t, h)
	return &out
}

// Curve is the geodesic t ↦ E_Q(tT) = Q^½ exp(t Q^-½ T Q^-½) Q^½ with its
// decompositions and the product Q^½ V done once, so that a line search
// evaluates a point for the price of one d×d product (At).
type Curve struct {
	hv   *mat.Dense // Q^½ V
	vals []float64  // λ, with Q^-½ T Q^-½ = V diag(λ) Vᵀ
}

// NewCurve prepares the geodesic from the SPD point Q in the direction T.
func NewCurve(q, t mat.Symmetric) (*Curve, error) {
	return newCurve("curve", q, t)
}

// newCurve is NewCurve with op naming the operation in errors.
func newCurve(op string, q, t mat.Symmetric) (*Curve, error) {
	h, e, err := whiten(op, q, t)
	if err != nil {
		return nil, err
	}
	n := q.SymmetricDim()
	hv := mat.NewDense(n, n, nil)
	hv.Mul(h, e.vecs)
	return &Curve{hv: hv, vals: e.vals}, nil
}

// At sets dst = E_Q(tT) = W Wᵀ with W = Q^½ V diag(e^{tλ/2}): symmetric and
// PSD by construction, even when e^{tλ} spans many orders of magnitude. It
// does not check the result: dst holds ±Inf or NaN when e^{tλ/2} overflows
// (|tλ| above about 1419), so a caller must bound the step.
func (c *Curve) At(dst *mat.SymDense, t float64) {
	n := len(c.vals)
	reuse(dst, n)
	w := mat.DenseCopyOf(c.hv)
	for j, v := range c.vals {
		f := math.Exp(0.5 * t * v)
		for i := 0; i < n; i++ {
			w.Set(i, j, w.At(i, j)*f)
		}
	}
	dst.SymOuterK(1, w)
}

// CongruenceStep sets dst = e^{-S} B e^{-S} for symmetric S and B: a step of
// size S in the exponential chart A ↦ e^A B e^A of the SPD manifold at B
// (Glasmachers & Igel 2005, eq. 2.2). The result is SPD when B is, and
// det(dst) = det(B) e^{-2 tr S}, so a trace-free S keeps the determinant.
func CongruenceStep(dst *mat.SymDense, b, s mat.Symmetric) error {
	n := b.SymmetricDim()
	if s.SymmetricDim() != n {
		panic(mat.ErrShape)
	}
	e, err := decompose("congruence step", s)
	if err != nil {
		return err
	}
	// The eigenvalues of S sum to tr S; restore that exactly (the
	// eigensolver's rounding would otherwise let det drift over many
	// trace-free steps).
	shift := trace(s)
	for _, v := range e.vals {
		shift -= v
	}
	shift /= float64(n)
	for i := range e.vals {
		e.vals[i] += shift
	}
	h := e.apply(func(v float64) float64 { return math.Exp(-v) })
	reuse(dst, n)
	Symmetrize(dst, sandwich(h, b))
	return checkResult("congruence step", dst)
}

// trace returns tr A.
func trace(a mat.Symmetric) float64 {
	s := 0.0
	for i := 0; i < a.SymmetricDim(); i++ {
		s += a.At(i, i)
	}
	return s
}

// ProjectIsotropic sets dst = (tr A / d) I, the orthogonal projection of A
// onto the multiples of the identity.
func ProjectIsotropic(dst *mat.SymDense, a mat.Symmetric) {
	m := trace(a) / float64(a.SymmetricDim())
	setDiagonal(dst, a, func(float64) float64 { return m })
}

// ProjectDiagonal sets dst = diag(A), zeroing the off-diagonal entries.
func ProjectDiagonal(dst *mat.SymDense, a mat.Symmetric) {
	setDiagonal(dst, a, func(v float64) float64 { return v })
}

// setDiagonal sets dst to the diagonal matrix diag(f(A_11), …, f(A_dd));
// dst may alias a.
func setDiagonal(dst *mat.SymDense, a mat.Symmetric, f func(aii float64) float64) {
	n := a.SymmetricDim()
	reuse(dst, n)
	for i := 0; i < n; i++ {
		v := f(a.At(i, i)) // read before row i of dst (perhaps a) is zeroed
		for j := i + 1; j < n; j++ {
			dst.SetSym(i, j, 0)
		}
		dst.SetSym(i, i, v)
	}
}

// ProjectTraceFree sets dst = A - (tr A / d) I, the orthogonal projection onto
// the trace-free symmetric matrices (Glasmachers & Igel 2005, §2: the
// subspace n = {A : tr A = 0}, on which det e^A = 1).
func ProjectTraceFree(dst *mat.SymDense, a mat.Symmetric) {
	n := a.SymmetricDim()
	reuse(dst, n)
	m := trace(a) / float64(n)
	if dst != a {
		dst.CopySym(a)
	}
	for i := 0; i < n; i++ {
		dst.SetSym(i, i, dst.At(i, i)-m)
	}
}

// ProjectDiagonalTraceFree sets dst = diag(A) - (tr A / d) I, the projection
// onto the trace-free diagonal matrices.
func ProjectDiagonalTraceFree(dst *mat.SymDense, a mat.Symmetric) {
	m := trace(a) / float64(a.SymmetricDim())
	setDiagonal(dst, a, func(v float64) float64 { return v - m })
}
