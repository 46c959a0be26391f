#include "textflag.h"

// func finBF16x2(o *uint16, a0, a1 *float32, n int)
//
// o[i] = bf16FromF32(a0[i] + a1[i]) for i < n, n a multiple of 4, four
// at a time (SSE2): the float32 sum, rounded to nearest even on its bit
// pattern (b + 0x7fff + bit 16 of b, upper half), every NaN to 0x7fc0.
TEXT ·finBF16x2(SB), NOSPLIT, $0-32
	MOVQ o+0(FP), DI
	MOVQ a0+8(FP), SI
	MOVQ a1+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL $0x7fffffff, AX
	MOVL AX, X7
	PSHUFD $0, X7, X7                // |b| mask
	MOVL $0x7f800000, AX
	MOVL AX, X6
	PSHUFD $0, X6, X6                // +inf: a NaN's |b| is above
	MOVL $1, AX
	MOVL AX, X5
	PSHUFD $0, X5, X5
	MOVL $0x7fff, AX
	MOVL AX, X4
	PSHUFD $0, X4, X4
	MOVL $0x7fc00000, AX
	MOVL AX, X10
	PSHUFD $0, X10, X10              // the NaN bfloat16 produces, in the upper half
	XORQ AX, AX
loop:
	CMPQ AX, CX
	JGE  done
	MOVUPS (SI)(AX*4), X0
	MOVUPS (DX)(AX*4), X1
	ADDPS X1, X0                     // b, the float32 sums
	MOVO X0, X2
	PAND X7, X2
	PCMPGTL X6, X2                   // mask: |b| > +inf, a NaN
	MOVO X0, X3
	PSRLL $16, X3
	PAND X5, X3
	PADDL X4, X3
	PADDL X0, X3                     // b + 0x7fff + bit 16 of b
	MOVO X2, X9
	PANDN X3, X9                     // rounded where not NaN
	PAND X10, X2                     // 0x7fc00000 where NaN
	POR X2, X9
	PSRAL $16, X9                    // the upper halves, sign-extended: PACKSSLW keeps them
	PACKSSLW X9, X9
	MOVQ X9, (DI)(AX*2)
	ADDQ $4, AX
	JMP  loop
done:
	RET
