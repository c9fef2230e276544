//go:build amd64 && !purego

#include "textflag.h"

// Constants: -Inf, +Inf and the sign bit (broadcast), lane indices 0..3 and
// the step 4 (int64).
DATA negInf<>+0(SB)/8, $0xfff0000000000000
GLOBL negInf<>(SB), RODATA|NOPTR, $8
DATA posInf<>+0(SB)/8, $0x7ff0000000000000
GLOBL posInf<>(SB), RODATA|NOPTR, $8
DATA signBit<>+0(SB)/8, $0x8000000000000000
GLOBL signBit<>(SB), RODATA|NOPTR, $8
DATA tauConst<>+0(SB)/8, $0x3d719799812dea11 // 1e-12, tau
GLOBL tauConst<>(SB), RODATA|NOPTR, $8
DATA iota4<>+0(SB)/8, $0
DATA iota4<>+8(SB)/8, $1
DATA iota4<>+16(SB)/8, $2
DATA iota4<>+24(SB)/8, $3
GLOBL iota4<>(SB), RODATA|NOPTR, $32
DATA four<>+0(SB)/8, $4
GLOBL four<>(SB), RODATA|NOPTR, $8
// lowPass's bound: a lane's best od, negated, times 1 - 1e-9, where it is
// below -1e-280 (lowPassGo's rule), four lanes each.
DATA boundFactor<>+0(SB)/8, $0x3fefffffff768fa1 // 1 - 1e-9
DATA boundFactor<>+8(SB)/8, $0x3fefffffff768fa1
DATA boundFactor<>+16(SB)/8, $0x3fefffffff768fa1
DATA boundFactor<>+24(SB)/8, $0x3fefffffff768fa1
GLOBL boundFactor<>(SB), RODATA|NOPTR, $32
DATA boundTiny<>+0(SB)/8, $0x05cd0b15a491eb84 // 1e-280
DATA boundTiny<>+8(SB)/8, $0x05cd0b15a491eb84
DATA boundTiny<>+16(SB)/8, $0x05cd0b15a491eb84
DATA boundTiny<>+24(SB)/8, $0x05cd0b15a491eb84
GLOBL boundTiny<>(SB), RODATA|NOPTR, $32


// func gradPassAVX2(grad, qi, qj, up *float64, n int, dai, daj float64) (gmax float64, idx int)
//
// Per entry k: gk = g[k] + (qi[k]*dai + qj[k]*daj); g[k] = gk;
// v = up[k]*gk; if v >= lane max { lane max, lane idx = v, k }. Then the
// lanes are merged: the larger max, on a tie the larger index.
TEXT ·gradPassAVX2(SB), NOSPLIT, $0-72
	MOVQ grad+0(FP), DI
	MOVQ qi+8(FP), SI
	MOVQ qj+16(FP), DX
	MOVQ up+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD dai+40(FP), Y0
	VBROADCASTSD daj+48(FP), Y1
	VBROADCASTSD negInf<>(SB), Y2 // lane max
	VPCMPEQQ Y3, Y3, Y3           // lane idx = -1
	VMOVDQU iota4<>(SB), Y4       // indices of the current four entries
	VPBROADCASTQ four<>(SB), Y5
	XORQ AX, AX

