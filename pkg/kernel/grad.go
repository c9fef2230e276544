package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas64"
	"gonum.org/v1/gonum/mat"
)

// Weighted parameter derivatives, split at K the Shark way: an objective F
// supplies the symmetric weight matrix C = ∂F/∂K (c_ij = ∂F/∂K_ij, with every
// K_ij, i ≤ j and i > j, counted as its own entry, so that
// dF = Σ_ij c_ij dK_ij over all n² pairs), and the functions here return
// Σ_ij c_ij ∂K_ij/∂θ. For F = Σ_ij C_ij K_ij that is ∂F/∂θ exactly; for a
// nonlinear F the caller's C is its gradient, e.g. C = 2K for F = Σ K_ij².
//
// When C vanishes outside a set S of rows (support vectors), pass
// SelectRows(X, S), SelectSym(K, S), SelectSym(C, S): the result is the same
// and the cost falls from O(n²d) to O(|S|²d).

// GaussianGradQ sets dst to G = ∂F/∂Q for the Gaussian kernel
// K_ij = exp(-½ d_ijᵀ Q d_ij), d_ij = x_i - x_j (docs/design.md "Fast
// gradients through K"):
//
//	G = -½ Σ_ij W_ij d_ij d_ijᵀ = -Xᵀ (D - W) X,  W = C ∘ K,  D = diag(W 1).
//
// Every entry of Q is treated as an independent variable: a parameter shared
// by Q_kl and Q_lk (k ≠ l), as in a symmetric parameterisation, has the
// derivative 2 G_kl. K must be the kernel matrix of X at the current Q and
// C must be symmetric (use (C+Cᵀ)/2). The cost is one n×n×d GEMM for W X
// plus O(nd²): O(n²d), never O(n²d²). If dst is empty it is resized to d×d;
// otherwise its size must be d×d.
func GaussianGradQ(dst *mat.SymDense, X mat.Matrix, K, C mat.Symmetric) {
	xc, m, n, d := laplacianTimes(X, K, C)
	if dst.IsEmpty() {
		dst.ReuseAsSym(d)
	} else if dst.SymmetricDim() != d {
		panic(fmt.Sprintf("kernel: GaussianGradQ: dst is %d×%d, want %d×%d", dst.SymmetricDim(), dst.SymmetricDim(), d, d))
	}
	if d == 0 {
		return
	}
	g := make([]float64, d*d)
	if n > 0 {
		// G = -Xcᵀ (D - W) Xc; the mean shift drops out because (D - W)1 = 0.
		blas64.Gemm(blas.Trans, blas.NoTrans, -1,
			blas64.General{Rows: n, Cols: d, Stride: d, Data: xc},
			blas64.General{Rows: n, Cols: d, Stride: d, Data: m}, 0,
			blas64.General{Rows: d, Cols: d, Stride: d, Data: g})
	}
	for k := 0; k < d; k++ {
		for l := k; l < d; l++ {
			dst.SetSym(k, l, (g[k*d+l]+g[l*d+k])/2)
		}
	}
}

// GaussianGradDiag sets dst[k] = ∂F/∂q_k for the diagonal Gaussian
// exp(-½ Σ_k q_k Δ_k²): the diagonal G_kk of GaussianGradQ,
// -½ Σ_ij W_ij (x_ik - x_jk)², at the same O(n²d) cost without the d×d
// product. (Schittkowski's exp(-Σ p_k Δ_k²) has q = 2p, so ∂F/∂p_k = 2 G_kk;
// LIBSVM's isotropic exp(-γ‖x-z‖²) has Q = 2γI, so ∂F/∂γ = 2 Σ_k G_kk.)
// len(dst) must be d.
//
// On one-hot-like rows (most features taking two values, few rows off each
// feature's majority value) it takes the two-valued route (twovalued.go),
// O(n² + Σ_k nnz_k²), with the same values up to rounding.
func GaussianGradDiag(dst []float64, X mat.Matrix, K, C mat.Symmetric) {
	if n, d := X.Dims(); len(dst) == d && K.SymmetricDim() == n && C.SymmetricDim() == n {
		x, _, _ := rowMajor(X)
		ones := make([]float64, d)
		for k := range ones {
			ones[k] = 1
		}
		if r := newTwoValued(x, n, d, ones, true, gaussTwoValuedMaxCost); r != nil {
			r.gradDiag(dst, x, d, upperRaw(K), upperRaw(C))
			return
		}
	}
	xc, m, n, d := laplacianTimes(X, K, C)
	if len(dst) != d {
		panic(fmt.Sprintf("kernel: GaussianGradDiag: len(dst) = %d, want %d", len(dst), d))
	}
	clear(dst)
	for i := 0; i < n; i++ {
		xr, mr := xc[i*d:(i+1)*d], m[i*d:(i+1)*d]
		for k := range dst {
			dst[k] -= xr[k] * mr[k]
		}
	}
}

// laplacianTimes returns the centred rows Xc = X - 1μᵀ and M = (D - W) Xc,
// both n×d row-major, for W = C ∘ K and D = diag(W 1).
func laplacianTimes(X mat.Matrix, K, C mat.Symmetric) (xc, m []float64, n, d int) {
	n, d = X.Dims()
	if K.SymmetricDim() != n || C.SymmetricDim() != n {
		panic(fmt.Sprintf("kernel: gradient: X has %d rows but K is %d×%d and C is %d×%d",
			n, K.SymmetricDim(), K.SymmetricDim(), C.SymmetricDim(), C.SymmetricDim()))
	}
	xc, _, _ = centredRows(X)
	m = make([]float64, n*d)
	if n == 0 || d == 0 {
		return xc, m, n, d
	}
	laplacianRows(m, xc, n, d, upperRaw(K), upperRaw(C))
	return xc, m, n, d
}

