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
// Solver::select_working_set): gmax2 = max over I_low of -y_jG_j... written
// with the masks of smo.low, low[j] = y_j on I_low and NaN off it, so gj =
// low[j]·G_j is G_j for y_j = +1 and -G_j for y_j = -1 (LIBSVM's two
// branches) and NaN, failing every comparison, off I_low. j minimises
// od = -b²/a over b = gmax + gj > 0, a = qdi + qd_j - yi2·low_j·qi_j (τ when
// a ≤ 0), ties to the last; j is -1 when no b > 0.
func lowPass(g, low, qd, qi []float64, gmax, qdi, yi2 float64) (gmax2 float64, j int) {
	if useAVX2 && len(low) >= 4 {
		n4 := len(low) &^ 3
		var ln lowLanes
		lowPassAVX2(&g[0], &low[0], &qd[0], &qi[0], n4, gmax, qdi, yi2, &ln)
		gmax2, od, j := lowPassGo(g[n4:], low[n4:], qd[n4:], qi[n4:], gmax, qdi, yi2)
		if j >= 0 {
			j += n4
		}
		for k := range 4 {
			if ln.gmax2[k] > gmax2 {
				gmax2 = ln.gmax2[k]
			}
			if ix := int(ln.idx[k]); ix >= 0 && (ln.od[k] < od || (ln.od[k] == od && ix > j)) {
				od, j = ln.od[k], ix
			}
		}
		return gmax2, j
	}
	gmax2, _, j = lowPassGo(g, low, qd, qi, gmax, qdi, yi2)
	return gmax2, j
}

// lowPassGo is lowPass in Go; it also returns the least od (+Inf when j is
// -1). It skips the division where the quotient cannot win: od = -b²/a >
// objDiffMin for sure when b² < (1-1e-9)·(-objDiffMin)·a.
func lowPassGo(g, low, qd, qi []float64, gmax, qdi, yi2 float64) (gmax2, objDiffMin float64, idx int) {
	gmax2, objDiffMin, idx = math.Inf(-1), math.Inf(1), -1
	g, qd, qi = g[:len(low)], qd[:len(low)], qi[:len(low)]
	bound := 0.0 // (1-1e-9)·(-objDiffMin) once finite
	for j, l := range low {
		gj := l * g[j]
		if gj >= gmax2 {
			gmax2 = gj
		}
		if diff := gmax + gj; diff > 0 {
			quad := qdi + qd[j] - yi2*l*qi[j]
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
	if useAVX2 && len(g) >= 4 {
		n4 := len(g) &^ 3
		var ln gradLanes
		gradPassAVX2(&g[0], &qi[0], &qj[0], &up[0], n4, dai, daj, &ln)
		gmax, idx = gradPassGo(g[n4:], qi[n4:], qj[n4:], up[n4:], dai, daj)
		if idx >= 0 {
			idx += n4
		}
		for k := range 4 {
			if ix := int(ln.idx[k]); ix >= 0 && (ln.gmax[k] > gmax || (ln.gmax[k] == gmax && ix > idx)) {
				gmax, idx = ln.gmax[k], ix
			}
		}
		return gmax, idx
	}
	return gradPassGo(g, qi, qj, up, dai, daj)
}

func gradPassGo(g, qi, qj, up []float64, dai, daj float64) (gmax float64, idx int) {
	gmax, idx = math.Inf(-1), -1
	qi, qj, up = qi[:len(g)], qj[:len(g)], up[:len(g)]
	for k := range g {
		gk := g[k] + (qi[k]*dai + qj[k]*daj)
		g[k] = gk
		if v := up[k] * gk; v >= gmax {
			gmax, idx = v, k
		}
	}
	return gmax, idx
}

// lowLanes and gradLanes hold the four lanes' partial results of the AVX2
// sweeps: lane k saw the entries k, k+4, k+8, ...; idx is -1 where it found
// no candidate.
type lowLanes struct {
	gmax2, od [4]float64
	idx       [4]int64
}

type gradLanes struct {
	gmax [4]float64
	idx  [4]int64
}