gradloop:
	VMULPD (SI)(AX*8), Y0, Y6 // qi*dai
	VMULPD (DX)(AX*8), Y1, Y7 // qj*daj
	VADDPD Y7, Y6, Y6         // qi*dai + qj*daj
	VADDPD (DI)(AX*8), Y6, Y6 // g + (...)
	VMOVUPD Y6, (DI)(AX*8)
	VMULPD (R8)(AX*8), Y6, Y7 // v = up*gk
	VCMPPD $0x1d, Y2, Y7, Y8  // v >= lane max (GE_OQ: false for NaN)
	VBLENDVPD Y8, Y7, Y2, Y2
	VBLENDVPD Y8, Y4, Y3, Y3
	VPADDQ Y5, Y4, Y4
	ADDQ $4, AX
	CMPQ AX, CX
	JLT gradloop

	// Merge lanes 2,3 into 0,1, then lane 1 into 0: B replaces A where
	// B > A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y2, X6
	VEXTRACTF128 $1, Y3, X7
	VCMPPD $0x1e, X2, X6, X8 // B > A (GT_OQ)
	VCMPPD $0x00, X2, X6, X9 // B == A (EQ_OQ)
	VPCMPGTQ X3, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X2, X2
	VBLENDVPD X8, X7, X3, X3
	VPERMILPD $1, X2, X6
	VPSHUFD $0x4e, X3, X7
	VCMPPD $0x1e, X2, X6, X8
	VCMPPD $0x00, X2, X6, X9
	VPCMPGTQ X3, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X2, X2
	VBLENDVPD X8, X7, X3, X3
	VMOVSD X2, gmax+56(FP)
	VMOVQ X3, idx+64(FP)
	VZEROUPPER
	RET

// func lowPassAVX2(grad, low, qd, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)
//
// Per entry j: gj = low[j]*g[j]; if gj >= lane gmax2 { lane gmax2 = gj };
// diff = gmax + gj; quad = (qdi + qd[j]) - (yi2*low[j])*qi[j], τ when
// quad <= 0; od = ((-diff)*diff)/quad; if diff > 0 && od <= lane od
// { lane od, lane idx = od, j }. Then the lanes are merged: the largest
// gmax2, and the least od, on a tie the larger index (a lane without a
// candidate holds +Inf and -1; a candidate's od is ≤ 0).
TEXT ·lowPassAVX2(SB), NOSPLIT, $0-88
	MOVQ grad+0(FP), DI
	MOVQ low+8(FP), SI
	MOVQ qd+16(FP), DX
	MOVQ qi+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD gmax+40(FP), Y0
	VBROADCASTSD qdi+48(FP), Y1
	VBROADCASTSD yi2+56(FP), Y2
	VBROADCASTSD tauConst<>(SB), Y3
	VXORPD Y4, Y4, Y4              // 0
	VBROADCASTSD signBit<>(SB), Y5
	VBROADCASTSD negInf<>(SB), Y10 // lane gmax2
	VBROADCASTSD posInf<>(SB), Y11 // lane od
	VPCMPEQQ Y12, Y12, Y12         // lane idx = -1
	VMOVDQU iota4<>(SB), Y13
	VPBROADCASTQ four<>(SB), Y14
	XORQ AX, AX

lowloop:
	VMOVUPD (SI)(AX*8), Y6      // l
	VMULPD (DI)(AX*8), Y6, Y7   // gj = l*g
	VCMPPD $0x1d, Y10, Y7, Y8   // gj >= lane gmax2
	VBLENDVPD Y8, Y7, Y10, Y10
	VADDPD Y7, Y0, Y8           // diff = gmax + gj
	VMULPD Y6, Y2, Y9           // yi2*l
	VMULPD (R8)(AX*8), Y9, Y9   // (yi2*l)*qi
	VADDPD (DX)(AX*8), Y1, Y15  // qdi + qd
	VSUBPD Y9, Y15, Y15         // quad = (qdi + qd) - (yi2*l)*qi
	VCMPPD $0x12, Y4, Y15, Y9   // quad <= 0 (LE_OQ)
	VBLENDVPD Y9, Y3, Y15, Y15  // τ there
	VXORPD Y5, Y8, Y9           // -diff
	VMULPD Y8, Y9, Y9           // (-diff)*diff
	VDIVPD Y15, Y9, Y9          // od = (-diff*diff)/quad
	VCMPPD $0x1e, Y4, Y8, Y6    // diff > 0 (GT_OQ)
	VCMPPD $0x12, Y11, Y9, Y7   // od <= lane od (LE_OQ)
	VANDPD Y6, Y7, Y7
	VBLENDVPD Y7, Y9, Y11, Y11
	VBLENDVPD Y7, Y13, Y12, Y12
	VPADDQ Y14, Y13, Y13
	ADDQ $4, AX
	CMPQ AX, CX
	JLT lowloop

	VEXTRACTF128 $1, Y10, X6
	VMAXPD X6, X10, X10
	VPERMILPD $1, X10, X6
	VMAXPD X6, X10, X10
	VMOVSD X10, gmax2+64(FP)

	// B replaces A where B < A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y11, X6
	VEXTRACTF128 $1, Y12, X7
	VCMPPD $0x11, X11, X6, X8 // B < A (LT_OQ)
	VCMPPD $0x00, X11, X6, X9 // B == A
	VPCMPGTQ X12, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VPERMILPD $1, X11, X6
	VPSHUFD $0x4e, X12, X7
	VCMPPD $0x11, X11, X6, X8
	VCMPPD $0x00, X11, X6, X9
	VPCMPGTQ X12, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VMOVSD X11, od+72(FP)
	VMOVQ X12, idx+80(FP)
	VZEROUPPER
	RET

