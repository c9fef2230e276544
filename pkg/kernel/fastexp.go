package kernel

import "math"

// expNonPos returns e^x for x ≤ 0 (and any x below the overflow threshold),
// about four times faster than math.Exp, with a relative error below 4e-16
// (≈ 2 ulp; TestExpNonPos checks it against math.Exp). It is Tang's
// table-driven method (ACM TOMS 15(2), 1989): x = (64m + j)·ln2/64 + r,
// |r| ≤ ln2/128, e^x = 2^m · 2^(j/64) · e^r, with e^r - 1 by its Taylor
// polynomial to degree 6 (truncation < 4e-17) and the reduction in two
// parts (Cody–Waite) so that k·ln2/64 is exact. NaN, and x < -708 where the
// result is subnormal or zero, go to math.Exp. The exp pass is a third of a
// Gaussian Gram matrix's time with math.Exp (DEPENDENCIES.md: 26 of 58 ms).
func expNonPos(x float64) float64 {
	if !(x >= -708) {
		return math.Exp(x)
	}
	// Round x·64/ln2 to the nearest integer k by adding 1.5·2^52: k then sits
	// in the low bits of t (two's complement), and t - 1.5·2^52 is k exactly.
	t := x*expInvL + expMagic
	k := int32(math.Float64bits(t))
	kf := t - expMagic
	r := (x - kf*expL1) - kf*expL2
	p := r * (1 + r*(1.0/2+r*(1.0/6+r*(1.0/24+r*(1.0/120+r*(1.0/720))))))
	s := exp2Tab[k&63] * math.Float64frombits(uint64(1023+(k>>6))<<52)
	return s + s*p
}

const (
	expInvL  = 0x1.71547652b82fep+6  // 64/ln2
	expL1    = 0x1.62e42fee00000p-7  // ln2/64 to 32 bits, so k·expL1 is exact for |k| < 2^21
	expL2    = 0x1.a39ef35793c76p-39 // ln2/64 - expL1
	expMagic = 0x1.8p52
)

// exp2Tab[j] = 2^(j/64), correctly rounded (computed with mpmath at 300 bits).
var exp2Tab = [64]float64{
	0x1.0000000000000p+0, 0x1.02c9a3e778061p+0, 0x1.059b0d3158574p+0, 0x1.0874518759bc8p+0,
	0x1.0b5586cf9890fp+0, 0x1.0e3ec32d3d1a2p+0, 0x1.11301d0125b51p+0, 0x1.1429aaea92de0p+0,
	0x1.172b83c7d517bp+0, 0x1.1a35beb6fcb75p+0, 0x1.1d4873168b9aap+0, 0x1.2063b88628cd6p+0,
	0x1.2387a6e756238p+0, 0x1.26b4565e27cddp+0, 0x1.29e9df51fdee1p+0, 0x1.2d285a6e4030bp+0,
	0x1.306fe0a31b715p+0, 0x1.33c08b26416ffp+0, 0x1.371a7373aa9cbp+0, 0x1.3a7db34e59ff7p+0,
	0x1.3dea64c123422p+0, 0x1.4160a21f72e2ap+0, 0x1.44e086061892dp+0, 0x1.486a2b5c13cd0p+0,
	0x1.4bfdad5362a27p+0, 0x1.4f9b2769d2ca7p+0, 0x1.5342b569d4f82p+0, 0x1.56f4736b527dap+0,
	0x1.5ab07dd485429p+0, 0x1.5e76f15ad2148p+0, 0x1.6247eb03a5585p+0, 0x1.6623882552225p+0,
	0x1.6a09e667f3bcdp+0, 0x1.6dfb23c651a2fp+0, 0x1.71f75e8ec5f74p+0, 0x1.75feb564267c9p+0,
	0x1.7a11473eb0187p+0, 0x1.7e2f336cf4e62p+0, 0x1.82589994cce13p+0, 0x1.868d99b4492edp+0,
	0x1.8ace5422aa0dbp+0, 0x1.8f1ae99157736p+0, 0x1.93737b0cdc5e5p+0, 0x1.97d829fde4e50p+0,
	0x1.9c49182a3f090p+0, 0x1.a0c667b5de565p+0, 0x1.a5503b23e255dp+0, 0x1.a9e6b5579fdbfp+0,
	0x1.ae89f995ad3adp+0, 0x1.b33a2b84f15fbp+0, 0x1.b7f76f2fb5e47p+0, 0x1.bcc1e904bc1d2p+0,
	0x1.c199bdd85529cp+0, 0x1.c67f12e57d14bp+0, 0x1.cb720dcef9069p+0, 0x1.d072d4a07897cp+0,
	0x1.d5818dcfba487p+0, 0x1.da9e603db3285p+0, 0x1.dfc97337b9b5fp+0, 0x1.e502ee78b3ff6p+0,
	0x1.ea4afa2a490dap+0, 0x1.efa1bee615a27p+0, 0x1.f50765b6e4540p+0, 0x1.fa7c1819e90d8p+0,
}

// expNonPosSlice sets x[k] = expNonPos(x[k]) for every k: on amd64 with
// AVX2 four at a time (fastexp_amd64.s), the same operations in the same
// order, so the same bits (TestExpNonPosSlice).
func expNonPosSlice(x []float64) {
	n4 := 0
	if useAVX2 && len(x) >= 4 {
		n4 = len(x) &^ 3
		if expAVX2(&x[0], n4, &exp2Tab) {
			// Entries below -708 and NaNs were left as they were, and only
			// they are not positive: e^x ≥ e^-708 > 0 elsewhere.
			for k, v := range x[:n4] {
				if !(v > 0) {
					x[k] = math.Exp(v)
				}
			}
		}
	}
	for k := n4; k < len(x); k++ {
		x[k] = expNonPos(x[k])
	}
}
