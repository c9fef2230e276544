//go:build amd64 && !purego

#include "textflag.h"

DATA rotSign<>+0(SB)/8, $0x8000000000000000
GLOBL rotSign<>(SB), RODATA|NOPTR, $8

// func rotRowsAVX2(x, y *float64, n int, c, s float64)
//
// Per entry, as rotRowsGo: x' = c*x + s*y, y' = (-s)*x + c*y.
TEXT ·rotRowsAVX2(SB), NOSPLIT, $0-40
	MOVQ x+0(FP), DI
	MOVQ y+8(FP), SI
	MOVQ n+16(FP), CX
	VBROADCASTSD c+24(FP), Y0
	VBROADCASTSD s+32(FP), Y1
	VBROADCASTSD rotSign<>(SB), Y2
	VXORPD Y2, Y1, Y2 // -s
	XORQ AX, AX

rotloop:
	VMOVUPD (DI)(AX*8), Y3 // x
	VMOVUPD (SI)(AX*8), Y4 // y
	VMULPD Y3, Y0, Y5      // c*x
	VMULPD Y4, Y1, Y6      // s*y
	VADDPD Y6, Y5, Y5      // c*x + s*y
	VMULPD Y3, Y2, Y7      // (-s)*x
	VMULPD Y4, Y0, Y8      // c*y
	VADDPD Y8, Y7, Y7      // (-s)*x + c*y
	VMOVUPD Y5, (DI)(AX*8)
	VMOVUPD Y7, (SI)(AX*8)
	ADDQ $4, AX
	CMPQ AX, CX
	JLT rotloop

	VZEROUPPER
	RET