// func widenAVX2(dst *float64, src *float32, n int)
//
// dst[k] = float64(src[k]) for k < n, eight at a time (n a multiple of 8,
// at least 8).
TEXT ·widenAVX2(SB), NOSPLIT, $0-24
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	XORQ AX, AX

widenloop:
	VCVTPS2PD (SI)(AX*4), Y0
	VCVTPS2PD 16(SI)(AX*4), Y1
	VMOVUPD Y0, (DI)(AX*8)
	VMOVUPD Y1, 32(DI)(AX*8)
	ADDQ $8, AX
	CMPQ AX, CX
	JLT widenloop
	VZEROUPPER
	RET

// func signedAddAVX2(dst, col, y *float64, n int, a, yi float64) (z float64)
//
// Per entry k: v = col[k]; dst[k] = dst[k] + a*(v*(yi*y[k])); z += v - v (0
// for finite v, NaN otherwise), four lanes at a time (n a multiple of 4,
// at least 4), the lanes' z summed at the end. Each dst[k] is the scalar
// expression's, to the last bit (no fused multiply-add).
TEXT ·signedAddAVX2(SB), NOSPLIT, $0-56
	MOVQ dst+0(FP), DI
	MOVQ col+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD a+32(FP), Y0
	VBROADCASTSD yi+40(FP), Y1
	VXORPD Y2, Y2, Y2 // lane z
	XORQ AX, AX

addloop:
	VMULPD (DX)(AX*8), Y1, Y3 // yi*y
	VMOVUPD (SI)(AX*8), Y4    // v
	VSUBPD Y4, Y4, Y5         // v - v
	VADDPD Y5, Y2, Y2
	VMULPD Y3, Y4, Y4         // v*(yi*y)
	VMULPD Y4, Y0, Y4         // a*(...)
	VADDPD (DI)(AX*8), Y4, Y4 // dst + a*(...)
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT addloop

	VEXTRACTF128 $1, Y2, X3
	VADDPD X3, X2, X2
	VPERMILPD $1, X2, X3
	VADDSD X3, X2, X2
	VMOVSD X2, z+48(FP)
	VZEROUPPER
	RET

// func signedCopyAVX2(dst, col, y *float64, n int, yi float64) (z float64)
//
// Per entry k: v = col[k]; dst[k] = v*(yi*y[k]); z += v - v, four lanes at
// a time (n a multiple of 4, at least 4), the lanes' z summed at the end.
TEXT ·signedCopyAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ col+8(FP), SI
	MOVQ y+16(FP), DX
	MOVQ n+24(FP), CX
	VBROADCASTSD yi+32(FP), Y1
	VXORPD Y2, Y2, Y2 // lane z
	XORQ AX, AX

