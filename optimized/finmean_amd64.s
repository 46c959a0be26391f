#include "textflag.h"

// func finMeanF32x2(o *float32, r0, r1 *rec[float32], n int, self, top int32)
//
// For i < n, n a multiple of 4, four at a time (SSE2): where c = r0[i].n
// + r1[i].n is not 0, o[i] = (r0[i].a + r1[i].a) / float32(min(c+self,
// top)); elsewhere o[i] is left as it is. The counts are below 2^31 and
// their float32 conversion rounds to nearest, as Go's does.
TEXT ·finMeanF32x2(SB), NOSPLIT, $0-40
	MOVQ o+0(FP), DI
	MOVQ r0+8(FP), SI
	MOVQ r1+16(FP), DX
	MOVQ n+24(FP), CX
	MOVL self+32(FP), AX
	MOVL AX, X14
	PSHUFD $0, X14, X14
	MOVL top+36(FP), AX
	MOVL AX, X15
	PSHUFD $0, X15, X15
	PXOR X13, X13
	XORQ AX, AX
loop:
	CMPQ AX, CX
	JGE  done
	MOVUPS (SI)(AX*8), X0            // r0[i], r0[i+1]: a, n, a, n
	MOVUPS 16(SI)(AX*8), X1          // r0[i+2], r0[i+3]
	MOVUPS (DX)(AX*8), X2
	MOVUPS 16(DX)(AX*8), X3
	MOVAPS X0, X4
	SHUFPS $0x88, X1, X4             // r0's four sums
	SHUFPS $0xdd, X1, X0             // r0's four counts
	MOVAPS X2, X5
	SHUFPS $0x88, X3, X5             // r1's sums
	SHUFPS $0xdd, X3, X2             // r1's counts
	ADDPS X5, X4                     // the sums
	PADDL X2, X0                     // c, the counts
	MOVO X0, X6
	PCMPEQL X13, X6                  // c == 0: keep o
	PADDL X14, X0                    // c + self
	MOVO X0, X7
	PCMPGTL X15, X7                  // c + self > top
	MOVO X7, X8
	PAND X15, X8
	PANDN X0, X7
	POR X8, X7                       // min(c + self, top)
	CVTPL2PS X7, X7
	DIVPS X7, X4                     // the means
	MOVUPS (DI)(AX*4), X9
	PAND X6, X9                      // o where c == 0
	PANDN X4, X6                     // the means elsewhere
	POR X9, X6
	MOVUPS X6, (DI)(AX*4)
	ADDQ $4, AX
	JMP  loop
done:
	RET
