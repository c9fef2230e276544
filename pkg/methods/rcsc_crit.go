package methods

import (
	"errors"
	"fmt"
	"math"
	"runtime"
	"sync"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
)

// rcscCrit evaluates Yang et al.'s criterion (eq. 12) and its matrix gradient
// for fixed labels. Eqs. 9–10 build B and W for rows sorted by class; on
// unsorted rows their literal blocks are wrong, so both are built from
// class-indicator vectors 1_c (c = the two classes), which is the same
// matrix for sorted rows and the right one for any order:
//
//	B = Σ_c (n_c/n) u_c u_cᵀ,  u_c = 1_c/n_c - 1/n          (eq. 9)
//	W = (1/√n) (I - Σ_c 1_c 1_cᵀ / n_c) = P/√n              (eq. 10)
//
// P is the projection that removes class means. With M = W C⁻¹ W (C = λI +
// WKW), since 1ᵀ(X∘K)1 = tr(XᵀK) and Aᵀ = BKM (eq. 12's A),
//
//	J = (1/λ) [tr(BK) - tr(BKMK)] = (1/λ) Σ_c (n_c/n) (u_cᵀv_c - v_cᵀ M v_c),  v_c = K u_c,
//
// and, differentiating with dM = -M dK M,
//
//	∂J/∂K = (1/λ) (I - MK) B (I - KM) = (1/λ) Σ_c (n_c/n) z_c z_cᵀ,  z_c = u_c - M v_c;
//
// Σ_ij (∂J/∂K)_ij ∂K_ij/∂γ is eq. 16 (checked against the literal eq. 16 and
// finite differences in the tests).
//
// No n×n matrix C is built or factorised. With R = K + nλI and E = [1_0 1_1]
// (the class indicators, which span the null space of P),
//
//	M = P (nλI + PKP)⁻¹ P = R⁻¹ - R⁻¹E S⁻¹ EᵀR⁻¹,  S = EᵀR⁻¹E (2×2),
//
// the inverse of R compressed to the range of P (check: M E = 0 and
// (nλI + PKP) M = P R M = P). Since u_c lies in the span of E, M u_c = 0 and
// M K u_c = M R u_c = u_c - R⁻¹E S⁻¹ Eᵀu_c, so z_c = R⁻¹E S⁻¹ Eᵀu_c; with
// Eᵀu_0 = (n_1/n)(1, -1) and Eᵀu_1 = -(n_0/n)(1, -1) (B has rank one for two
// classes) and Σ_c (n_c/n) u_cᵀu_c = 1/n, everything is in the 2×2 S:
//
//	J = κ eᵀS⁻¹e - 1,  ∂J/∂K = κ ζζᵀ,  ζ = R⁻¹E S⁻¹e,  e = (1, -1),  κ = n_0 n_1 / (λ n²).
//
// So one evaluation is the two solves X = R⁻¹E = [x_0 x_1] with the
// kernel-ridge matrix R, S = EᵀX, plus O(n²) for K and the gradient. For
// n ≤ rcscDirectMax they are by a Cholesky factor of R (n³/3); above, by
// conjugate gradients, both systems in one pass over K per iteration and
// each started from the previous evaluation's solution (the line search's γ
// are close), to a relative residual of rcscCGTol. The CG iterations needed
// depend on R's condition, about mean(K)/λ whatever n, not on n (~250 at γ0
// and ~90 at the maximum on the a1a-like sets at n = 5,000): the evaluation
// is O(n²) where the Cholesky was O(n³). S is taken in its variational form
// (s_ab = 1_aᵀx_b + x_aᵀr_b, r the residual), whose error is quadratic in
// the solves' error, so J is exact to far below the solver tolerance; ζ,
// and so the gradient, to about the tolerance. CG that has not converged in
// max(n/2, 500) iterations, or meets a non-positive curvature, leaves the
// evaluation to the Cholesky factor.
type rcscCrit struct {
	n       int
	lambda  float64
	class   []int // 0 for y = -1, 1 for y = +1
	nc      [2]int
	workers int

	// iterative selects conjugate gradients (newRCSCCrit: n > rcscDirectMax).
	iterative bool
	// x[c] = R⁻¹1_c of the last evaluation, the next CG start; r, p, q are
	// CG's residuals, directions and R·directions.
	x, r, p, q [2][]float64
	haveX      bool
	zeta       []float64 // ∂J/∂K = gw ζζᵀ
	gw         float64

	// Direct solves: R and its factor, allocated on first use.
	rmat *mat.SymDense
	chol mat.Cholesky
	xd   *mat.Dense // n×2: E, then X

	acc [][2][]float64 // per-worker accumulators of the matrix-vector products

	// Counts for benchmarks and tests.
	evals, cgIter, fallbacks int
}