copyloop:
	VMULPD (DX)(AX*8), Y1, Y3 // yi*y
	VMOVUPD (SI)(AX*8), Y4    // v
	VSUBPD Y4, Y4, Y5         // v - v
	VADDPD Y5, Y2, Y2
	VMULPD Y3, Y4, Y4         // v*(yi*y)
	VMOVUPD Y4, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT copyloop

	VEXTRACTF128 $1, Y2, X3
	VADDPD X3, X2, X2
	VPERMILPD $1, X2, X3
	VADDSD X3, X2, X2
	VMOVSD X2, z+40(FP)
	VZEROUPPER
	RET

// func gradPass32AVX2(grad *float64, qi, qj *float32, up *float64, n int, dai, daj float64) (gmax float64, idx int)
//
// gradPassAVX2 with the columns qi and qj in float32 (the single-precision
// cache's own buffers), each entry widened in the register: the same
// products, sums and choice as gradPassAVX2 on the widened columns.
TEXT ·gradPass32AVX2(SB), NOSPLIT, $0-72
	MOVQ grad+0(FP), DI
	MOVQ qi+8(FP), SI
	MOVQ qj+16(FP), DX
	MOVQ up+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD dai+40(FP), Y0
	VBROADCASTSD daj+48(FP), Y1
	VBROADCASTSD negInf<>(SB), Y2 // lane max
	VPCMPEQQ Y3, Y3, Y3           // lane idx = -1
	VMOVDQU iota4<>(SB), Y4       // indices of the current four entries
	VPBROADCASTQ four<>(SB), Y5
	XORQ AX, AX

grad32loop:
	VCVTPS2PD (SI)(AX*4), Y6  // qi, widened (exact)
	VMULPD Y6, Y0, Y6         // qi*dai
	VCVTPS2PD (DX)(AX*4), Y7  // qj, widened
	VMULPD Y7, Y1, Y7         // qj*daj
	VADDPD Y7, Y6, Y6         // qi*dai + qj*daj
	VADDPD (DI)(AX*8), Y6, Y6 // g + (...)
	VMOVUPD Y6, (DI)(AX*8)
	VMULPD (R8)(AX*8), Y6, Y7 // v = up*gk
	VCMPPD $0x1d, Y2, Y7, Y8  // v >= lane max (GE_OQ: false for NaN)
	VBLENDVPD Y8, Y7, Y2, Y2
	VBLENDVPD Y8, Y4, Y3, Y3
	VPADDQ Y5, Y4, Y4
	ADDQ $4, AX
	CMPQ AX, CX
	JLT grad32loop

	// Merge lanes 2,3 into 0,1, then lane 1 into 0: B replaces A where
	// B > A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y2, X6
	VEXTRACTF128 $1, Y3, X7
	VCMPPD $0x1e, X2, X6, X8 // B > A (GT_OQ)
	VCMPPD $0x00, X2, X6, X9 // B == A (EQ_OQ)
	VPCMPGTQ X3, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X2, X2
	VBLENDVPD X8, X7, X3, X3
	VPERMILPD $1, X2, X6
	VPSHUFD $0x4e, X3, X7
	VCMPPD $0x1e, X2, X6, X8
	VCMPPD $0x00, X2, X6, X9
	VPCMPGTQ X3, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X2, X2
	VBLENDVPD X8, X7, X3, X3
	VMOVSD X2, gmax+56(FP)
	VMOVQ X3, idx+64(FP)
	VZEROUPPER
	RET

