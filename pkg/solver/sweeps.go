package solver

import "math"

// The two O(n) sweeps of an SMO iteration, which are most of a small
// problem's solve time (75% of the grid search on 100 heart rows): the
// second pass of WSS3 (lowPass) and the gradient update with the fused first
// pass of the next WSS3 (gradPass). Each has a plain Go form and, on amd64
// with AVX2, a four-lane form (sweeps_amd64.s) that is the same computation:
// every entry gets the same IEEE operations in the same order (no fused
// multiply-add), and an argmax or argmin taken lane by lane and then merged,
// ties to the largest index, is the sequential sweep's "ties to the last".
// So either form gives bit-identical iterations; TestSweepsAgree checks it.

// lowPass is the second pass of WSS3 over I_low, given i (LIBSVM's
// Solver::select_working_set): gmax2 = max over I_low of y_jG_j, written
// with the masks of smo.low, low[j] = y_j on I_low and NaN off it, so gj =
// low[j]·G_j is G_j for y_j = +1 and -G_j for y_j = -1 (LIBSVM's two
// branches) and NaN, failing every comparison, off I_low. j minimises
// od = -b²/a over b = gmax + gj > 0, a = qdi + qd_j - yi2·low_j·qi_j (τ when
// a ≤ 0), ties to the last; j is -1 when no b > 0.
func lowPass(g, low, qd, qi []float64, gmax, qdi, yi2 float64) (gmax2 float64, j int) {
	return lowPassLanes(lowPassAVX2, lowPassSkipAVX2, g, low, qd, qi, gmax, qdi, yi2)
}

// lowPassAsm is the form of lowPass's AVX2 loops, over the first n entries
// (n a multiple of 4, at least 4), the column in either precision.
type lowPassAsm[E float32 | float64] func(grad, low, qd *float64, qi *E, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)

// lowPassLanes is lowPass on a column of either precision: the AVX2 loop
// pass (skip on active sets of skipMinLen or more) over the entries in
// fours, lowPassGo over the tail, or lowPassGo alone without AVX2.
func lowPassLanes[E float32 | float64](pass, skip lowPassAsm[E], g, low, qd []float64, qi []E, gmax, qdi, yi2 float64) (gmax2 float64, j int) {
	if useAVX2 && len(low) >= 4 {
		n4 := len(low) &^ 3
		if n4 >= skipMinLen {
			pass = skip
		}
		gmax2, od, j := pass(&g[0], &low[0], &qd[0], &qi[0], n4, gmax, qdi, yi2)
		// The tail's entries come last: a tie goes to them.
		g2, odt, jt := lowPassGo(g[n4:], low[n4:], qd[n4:], qi[n4:], gmax, qdi, yi2)
		if g2 > gmax2 {
			gmax2 = g2
		}
		if jt >= 0 && odt <= od {
			j = n4 + jt
		}
		return gmax2, j
	}
	gmax2, _, j = lowPassGo(g, low, qd, qi, gmax, qdi, yi2)
	return gmax2, j
}

// skipMinLen is the shortest active set whose lowPass skips, four entries
// at a time, the division where no entry can win (lowPassSkipAVX2): on
// 26,000-row solves the pass took 0.80× the time, on the 2,548-row folds of
// a3a's grid the grid took 1.05× the CPU (the arrays are cache-resident and
// the branch costs more than the divisions it saves). A variable for the
// tests.
var skipMinLen = 8192

// lowPassGo is lowPass in Go; it also returns the least od (+Inf when j is
// -1). It skips the division where the quotient cannot win: od = -b²/a >
// objDiffMin for sure when b² < (1-1e-9)·(-objDiffMin)·a.
func lowPassGo[E float32 | float64](g, low, qd []float64, qi []E, gmax, qdi, yi2 float64) (gmax2, objDiffMin float64, idx int) {
	gmax2, objDiffMin, idx = math.Inf(-1), math.Inf(1), -1
	g, qd, qi = g[:len(low)], qd[:len(low)], qi[:len(low)]
	bound := 0.0 // (1-1e-9)·(-objDiffMin) once finite
	for j, l := range low {
		gj := l * g[j]
		if gj >= gmax2 {
			gmax2 = gj
		}
		if diff := gmax + gj; diff > 0 {
			quad := qdi + qd[j] - yi2*l*float64(qi[j])
			if quad <= 0 {
				quad = tau
			}
			if diff*diff < bound*quad {
				continue
			}
			if od := -diff * diff / quad; od <= objDiffMin {
				idx, objDiffMin = j, od
				if -od > 1e-280 { // keep bound·quad a normal number
					bound = -od * (1 - 1e-9)
				}
			}
		}
	}
	return gmax2, objDiffMin, idx
}

