package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"
)

// SquaredDistances returns S_ij = ‖x_i - x_j‖² of the rows of X through one
// tiled SYRK on the centred rows (S_ii = 0, S_ij ≥ 0), both triangles filled.
func SquaredDistances(X mat.Matrix) *mat.SymDense {
	xc, n, d := centredRows(X)
	h := rowNorms2Half(xc, n, d)
	return innerGram(xc, n, d, func(c []float64, stride int, t tile) {
		for i := t.i0; i < t.i1; i++ {
			row := c[i*stride:]
			for j := max(t.j0, i); j < t.j1; j++ {
				if j == i {
					row[j] = 0
					continue
				}
				row[j] = math.Max(0, 2*(h[i]+h[j]-row[j]))
			}
		}
	})
}

// MedianOffDiag returns the median of the off-diagonal entries K_ij, i < j,
// of a symmetric matrix (the mean of the two middle values when their number
// is even). It is NaN when n < 2 or when an entry is NaN. O(n²) time by
// selection, not sorting.
func MedianOffDiag(K mat.Symmetric) float64 {
	a := offDiag(K)
	lo, hi, ok := middle(a)
	if !ok {
		return math.NaN()
	}
	return (lo + hi) / 2
}

// offDiag returns the entries K_ij, i < j.
func offDiag(K mat.Symmetric) []float64 {
	n := K.SymmetricDim()
	if n < 2 {
		return nil
	}
	raw := upperRaw(K)
	a := make([]float64, 0, n*(n-1)/2)
	for i := 0; i < n; i++ {
		a = append(a, raw.Data[i*raw.Stride+i+1:i*raw.Stride+n]...)
	}
	return a
}

// middle returns the two middle order statistics of a (equal when len(a) is
// odd), reordering a; ok is false for an empty a or one holding a NaN.
func middle(a []float64) (lo, hi float64, ok bool) {
	if len(a) == 0 {
		return 0, 0, false
	}
	for _, v := range a {
		if math.IsNaN(v) {
			return 0, 0, false
		}
	}
	m := len(a)
	k := (m - 1) / 2
	lo = selectK(a, k)
	if m%2 == 1 {
		return lo, lo, true
	}
	hi = a[k+1]
	for _, v := range a[k+2:] {
		hi = math.Min(hi, v)
	}
	return lo, hi, true
}

// selectK reorders a so that a[k] is its k-th smallest element, a[:k] ≤ a[k]
// ≤ a[k+1:], and returns a[k] (Hoare's quickselect, median-of-three pivot).
func selectK(a []float64, k int) float64 {
	lo, hi := 0, len(a)-1
	for hi > lo {
		mid := lo + (hi-lo)/2
		// Median of three into a[mid].
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[hi] < a[mid] {
			a[hi], a[mid] = a[mid], a[hi]
		}
		p := a[mid]
		i, j := lo, hi
		for i <= j {
			for a[i] < p {
				i++
			}
			for a[j] > p {
				j--
			}
			if i <= j {
				a[i], a[j] = a[j], a[i]
				i++
				j--
			}
		}
		// Now a[lo:j+1] ≤ p ≤ a[i:hi+1], and a[j+1:i] == p.
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return a[k]
		}
	}
	return a[k]
}

// GammaForMedian returns the isotropic γ (LIBSVM's exp(-γ‖x-z‖²)) at which the
// median off-diagonal kernel value of the rows of X, as MedianOffDiag computes
// it, equals target ∈ (0, 1). With an odd number of pairs that is γ =
// -log(target)/median(‖x_i-x_j‖²); with an even number MedianOffDiag averages
// the two middle values and γ solves ½(e^{-γa} + e^{-γb}) = target (Newton from
// below, where the function is convex and decreasing). The spd method's default
// start uses target = e⁻² (docs/design.md "spd: the margin criterion and its
// start").
//
// It returns +Inf when the target cannot be reached because too many points
// coincide (the middle squared distances are 0), and NaN when X has fewer
// than two rows; NewGaussianIso rejects both. It panics if target is not in
// (0, 1).
func GammaForMedian(X mat.Matrix, target float64) float64 {
	if !(target > 0 && target < 1) {
		panic(fmt.Sprintf("kernel: GammaForMedian: target %v not in (0, 1)", target))
	}
	a, b, ok := middle(offDiag(SquaredDistances(X)))
	if !ok {
		return math.NaN()
	}
	t := -math.Log(target)
	if a == b {
		if a == 0 {
			return math.Inf(1)
		}
		return t / a
	}
	if a == 0 {
		// ½(1 + e^{-γb}) = target.
		if target <= 0.5 {
			return math.Inf(1)
		}
		return -math.Log(2*target-1) / b
	}
	// f(γ) = ½(e^{-γa} + e^{-γb}) - target is convex and decreasing, and by
	// Jensen f ≥ 0 at γ0 = t/((a+b)/2): Newton from there increases
	// monotonically to the root.
	g := t / ((a + b) / 2)
	for it := 0; it < 100; it++ {
		ea, eb := expNonPos(-g*a), expNonPos(-g*b) // the exp of Gram
		f := (ea+eb)/2 - target
		fp := -(a*ea + b*eb) / 2
		step := f / fp
		if !(step < 0) { // f ≤ 0 (converged) or no progress
			break
		}
		g -= step
		if -step <= 1e-16*g {
			break
		}
	}
	return g
}