// func lowPass32AVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)
//
// lowPassAVX2 with the column qi in float32, each entry widened in the
// register: the same quotients and choice as lowPassAVX2 on the widened
// column.
TEXT ·lowPass32AVX2(SB), NOSPLIT, $0-88
	MOVQ grad+0(FP), DI
	MOVQ low+8(FP), SI
	MOVQ qd+16(FP), DX
	MOVQ qi+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD gmax+40(FP), Y0
	VBROADCASTSD qdi+48(FP), Y1
	VBROADCASTSD yi2+56(FP), Y2
	VBROADCASTSD tauConst<>(SB), Y3
	VXORPD Y4, Y4, Y4              // 0
	VBROADCASTSD signBit<>(SB), Y5
	VBROADCASTSD negInf<>(SB), Y10 // lane gmax2
	VBROADCASTSD posInf<>(SB), Y11 // lane od
	VPCMPEQQ Y12, Y12, Y12         // lane idx = -1
	VMOVDQU iota4<>(SB), Y13
	VPBROADCASTQ four<>(SB), Y14
	XORQ AX, AX

low32loop:
	VMOVUPD (SI)(AX*8), Y6      // l
	VMULPD (DI)(AX*8), Y6, Y7   // gj = l*g
	VCMPPD $0x1d, Y10, Y7, Y8   // gj >= lane gmax2
	VBLENDVPD Y8, Y7, Y10, Y10
	VADDPD Y7, Y0, Y8           // diff = gmax + gj
	VMULPD Y6, Y2, Y9           // yi2*l
	VCVTPS2PD (R8)(AX*4), Y15   // qi, widened (exact)
	VMULPD Y15, Y9, Y9          // (yi2*l)*qi
	VADDPD (DX)(AX*8), Y1, Y15  // qdi + qd
	VSUBPD Y9, Y15, Y15         // quad = (qdi + qd) - (yi2*l)*qi
	VCMPPD $0x12, Y4, Y15, Y9   // quad <= 0 (LE_OQ)
	VBLENDVPD Y9, Y3, Y15, Y15  // τ there
	VXORPD Y5, Y8, Y9           // -diff
	VMULPD Y8, Y9, Y9           // (-diff)*diff
	VDIVPD Y15, Y9, Y9          // od = (-diff*diff)/quad
	VCMPPD $0x1e, Y4, Y8, Y6    // diff > 0 (GT_OQ)
	VCMPPD $0x12, Y11, Y9, Y7   // od <= lane od (LE_OQ)
	VANDPD Y6, Y7, Y7
	VBLENDVPD Y7, Y9, Y11, Y11
	VBLENDVPD Y7, Y13, Y12, Y12
	VPADDQ Y14, Y13, Y13
	ADDQ $4, AX
	CMPQ AX, CX
	JLT low32loop

	VEXTRACTF128 $1, Y10, X6
	VMAXPD X6, X10, X10
	VPERMILPD $1, X10, X6
	VMAXPD X6, X10, X10
	VMOVSD X10, gmax2+64(FP)

	// B replaces A where B < A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y11, X6
	VEXTRACTF128 $1, Y12, X7
	VCMPPD $0x11, X11, X6, X8 // B < A (LT_OQ)
	VCMPPD $0x00, X11, X6, X9 // B == A
	VPCMPGTQ X12, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VPERMILPD $1, X11, X6
	VPSHUFD $0x4e, X12, X7
	VCMPPD $0x11, X11, X6, X8
	VCMPPD $0x00, X11, X6, X9
	VPCMPGTQ X12, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VMOVSD X11, od+72(FP)
	VMOVQ X12, idx+80(FP)
	VZEROUPPER
	RET

// func lowPassSkipAVX2(grad, low, qd *float64, qi *float64, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)
//
// lowPassAVX2 that skips the division and the blends of four entries when none of
// them can beat its lane's best od: diff² < bound·quad with bound the
// lane's -od·(1 - 1e-9) (lowPassGo's test, exact: an entry it skips loses
// by more than the rounding). The same choice as lowPassAVX2, to the last bit; for
// long active sets, where the division bounds the loop.
TEXT ·lowPassSkipAVX2(SB), NOSPLIT, $0-88
	MOVQ grad+0(FP), DI
	MOVQ low+8(FP), SI
	MOVQ qd+16(FP), DX
	MOVQ qi+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD gmax+40(FP), Y0
	VBROADCASTSD qdi+48(FP), Y1
	VBROADCASTSD yi2+56(FP), Y2
	VBROADCASTSD tauConst<>(SB), Y3
	VXORPD Y4, Y4, Y4              // 0
	VBROADCASTSD signBit<>(SB), Y5
	VBROADCASTSD negInf<>(SB), Y10 // lane gmax2
	VBROADCASTSD posInf<>(SB), Y11 // lane od
	VPCMPEQQ Y12, Y12, Y12         // lane idx = -1
	VXORPD Y13, Y13, Y13           // lane bound: 0, no entry skipped
	XORQ AX, AX