// gradPass sets g += dai·qi + daj·qj (LIBSVM's rounding: g_k + (qi_k·dai +
// qj_k·daj)) and returns the argmax of up_k·g_k over the new g, ties to the
// last (-1 and -Inf when every up_k is NaN): -y_kG_k over I_up.
func gradPass(g, qi, qj, up []float64, dai, daj float64) (gmax float64, idx int) {
	return gradPassLanes(gradPassAVX2, g, qi, qj, up, dai, daj)
}

// gradPassLanes is gradPass on columns of either precision: the AVX2 loop
// pass over the entries in fours and gradPassGo over the tail, or
// gradPassGo alone without AVX2.
func gradPassLanes[E float32 | float64](pass func(grad *float64, qi, qj *E, up *float64, n int, dai, daj float64) (float64, int), g []float64, qi, qj []E, up []float64, dai, daj float64) (gmax float64, idx int) {
	if useAVX2 && len(g) >= 4 {
		n4 := len(g) &^ 3
		gmax, idx = pass(&g[0], &qi[0], &qj[0], &up[0], n4, dai, daj)
		// The tail's entries come last: a tie goes to them.
		if gt, it := gradPassGo(g[n4:], qi[n4:], qj[n4:], up[n4:], dai, daj); it >= 0 && gt >= gmax {
			gmax, idx = gt, n4+it
		}
		return gmax, idx
	}
	return gradPassGo(g, qi, qj, up, dai, daj)
}

func gradPassGo[E float32 | float64](g []float64, qi, qj []E, up []float64, dai, daj float64) (gmax float64, idx int) {
	gmax, idx = math.Inf(-1), -1
	qi, qj, up = qi[:len(g)], qj[:len(g)], up[:len(g)]
	for k := range g {
		gk := g[k] + (float64(qi[k])*dai + float64(qj[k])*daj)
		g[k] = gk
		if v := up[k] * gk; v >= gmax {
			gmax, idx = v, k
		}
	}
	return gmax, idx
}

// widen sets dst[k] = float64(src[k]) for k < len(src) (exact: a float32
// is a float64). It is the single-precision cache's read (cache.get32),
// which widens a column of the active set per SMO working-set choice and
// update: done one entry at a time it was 14 % of svm's CPU at 32,561 rows
// of w8a (BENCHMARKS.md), eight at a time with AVX2.
func widen(dst []float64, src []float32) {
	n := len(src)
	dst = dst[:n]
	k := 0
	if useAVX2 && n >= 8 {
		k = n &^ 7
		widenAVX2(&dst[0], &src[0], k)
	}
	for ; k < n; k++ {
		dst[k] = float64(src[k])
	}
}

// signedAdd sets g[k] += a·(col[k]·(yi·y[k])) for k < len(g), a column of
// a stored kernel signed as the cache signs it and added as axpy adds it
// (initGradientStored), and returns Σ col[k] - col[k]: 0 when every entry
// is finite, NaN otherwise. Four lanes at a time with AVX2, the same bits.
func signedAdd(g, col, y []float64, a, yi float64) (z float64) {
	if useAVX2 && len(g) >= 4 {
		n4 := len(g) &^ 3
		z = signedAddAVX2(&g[0], &col[0], &y[0], n4, a, yi)
		return z + signedAddGo(g[n4:], col[n4:], y[n4:], a, yi)
	}
	return signedAddGo(g, col, y, a, yi)
}

func signedAddGo(g, col, y []float64, a, yi float64) (z float64) {
	col, y = col[:len(g)], y[:len(g)]
	for k, v := range col {
		z += v - v
		g[k] += a * (v * (yi * y[k]))
	}
	return z
}

// signedCopy sets dst[k] = col[k]·(yi·y[k]) for k < len(dst), a column of
// a stored kernel signed as the cache signs it (cache.fillStored), and
// returns Σ col[k] - col[k] (0 when every entry is finite). Four lanes at
// a time with AVX2, the same bits.
func signedCopy(dst, col, y []float64, yi float64) (z float64) {
	if useAVX2 && len(dst) >= 4 {
		n4 := len(dst) &^ 3
		z = signedCopyAVX2(&dst[0], &col[0], &y[0], n4, yi)
		return z + signedCopyGo(dst[n4:], col[n4:], y[n4:], yi)
	}
	return signedCopyGo(dst, col, y, yi)
}

