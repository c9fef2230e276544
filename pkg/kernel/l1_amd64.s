//go:build amd64 && !purego

#include "textflag.h"

DATA absMask<>+0(SB)/8, $0x7fffffffffffffff
GLOBL absMask<>(SB), RODATA|NOPTR, $8
DATA l1sign<>+0(SB)/8, $0x8000000000000000
GLOBL l1sign<>(SB), RODATA|NOPTR, $8

// func l1RowAVX2(dst, xi, xs *float64, d int, idx *int, n int)
//
// dst[k] = -l1dist(xi, xs[j*d:(j+1)*d]), j = idx[k] or k, with l1dist's
// sums: lane q of the accumulator is its s_q (features q, q+4, ...), the
// d mod 4 last features go to s0 one by one, and the result is
// (s0 + s1) + (s2 + s3).
TEXT ·l1RowAVX2(SB), NOSPLIT, $0-48
	MOVQ dst+0(FP), DI
	MOVQ xi+8(FP), SI
	MOVQ xs+16(FP), DX
	MOVQ d+24(FP), R8
	MOVQ idx+32(FP), R9
	MOVQ n+40(FP), CX
	MOVQ R8, R10
	ANDQ $-4, R10         // d rounded down to a multiple of 4
	MOVQ R8, R11
	SHLQ $3, R11          // bytes per row
	VBROADCASTSD absMask<>(SB), Y7
	VMOVSD l1sign<>(SB), X8
	XORQ BX, BX           // k

rowloop:
	CMPQ BX, CX
	JGE done
	MOVQ BX, AX
	TESTQ R9, R9
	JZ haverow
	MOVQ (R9)(BX*8), AX

haverow:
	IMULQ R11, AX
	ADDQ DX, AX           // &xs[j*d]
	VXORPD Y0, Y0, Y0
	XORQ R12, R12

blockloop:
	CMPQ R12, R10
	JGE blocksdone
	VMOVUPD (SI)(R12*8), Y1
	VSUBPD (AX)(R12*8), Y1, Y1
	VANDPD Y7, Y1, Y1
	VADDPD Y1, Y0, Y0
	ADDQ $4, R12
	JMP blockloop

blocksdone:
	VEXTRACTF128 $1, Y0, X4 // s2, s3

tailloop:
	CMPQ R12, R8
	JGE reduce
	VMOVSD (SI)(R12*8), X1
	VSUBSD (AX)(R12*8), X1, X1
	VANDPD X7, X1, X1
	VADDSD X1, X0, X0       // s0 += |a - b|, s1 kept in the upper half
	INCQ R12
	JMP tailloop

reduce:
	VHADDPD X0, X0, X0      // s0 + s1
	VHADDPD X4, X4, X4      // s2 + s3
	VADDSD X4, X0, X0
	VXORPD X8, X0, X0       // -dist
	VMOVSD X0, (DI)(BX*8)
	INCQ BX
	JMP rowloop

done:
	VZEROUPPER
	RET