lowskiploop:
	VMOVUPD (SI)(AX*8), Y6      // l
	VMULPD (DI)(AX*8), Y6, Y7   // gj = l*g
	VCMPPD $0x1d, Y10, Y7, Y8   // gj >= lane gmax2
	VBLENDVPD Y8, Y7, Y10, Y10
	VADDPD Y7, Y0, Y8           // diff = gmax + gj
	VMULPD Y6, Y2, Y9           // yi2*l
	VMULPD (R8)(AX*8), Y9, Y9   // (yi2*l)*qi
	VADDPD (DX)(AX*8), Y1, Y15  // qdi + qd
	VSUBPD Y9, Y15, Y15         // quad = (qdi + qd) - (yi2*l)*qi
	VCMPPD $0x12, Y4, Y15, Y9   // quad <= 0 (LE_OQ)
	VBLENDVPD Y9, Y3, Y15, Y15  // τ there
	VCMPPD $0x1e, Y4, Y8, Y6    // diff > 0 (GT_OQ)
	// An entry whose diff² < bound·quad cannot beat its lane's best od
	// (lowPassGo's test): when no lane of the four has a candidate that
	// passes it, the division and the blends are skipped.
	VMULPD Y8, Y8, Y9           // diff*diff
	VMULPD Y13, Y15, Y7         // bound*quad
	VCMPPD $0x15, Y7, Y9, Y7    // !(diff² < bound·quad) (NLT_UQ)
	VANDPD Y6, Y7, Y7
	VMOVMSKPD Y7, BX
	TESTL BX, BX
	JZ lowskiploopnext
	VXORPD Y5, Y8, Y9           // -diff
	VMULPD Y8, Y9, Y9           // (-diff)*diff
	VDIVPD Y15, Y9, Y9          // od = (-diff*diff)/quad
	VCMPPD $0x12, Y11, Y9, Y7   // od <= lane od (LE_OQ)
	VANDPD Y6, Y7, Y7
	VBLENDVPD Y7, Y9, Y11, Y11
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VPADDQ iota4<>(SB), Y14, Y14 // the four entries' indices
	VBLENDVPD Y7, Y14, Y12, Y12
	VXORPD Y5, Y11, Y14         // -lane od
	VCMPPD $0x1e, boundTiny<>(SB), Y14, Y7 // -od > 1e-280 (GT_OQ)
	VMULPD boundFactor<>(SB), Y14, Y14     // -od·(1 - 1e-9)
	VANDPD Y7, Y14, Y13         // lane bound, 0 where od is not below -1e-280

lowskiploopnext:
	ADDQ $4, AX
	CMPQ AX, CX
	JLT lowskiploop

	VEXTRACTF128 $1, Y10, X6
	VMAXPD X6, X10, X10
	VPERMILPD $1, X10, X6
	VMAXPD X6, X10, X10
	VMOVSD X10, gmax2+64(FP)

	// B replaces A where B < A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y11, X6
	VEXTRACTF128 $1, Y12, X7
	VCMPPD $0x11, X11, X6, X8 // B < A (LT_OQ)
	VCMPPD $0x00, X11, X6, X9 // B == A
	VPCMPGTQ X12, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VPERMILPD $1, X11, X6
	VPSHUFD $0x4e, X12, X7
	VCMPPD $0x11, X11, X6, X8
	VCMPPD $0x00, X11, X6, X9
	VPCMPGTQ X12, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VMOVSD X11, od+72(FP)
	VMOVQ X12, idx+80(FP)
	VZEROUPPER
	RET