// laplacianRows sets m = (D - W) xc, W = C ∘ K, D = diag(W 1), for the
// upper triangles k and c, one block of tileSize rows per task: the block's
// tiles of W are formed on the fly (never the whole n×n W) and multiplied
// into the block's rows of m by serial GEMMs in a fixed order, so the result
// does not depend on scheduling.
func laplacianRows(m, xc []float64, n, d int, k, c blas64.Symmetric) {
	impl := blas64.Implementation()
	nb := (n + tileSize - 1) / tileSize
	parallelFor(nb, workers(n*n), func(b int) {
		i0, i1 := b*tileSize, min((b+1)*tileSize, n)
		mi := i1 - i0
		w := make([]float64, tileSize*tileSize)
		r := make([]float64, mi)
		for j0 := 0; j0 < n; j0 += tileSize {
			j1 := min(j0+tileSize, n)
			mj := j1 - j0
			for i := i0; i < i1; i++ {
				wr := w[(i-i0)*mj : (i-i0+1)*mj]
				var s float64
				for j := j0; j < j1; j++ {
					a, b := i, j
					if a > b {
						a, b = b, a
					}
					v := c.Data[a*c.Stride+b] * k.Data[a*k.Stride+b]
					wr[j-j0] = v
					s += v
				}
				r[i-i0] += s
			}
			impl.Dgemm(blas.NoTrans, blas.NoTrans, mi, d, mj, -1, w, mj, xc[j0*d:], d, 1, m[i0*d:], d)
		}
		for i := i0; i < i1; i++ {
			src, dst := xc[i*d:(i+1)*d], m[i*d:(i+1)*d]
			for k, v := range src {
				dst[k] += r[i-i0] * v
			}
		}
	})
}

// L1GradTheta sets dst[k] = Σ_ij c_ij ∂K_ij/∂θ_k for the L1 kernel
// K_ij = -Σ_k |x_ik - x_jk| / θ_k, i.e. Σ_ij c_ij |x_ik - x_jk| / θ_k²
// (Boughorbel: ∂k/∂θ_k = +|Δ_k|/θ_k²). O(n²d) in tight loops over
// contiguous rows, tiled over all cores; the per-tile sums are added in a
// fixed order, so the result does not depend on scheduling. len(dst) and
// len(theta) must be d.
func L1GradTheta(dst []float64, X mat.Matrix, theta []float64, C mat.Symmetric) {
	x, n, d := rowMajor(X)
	if len(dst) != d || len(theta) != d {
		panic(fmt.Sprintf("kernel: L1GradTheta: len(dst) = %d, len(theta) = %d, want %d", len(dst), len(theta), d))
	}
	if C.SymmetricDim() != n {
		panic(fmt.Sprintf("kernel: L1GradTheta: X has %d rows but C is %d×%d", n, C.SymmetricDim(), C.SymmetricDim()))
	}
	clear(dst)
	if n == 0 {
		return
	}
	cr := upperRaw(C)
	ts := upperTiles(n)
	part := make([]float64, len(ts)*d)
	parallelFor(len(ts), workers(n*n/2*max(1, d/8)), func(t int) {
		tl := ts[t]
		acc := part[t*d : (t+1)*d]
		for i := tl.i0; i < tl.i1; i++ {
			xi := x[i*d : (i+1)*d]
			cRow := cr.Data[i*cr.Stride:]
			for j := max(tl.j0, i+1); j < tl.j1; j++ {
				c := cRow[j]
				if c == 0 {
					continue
				}
				xj := x[j*d : (j+1)*d]
				for k, v := range xi {
					acc[k] += c * math.Abs(v-xj[k])
				}
			}
		}
	})
	for t := range ts {
		for k, v := range part[t*d : (t+1)*d] {
			dst[k] += v
		}
	}
	for k := range dst {
		// Both (i,j) and (j,i) of the symmetric C; the diagonal has Δ = 0.
		dst[k] *= 2 / (theta[k] * theta[k])
	}
}

// SelectRows returns the rows idx of X as a new len(idx)×d matrix (an empty
// *mat.Dense when idx is empty or d = 0).
func SelectRows(X mat.Matrix, idx []int) *mat.Dense {
	x, _, d := rowMajor(X)
	if len(idx) == 0 || d == 0 {
		return &mat.Dense{}
	}
	out := make([]float64, len(idx)*d)
	for r, i := range idx {
		copy(out[r*d:(r+1)*d], x[i*d:(i+1)*d])
	}
	return mat.NewDense(len(idx), d, out)
}

// SelectSym returns the principal submatrix A[idx, idx] as a new matrix (an
// empty *mat.SymDense when idx is empty).
func SelectSym(A mat.Symmetric, idx []int) *mat.SymDense {
	if len(idx) == 0 {
		return &mat.SymDense{}
	}
	raw := upperRaw(A)
	out := mat.NewSymDense(len(idx), nil)
	for r, i := range idx {
		for c := r; c < len(idx); c++ {
			j := idx[c]
			a, b := i, j
			if a > b {
				a, b = b, a
			}
			out.SetSym(r, c, raw.Data[a*raw.Stride+b])
		}
	}
	return out
}