func signedCopyGo(dst, col, y []float64, yi float64) (z float64) {
	col, y = col[:len(dst)], y[:len(dst)]
	for k, v := range col {
		z += v - v
		dst[k] = v * (yi * y[k])
	}
	return z
}

// column is the active part of a kernel column as the cache holds it:
// float64 (d), or in single precision the cache's float32 buffer itself
// (s), which the sweeps widen entry by entry in their registers instead of
// get32 widening the whole column into a float64 buffer first (a write and
// a read of 8 bytes an entry, twice an SMO iteration, on the largest
// problems, where the iterations are memory-bound).
type column struct {
	d []float64
	s []float32
}

// at returns entry k, widened.
func (c column) at(k int) float64 {
	if c.s != nil {
		return float64(c.s[k])
	}
	return c.d[k]
}

// lowPassCol is lowPass on a column in either precision: the same bits, a
// float32 entry widened exactly before its product.
func lowPassCol(g, low, qd []float64, qi column, gmax, qdi, yi2 float64) (gmax2 float64, j int) {
	if qi.s == nil {
		return lowPass(g, low, qd, qi.d, gmax, qdi, yi2)
	}
	return lowPassLanes(lowPass32AVX2, lowPass32SkipAVX2, g, low, qd, qi.s, gmax, qdi, yi2)
}

// gradPassCol is gradPass on two columns in either precision (both the
// cache's, so both the same): the same bits.
func gradPassCol(g []float64, qi, qj column, up []float64, dai, daj float64) (gmax float64, idx int) {
	if qi.s == nil {
		return gradPass(g, qi.d, qj.d, up, dai, daj)
	}
	return gradPassLanes(gradPass32AVX2, g, qi.s, qj.s, up, dai, daj)
}

// narrow sets dst[k] = float32(src[k]), LIBSVM's (Qfloat)(y_i y_j K_ij), for
// k < len(src) and returns max_k |src[k]| (NaN when an entry is NaN, as
// Go's max gives it) and whether an entry's float32 is NaN or ±Inf (an
// entry beyond float32's range, or not finite at all): the single-precision
// cache's conversion of a computed column (cache.col32), 11 % of a
// 26,000-row solve at large C as a sequential loop, whose maximum and check
// were two chains of dependent operations. Four lanes at a time with AVX2;
// when an entry is not finite the Go loop redoes the slice, so that the
// maximum is NaN as Go's max makes it (VMAXPD would drop the NaN).
func narrow(dst []float32, src []float64) (maxAbs float64, nonFinite bool) {
	if useAVX2 && len(src) >= 4 {
		n4 := len(src) &^ 3
		mx, z := narrowAVX2(&dst[0], &src[0], n4)
		if z != 0 {
			return narrowGo(dst, src)
		}
		m, bad := narrowGo(dst[n4:len(src)], src[n4:])
		return max(mx, m), bad
	}
	return narrowGo(dst, src)
}

// narrowGo is narrow in Go: four independent maxima and checks, as
// anyNonFinite (max is commutative and associative, also with NaN, so the
// result is the sequential loop's).
func narrowGo(dst []float32, src []float64) (maxAbs float64, nonFinite bool) {
	dst = dst[:len(src)]
	var m0, m1, m2, m3 float64
	var z0, z1, z2, z3 float32
	k := 0
	for ; k+4 <= len(src); k += 4 {
		v := src[k : k+4 : k+4]
		d := dst[k : k+4 : k+4]
		f0, f1, f2, f3 := float32(v[0]), float32(v[1]), float32(v[2]), float32(v[3])
		d[0], d[1], d[2], d[3] = f0, f1, f2, f3
		z0 += f0 - f0
		z1 += f1 - f1
		z2 += f2 - f2
		z3 += f3 - f3
		m0 = max(m0, math.Abs(v[0]))
		m1 = max(m1, math.Abs(v[1]))
		m2 = max(m2, math.Abs(v[2]))
		m3 = max(m3, math.Abs(v[3]))
	}
	for j, v := range src[k:] {
		f := float32(v)
		dst[k+j] = f
		z0 += f - f
		m0 = max(m0, math.Abs(v))
	}
	return max(m0, m1, m2, m3), z0+z1+z2+z3 != 0
}