// func lowPass32SkipAVX2(grad, low, qd *float64, qi *float32, n int, gmax, qdi, yi2 float64) (gmax2, od float64, idx int)
//
// lowPass32AVX2 that skips the division and the blends of four entries when none of
// them can beat its lane's best od: diff² < bound·quad with bound the
// lane's -od·(1 - 1e-9) (lowPassGo's test, exact: an entry it skips loses
// by more than the rounding). The same choice as lowPass32AVX2, to the last bit; for
// long active sets, where the division bounds the loop.
TEXT ·lowPass32SkipAVX2(SB), NOSPLIT, $0-88
	MOVQ grad+0(FP), DI
	MOVQ low+8(FP), SI
	MOVQ qd+16(FP), DX
	MOVQ qi+24(FP), R8
	MOVQ n+32(FP), CX
	VBROADCASTSD gmax+40(FP), Y0
	VBROADCASTSD qdi+48(FP), Y1
	VBROADCASTSD yi2+56(FP), Y2
	VBROADCASTSD tauConst<>(SB), Y3
	VXORPD Y4, Y4, Y4              // 0
	VBROADCASTSD signBit<>(SB), Y5
	VBROADCASTSD negInf<>(SB), Y10 // lane gmax2
	VBROADCASTSD posInf<>(SB), Y11 // lane od
	VPCMPEQQ Y12, Y12, Y12         // lane idx = -1
	VXORPD Y13, Y13, Y13           // lane bound: 0, no entry skipped
	XORQ AX, AX

lowskip32loop:
	VMOVUPD (SI)(AX*8), Y6      // l
	VMULPD (DI)(AX*8), Y6, Y7   // gj = l*g
	VCMPPD $0x1d, Y10, Y7, Y8   // gj >= lane gmax2
	VBLENDVPD Y8, Y7, Y10, Y10
	VADDPD Y7, Y0, Y8           // diff = gmax + gj
	VMULPD Y6, Y2, Y9           // yi2*l
	VCVTPS2PD (R8)(AX*4), Y15   // qi, widened (exact)
	VMULPD Y15, Y9, Y9          // (yi2*l)*qi
	VADDPD (DX)(AX*8), Y1, Y15  // qdi + qd
	VSUBPD Y9, Y15, Y15         // quad = (qdi + qd) - (yi2*l)*qi
	VCMPPD $0x12, Y4, Y15, Y9   // quad <= 0 (LE_OQ)
	VBLENDVPD Y9, Y3, Y15, Y15  // τ there
	VCMPPD $0x1e, Y4, Y8, Y6    // diff > 0 (GT_OQ)
	// An entry whose diff² < bound·quad cannot beat its lane's best od
	// (lowPassGo's test): when no lane of the four has a candidate that
	// passes it, the division and the blends are skipped.
	VMULPD Y8, Y8, Y9           // diff*diff
	VMULPD Y13, Y15, Y7         // bound*quad
	VCMPPD $0x15, Y7, Y9, Y7    // !(diff² < bound·quad) (NLT_UQ)
	VANDPD Y6, Y7, Y7
	VMOVMSKPD Y7, BX
	TESTL BX, BX
	JZ lowskip32loopnext
	VXORPD Y5, Y8, Y9           // -diff
	VMULPD Y8, Y9, Y9           // (-diff)*diff
	VDIVPD Y15, Y9, Y9          // od = (-diff*diff)/quad
	VCMPPD $0x12, Y11, Y9, Y7   // od <= lane od (LE_OQ)
	VANDPD Y6, Y7, Y7
	VBLENDVPD Y7, Y9, Y11, Y11
	VMOVQ AX, X14
	VPBROADCASTQ X14, Y14
	VPADDQ iota4<>(SB), Y14, Y14 // the four entries' indices
	VBLENDVPD Y7, Y14, Y12, Y12
	VXORPD Y5, Y11, Y14         // -lane od
	VCMPPD $0x1e, boundTiny<>(SB), Y14, Y7 // -od > 1e-280 (GT_OQ)
	VMULPD boundFactor<>(SB), Y14, Y14     // -od·(1 - 1e-9)
	VANDPD Y7, Y14, Y13         // lane bound, 0 where od is not below -1e-280

