//go:build amd64 && !purego

#include "textflag.h"

// The constants of expNonPos (fastexp.go), bit for bit.
DATA expc<>+0(SB)/8, $0x40571547652b82fe  // 64/ln2
DATA expc<>+8(SB)/8, $0x4338000000000000  // 1.5·2^52
DATA expc<>+16(SB)/8, $0x3f862e42fee00000 // ln2/64 high part
DATA expc<>+24(SB)/8, $0x3d8a39ef35793c76 // ln2/64 low part
DATA expc<>+32(SB)/8, $0x3f56c16c16c16c17 // 1/720
DATA expc<>+40(SB)/8, $0x3f81111111111111 // 1/120
DATA expc<>+48(SB)/8, $0x3fa5555555555555 // 1/24
DATA expc<>+56(SB)/8, $0x3fc5555555555555 // 1/6
DATA expc<>+64(SB)/8, $0x3fe0000000000000 // 1/2
DATA expc<>+72(SB)/8, $0x3ff0000000000000 // 1
DATA expc<>+80(SB)/8, $0xc086200000000000 // -708
DATA expc<>+88(SB)/8, $0x3f90000000000000 // 1/64
DATA expc<>+96(SB)/8, $63
DATA expc<>+104(SB)/8, $1023
GLOBL expc<>(SB), RODATA|NOPTR, $112

// func expAVX2(x *float64, n int, tab *[64]float64) (left bool)
//
// Per entry, as expNonPos: ok = x >= -708; t = x*(64/ln2) + 1.5·2^52;
// j = bits(t) & 63; kf = t - 1.5·2^52; m = floor(kf/64) (= k>>6);
// r = (x - kf*L1) - kf*L2; p = r*(1 + r*(1/2 + r*(1/6 + r*(1/24 +
// r*(1/120 + r*(1/720)))))); s = tab[j] * 2^m (bits (m + 1023) << 52);
// x = s + s*p where ok, x unchanged elsewhere.
TEXT ·expAVX2(SB), NOSPLIT, $0-25
	MOVQ x+0(FP), DI
	MOVQ n+8(FP), CX
	MOVQ tab+16(FP), R8
	XORQ AX, AX
	VXORPD Y15, Y15, Y15 // OR of the lanes left out

exploop:
	VMOVUPD (DI)(AX*8), Y0                // x
	VBROADCASTSD expc<>+80(SB), Y1
	VCMPPD $0x1d, Y1, Y0, Y14             // ok = x >= -708 (GE_OQ)
	VPCMPEQQ Y1, Y1, Y1
	VPXOR Y1, Y14, Y1                     // !ok
	VPOR Y1, Y15, Y15
	VBROADCASTSD expc<>+0(SB), Y1
	VMULPD Y1, Y0, Y2                     // x*(64/ln2)
	VBROADCASTSD expc<>+8(SB), Y3
	VADDPD Y3, Y2, Y2                     // t
	VPBROADCASTQ expc<>+96(SB), Y4
	VPAND Y4, Y2, Y4                      // j = bits(t) & 63
	VSUBPD Y3, Y2, Y5                     // kf = t - 1.5·2^52
	VBROADCASTSD expc<>+88(SB), Y6
	VMULPD Y6, Y5, Y6                     // kf/64 (exact)
	VROUNDPD $1, Y6, Y6                   // m = floor(kf/64)
	VADDPD Y3, Y6, Y6                     // m in the low bits
	VPBROADCASTQ expc<>+104(SB), Y7
	VPADDQ Y7, Y6, Y6
	VPSLLQ $52, Y6, Y6                    // 2^m
	VBROADCASTSD expc<>+16(SB), Y7
	VMULPD Y7, Y5, Y7                     // kf*L1
	VSUBPD Y7, Y0, Y8                     // x - kf*L1
	VBROADCASTSD expc<>+24(SB), Y7
	VMULPD Y7, Y5, Y7                     // kf*L2
	VSUBPD Y7, Y8, Y8                     // r
	VBROADCASTSD expc<>+32(SB), Y9
	VMULPD Y9, Y8, Y9                     // r*(1/720)
	VBROADCASTSD expc<>+40(SB), Y10
	VADDPD Y10, Y9, Y9                    // 1/120 + ...
	VMULPD Y9, Y8, Y9
	VBROADCASTSD expc<>+48(SB), Y10
	VADDPD Y10, Y9, Y9                    // 1/24 + ...
	VMULPD Y9, Y8, Y9
	VBROADCASTSD expc<>+56(SB), Y10
	VADDPD Y10, Y9, Y9                    // 1/6 + ...
	VMULPD Y9, Y8, Y9
	VBROADCASTSD expc<>+64(SB), Y10
	VADDPD Y10, Y9, Y9                    // 1/2 + ...
	VMULPD Y9, Y8, Y9
	VBROADCASTSD expc<>+72(SB), Y10
	VADDPD Y10, Y9, Y9                    // 1 + ...
	VMULPD Y9, Y8, Y9                     // p
	VPCMPEQQ Y10, Y10, Y10                // gather mask: all lanes
	VXORPD Y11, Y11, Y11
	VGATHERQPD Y10, (R8)(Y4*8), Y11       // tab[j]
	VMULPD Y6, Y11, Y11                   // s = tab[j] * 2^m
	VMULPD Y9, Y11, Y12                   // s*p
	VADDPD Y12, Y11, Y11                  // s + s*p
	VBLENDVPD Y14, Y11, Y0, Y0            // where ok
	VMOVUPD Y0, (DI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT exploop

	VPTEST Y15, Y15
	SETNE left+24(FP)
	VZEROUPPER
	RET