// Solver settings of rcscCrit.
const (
	// rcscDirectMax is the largest n solved by a Cholesky factor of R: below
	// it the factorisation (n³/3 flops at BLAS-3 speed) costs about as much
	// as CG's ~100–250 passes over K, at n = 1,000 both take ~0.1 s.
	rcscDirectMax = 1000
	rcscCGTol     = 1e-10 // CG's relative residual ‖r‖/‖1_c‖
)

// errRCSCClass: the labels hold fewer than two rows of a class.
var errRCSCClass = errors.New("each class needs at least two rows")

func newRCSCCrit(y []float64, lambda float64) (*rcscCrit, error) {
	n := len(y)
	cr := &rcscCrit{n: n, lambda: lambda, class: make([]int, n), workers: runtime.GOMAXPROCS(0), iterative: n > rcscDirectMax}
	for i, v := range y {
		if v > 0 {
			cr.class[i] = 1
		}
		cr.nc[cr.class[i]]++
	}
	if cr.nc[0] < 2 || cr.nc[1] < 2 {
		return nil, fmt.Errorf("%w (have %d negative and %d positive)", errRCSCClass, cr.nc[0], cr.nc[1])
	}
	for c := 0; c < 2; c++ {
		cr.x[c] = make([]float64, n)
	}
	cr.zeta = make([]float64, n)
	return cr, nil
}

// value returns J(K) (eq. 12) and, when G is non-nil (n×n), sets G = ∂J/∂K;
// afterwards ∂J/∂K = cr.gw ζζᵀ with ζ = cr.zeta in any case. Only the upper
// triangle of K is read.
func (cr *rcscCrit) value(K *mat.SymDense, G *mat.SymDense) (float64, error) {
	if K.SymmetricDim() != cr.n {
		panic(fmt.Sprintf("methods: rcsc: kernel matrix is %d×%d, want %d", K.SymmetricDim(), K.SymmetricDim(), cr.n))
	}
	cr.evals++
	var S [2][2]float64
	var err error
	if cr.iterative {
		S, err = cr.solveCG(K)
		if errors.Is(err, errRCSCCGStalled) {
			cr.fallbacks++
			S, err = cr.solveDirect(K)
		}
	} else {
		S, err = cr.solveDirect(K)
	}
	if err != nil {
		cr.haveX = false
		return math.NaN(), err
	}
	det := S[0][0]*S[1][1] - S[0][1]*S[0][1]
	if !(det > 0) {
		cr.haveX = false
		return math.NaN(), fmt.Errorf("S = Eᵀ(K + nλI)⁻¹E is not positive definite (det %g)", det)
	}
	n := float64(cr.n)
	kappa := float64(cr.nc[0]) * float64(cr.nc[1]) / (cr.lambda * n * n)
	J := kappa*(S[0][0]+S[1][1]+2*S[0][1])/det - 1
	// ζ = X S⁻¹ e, S⁻¹e = (s11 + s01, -(s00 + s01))/det.
	a, b := (S[1][1]+S[0][1])/det, -(S[0][0]+S[0][1])/det
	for i := range cr.zeta {
		cr.zeta[i] = a*cr.x[0][i] + b*cr.x[1][i]
	}
	cr.gw = kappa
	if G != nil {
		G.Zero()
		G.SymRankOne(G, kappa, mat.NewVecDense(cr.n, cr.zeta))
	}
	if math.IsNaN(J) || math.IsInf(J, 0) {
		return J, fmt.Errorf("criterion J is %v", J)
	}
	return J, nil
}