lowskip32loopnext:
	ADDQ $4, AX
	CMPQ AX, CX
	JLT lowskip32loop

	VEXTRACTF128 $1, Y10, X6
	VMAXPD X6, X10, X10
	VPERMILPD $1, X10, X6
	VMAXPD X6, X10, X10
	VMOVSD X10, gmax2+64(FP)

	// B replaces A where B < A or (B == A and idx B > idx A).
	VEXTRACTF128 $1, Y11, X6
	VEXTRACTF128 $1, Y12, X7
	VCMPPD $0x11, X11, X6, X8 // B < A (LT_OQ)
	VCMPPD $0x00, X11, X6, X9 // B == A
	VPCMPGTQ X12, X7, X10     // idx B > idx A
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VPERMILPD $1, X11, X6
	VPSHUFD $0x4e, X12, X7
	VCMPPD $0x11, X11, X6, X8
	VCMPPD $0x00, X11, X6, X9
	VPCMPGTQ X12, X7, X10
	VPAND X10, X9, X9
	VPOR X9, X8, X8
	VBLENDVPD X8, X6, X11, X11
	VBLENDVPD X8, X7, X12, X12
	VMOVSD X11, od+72(FP)
	VMOVQ X12, idx+80(FP)
	VZEROUPPER
	RET

// func narrowAVX2(dst *float32, src *float64, n int) (maxAbs float64, z float32)
//
// Per entry k: f = float32(src[k]) (VCVTPD2PS rounds to nearest even, as
// Go's conversion; beyond float32's range ±Inf); dst[k] = f; z += f - f;
// maxAbs = max(maxAbs, |src[k]|) by VMAXPD, four lanes at a time (n a
// multiple of 4, at least 4), the lanes merged at the end. VMAXPD does not
// propagate NaN as Go's max does: the caller redoes the maximum when z is
// not 0 (a NaN src[k] makes its f NaN).
TEXT ·narrowAVX2(SB), NOSPLIT, $0-36
	MOVQ dst+0(FP), DI
	MOVQ src+8(FP), SI
	MOVQ n+16(FP), CX
	MOVQ $0x7fffffffffffffff, R8
	MOVQ R8, X7
	VPBROADCASTQ X7, Y7 // |·| mask
	VXORPD Y2, Y2, Y2   // lane max
	VXORPS X3, X3, X3   // lane z
	XORQ AX, AX

narrowloop:
	VMOVUPD (SI)(AX*8), Y0
	VCVTPD2PSY Y0, X1
	VMOVUPS X1, (DI)(AX*4)
	VSUBPS X1, X1, X4 // f - f
	VADDPS X4, X3, X3
	VANDPD Y7, Y0, Y0 // |v|
	VMAXPD Y0, Y2, Y2
	ADDQ $4, AX
	CMPQ AX, CX
	JLT narrowloop

	VEXTRACTF128 $1, Y2, X0
	VMAXPD X0, X2, X2
	VPERMILPD $1, X2, X0
	VMAXSD X0, X2, X2
	VMOVSD X2, maxAbs+24(FP)
	VMOVSHDUP X3, X4
	VADDPS X4, X3, X3
	VMOVHLPS X3, X4, X4
	VADDSS X4, X3, X3
	VMOVSS X3, z+32(FP)
	VZEROUPPER
	RET
