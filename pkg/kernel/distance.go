package kernel

import (
	"fmt"
	"math"

	"gonum.org/v1/gonum/mat"

	"github.com/kerneltune/kerneltune/pkg/sparse"
)

// SquaredDistances returns S_ij = ‖x_i - x_j‖² of the rows of X through one
// tiled SYRK on the centred rows (S_ii = 0, S_ij ≥ 0), both triangles filled.
// On compressed rows (*sparse.CSR) it is ‖x_i‖² + ‖x_j‖² − 2⟨x_i, x_j⟩ from
// the linear kernel's Gram matrix on the rows (the scatter route,
// O(Σ_k nnz_k²) work), clamped at 0 with a zero diagonal: nothing of the
// n×d dense rows is made.
func SquaredDistances(X mat.Matrix) *mat.SymDense {
	if _, ok := X.(*sparse.CSR); ok {
		return squaredDistancesCSR(X)
	}
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
// selection, not sorting, and no copy of the entries: a radix selection on
// their bits, 16 at a time, reads the upper triangle in place (a copy was
// 196 MB at 7,000 rows, on top of the n×n matrix: issue 44). The middle
// values are exact, the ones a sort would give (of two zeros of either
// sign, -0 counts as the smaller).
func MedianOffDiag(K mat.Symmetric) float64 {
	lo, hi, ok := middleOffDiag(K)
	if !ok {
		return math.NaN()
	}
	return (lo + hi) / 2
}

// middleOffDiag returns the two middle order statistics of the entries
// K_ij, i < j (equal when their number is odd) without copying them
// (MedianOffDiag); ok is false when n < 2 or an entry is NaN.
func middleOffDiag(K mat.Symmetric) (lo, hi float64, ok bool) {
	n := K.SymmetricDim()
	if n < 2 {
		return 0, 0, false
	}
	raw := upperRaw(K)
	return middleOfRows(n, func(f func(row []float64)) {
		for i := 0; i < n-1; i++ {
			f(raw.Data[i*raw.Stride+i+1 : i*raw.Stride+n])
		}
	})
}

// middleOfRows is middleOffDiag of the n×n matrix whose entries (i, j),
// i < j, rows passes to its argument, a row at a time.
func middleOfRows(n int, rows func(f func(row []float64))) (lo, hi float64, ok bool) {
	if n < 2 {
		return 0, 0, false
	}
	nan := false
	rows(func(row []float64) {
		for _, v := range row {
			nan = nan || v != v
		}
	})
	if nan {
		return 0, 0, false
	}
	m := n * (n - 1) / 2
	k := (m - 1) / 2
	hist := make([]int, 1<<16)
	lo = keyValue(kthKey(rows, k, hist))
	if m%2 == 1 {
		return lo, lo, true
	}
	return lo, keyValue(kthKey(rows, k+1, hist)), true
}

// orderKey maps a float64 (not NaN) to a uint64 of the same order.
func orderKey(v float64) uint64 {
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// keyValue is orderKey's inverse.
func keyValue(k uint64) float64 {
	if k>>63 == 1 {
		return math.Float64frombits(k &^ (1 << 63))
	}
	return math.Float64frombits(^k)
}

// kthKey returns the orderKey of the k-th smallest (from 0) of the values
// rows passes, by four passes of a radix selection: each counts, among the
// values whose key starts with the digits found so far, the next 16 bits
// (in hist, 2¹⁶ counts).
func kthKey(rows func(f func(row []float64)), k int, hist []int) uint64 {
	var prefix uint64
	for shift := 48; shift >= 0; shift -= 16 {
		clear(hist)
		mask := ^uint64(0) << (shift + 16) // 0 for the first digit
		rows(func(row []float64) {
			for _, v := range row {
				if key := orderKey(v); key&mask == prefix {
					hist[key>>shift&0xffff]++
				}
			}
		})
		for b, c := range hist {
			if k < c {
				prefix |= uint64(b) << shift
				break
			}
			k -= c
		}
	}
	return prefix
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
	a, b, ok := middleOffDiag(SquaredDistances(X))
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

// squaredDistancesCSR is SquaredDistances on compressed rows.
func squaredDistancesCSR(X mat.Matrix) *mat.SymDense {
	G := Linear{}.Gram(X)
	n := G.SymmetricDim()
	raw := G.RawSymmetric()
	h := make([]float64, n)
	for i := range n {
		h[i] = raw.Data[i*raw.Stride+i]
	}
	for i := range n {
		row := raw.Data[i*raw.Stride : i*raw.Stride+n]
		for j := range n {
			if j == i {
				row[j] = 0
				continue
			}
			row[j] = math.Max(0, h[i]+h[j]-2*row[j])
		}
	}
	return G
}