// solveDirect sets x_c = R⁻¹1_c by a Cholesky factor of R = K + nλI and
// returns S = EᵀX.
func (cr *rcscCrit) solveDirect(K *mat.SymDense) ([2][2]float64, error) {
	n := cr.n
	var S [2][2]float64
	if cr.rmat == nil {
		cr.rmat = mat.NewSymDense(n, nil)
		cr.xd = mat.NewDense(n, 2, nil)
	}
	kr, rr := K.RawSymmetric(), cr.rmat.RawSymmetric()
	s := float64(n) * cr.lambda
	for i := 0; i < n; i++ {
		copy(rr.Data[i*rr.Stride+i:i*rr.Stride+n], kr.Data[i*kr.Stride+i:i*kr.Stride+n])
		rr.Data[i*rr.Stride+i] += s
	}
	if ok := cr.chol.Factorize(cr.rmat); !ok {
		return S, fmt.Errorf("Cholesky factorisation of K + nλI failed (λ = %g)", cr.lambda)
	}
	e := mat.NewDense(n, 2, nil)
	for i, c := range cr.class {
		e.Set(i, c, 1)
	}
	if err := cr.chol.SolveTo(cr.xd, e); err != nil {
		return S, fmt.Errorf("solve with K + nλI: %w", err)
	}
	for i, c := range cr.class {
		cr.x[0][i], cr.x[1][i] = cr.xd.At(i, 0), cr.xd.At(i, 1)
		S[c][0] += cr.x[0][i]
		S[c][1] += cr.x[1][i]
	}
	S[0][1] = (S[0][1] + S[1][0]) / 2
	S[1][0] = S[0][1]
	cr.haveX = true
	return S, nil
}

// errRCSCCGStalled: CG did not converge in its iteration bound or met a
// direction of non-positive curvature; the direct solve takes over.
var errRCSCCGStalled = errors.New("conjugate gradients stalled")

// solveCG sets x_c ≈ R⁻¹1_c by conjugate gradients on both systems at once
// (one pass over K per iteration), started from the previous x_c when its
// residual is smaller than ‖1_c‖, and returns S = EᵀX in its variational
// form s_ab = 1_aᵀx_b + x_aᵀr_b (r_b = 1_b - R x_b), exact up to a term
// quadratic in the solves' errors.
func (cr *rcscCrit) solveCG(K *mat.SymDense) ([2][2]float64, error) {
	n := cr.n
	var S [2][2]float64
	if cr.r[0] == nil {
		for c := 0; c < 2; c++ {
			cr.r[c], cr.p[c], cr.q[c] = make([]float64, n), make([]float64, n), make([]float64, n)
		}
	}
	s := float64(n) * cr.lambda
	x, r, p, q := cr.x, cr.r, cr.p, cr.q
	var bnorm [2]float64
	for c := 0; c < 2; c++ {
		bnorm[c] = math.Sqrt(float64(cr.nc[c]))
	}
	setRHS := func(c int) { // r = 1_c
		for i, ci := range cr.class {
			r[c][i] = 0
			if ci == c {
				r[c][i] = 1
			}
		}
	}
	if cr.haveX {
		// r = 1_c - R x_c; a start worse than x = 0 is dropped.
		cr.mulR(K, s, x, q)
		for c := 0; c < 2; c++ {
			setRHS(c)
			floats.Sub(r[c], q[c])
			if floats.Norm(r[c], 2) >= bnorm[c] {
				for i := range x[c] {
					x[c][i] = 0
				}
				setRHS(c)
			}
		}
	} else {
		for c := 0; c < 2; c++ {
			for i := range x[c] {
				x[c][i] = 0
			}
			setRHS(c)
		}
	}
	cr.haveX = false
	var rr [2]float64
	var done [2]bool
	for c := 0; c < 2; c++ {
		copy(p[c], r[c])
		rr[c] = floats.Dot(r[c], r[c])
		done[c] = math.Sqrt(rr[c]) <= rcscCGTol*bnorm[c]
	}
	maxIter := max(n/2, 500)
	for it := 0; !(done[0] && done[1]); it++ {
		if it >= maxIter {
			return S, errRCSCCGStalled
		}
		cr.cgIter++
		cr.mulR(K, s, p, q)
		for c := 0; c < 2; c++ {
			if done[c] {
				continue
			}
			pq := floats.Dot(p[c], q[c])
			if !(pq > 0) {
				return S, errRCSCCGStalled
			}
			alpha := rr[c] / pq
			floats.AddScaled(x[c], alpha, p[c])
			floats.AddScaled(r[c], -alpha, q[c])
			rrNew := floats.Dot(r[c], r[c])
			if math.Sqrt(rrNew) <= rcscCGTol*bnorm[c] {
				done[c] = true
				continue
			}
			beta := rrNew / rr[c]
			rr[c] = rrNew
			for i, v := range r[c] {
				p[c][i] = v + beta*p[c][i]
			}
		}
	}
	for i, ci := range cr.class {
		S[ci][0] += x[0][i]
		S[ci][1] += x[1][i]
	}
	for a := 0; a < 2; a++ {
		for b := 0; b < 2; b++ {
			S[a][b] += floats.Dot(x[a], r[b])
		}
	}
	S[0][1] = (S[0][1] + S[1][0]) / 2 // both forms are variational; average
	S[1][0] = S[0][1]
	cr.haveX = true
	return S, nil
}

// mulR sets dst_c = (K + sI) v_c for c = 0, 1, reading the upper triangle of
// K once, on cr.workers goroutines, each with its own accumulators (row
// blocks of equal triangle area).
func (cr *rcscCrit) mulR(K *mat.SymDense, s float64, v, dst [2][]float64) {
	n := cr.n
	w := max(1, min(cr.workers, n/64))
	if len(cr.acc) < w {
		cr.acc = make([][2][]float64, w)
	}
	kr := K.RawSymmetric()
	var wg sync.WaitGroup
	lo := 0
	for k := 0; k < w; k++ {
		hi := n
		if k < w-1 {
			hi = n - int(float64(n)*math.Sqrt(1-float64(k+1)/float64(w)))
		}
		acc := &cr.acc[k]
		if k == 0 {
			acc = &dst
		} else if acc[0] == nil {
			acc[0], acc[1] = make([]float64, n), make([]float64, n)
		}
		wg.Add(1)
		go func(lo, hi int, y0, y1 []float64) {
			defer wg.Done()
			for i := range y0 {
				y0[i], y1[i] = 0, 0
			}
			v0, v1 := v[0], v[1]
			for i := lo; i < hi; i++ {
				row := kr.Data[i*kr.Stride+i : i*kr.Stride+n]
				a0, a1 := v0[i], v1[i]
				y0[i] += (row[0] + s) * a0
				y1[i] += (row[0] + s) * a1
				row = row[1:]
				if len(row) == 0 {
					continue
				}
				// Row i beyond the diagonal, and column i below it.
				y0[i] += floats.Dot(row, v0[i+1:])
				y1[i] += floats.Dot(row, v1[i+1:])
				floats.AddScaled(y0[i+1:], a0, row)
				floats.AddScaled(y1[i+1:], a1, row)
			}
		}(lo, hi, acc[0], acc[1])
		lo = hi
	}
	wg.Wait()
	for k := 1; k < w; k++ {
		floats.Add(dst[0], cr.acc[k][0])
		floats.Add(dst[1], cr.acc[k][1])
	}
}
