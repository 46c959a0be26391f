#include "textflag.h"

// func prefetch(p unsafe.Pointer, n uintptr)
//
// PREFETCHT0 every cache line of the n bytes at p (n > 0).
TEXT ·prefetch(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
loop:
	PREFETCHT0 (AX)
	ADDQ $64, AX
	SUBQ $64, CX
	JGT  loop
	RET

// func prefetchIdx64(base unsafe.Pointer, idx *int64, n int, shift uint)
//
// PREFETCHT0 base + idx[k]<<shift for k < n (n > 0). A prefetch never
// faults, so any index value is harmless.
TEXT ·prefetchIdx64(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), AX
	MOVQ idx+8(FP), BX
	MOVQ n+16(FP), SI
	MOVQ shift+24(FP), CX
loop64:
	MOVQ (BX), R8
	SHLQ CX, R8
	PREFETCHT0 (AX)(R8*1)
	ADDQ $8, BX
	DECQ SI
	JNZ  loop64
	RET

// func prefetchIdx32(base unsafe.Pointer, idx *int32, n int, shift uint)
TEXT ·prefetchIdx32(SB), NOSPLIT, $0-32
	MOVQ base+0(FP), AX
	MOVQ idx+8(FP), BX
	MOVQ n+16(FP), SI
	MOVQ shift+24(FP), CX
loop32:
	MOVLQSX (BX), R8
	SHLQ CX, R8
	PREFETCHT0 (AX)(R8*1)
	ADDQ $4, BX
	DECQ SI
	JNZ  loop32
	RET

// func prefetchL2(p unsafe.Pointer, n uintptr)
//
// PREFETCHT1 every cache line of the n bytes at p (n > 0): into L2, not
// L1, for lines read once a little later (the src rows of the owner path).
TEXT ·prefetchL2(SB), NOSPLIT, $0-16
	MOVQ p+0(FP), AX
	MOVQ n+8(FP), CX
loopL2:
	PREFETCHT1 (AX)
	ADDQ $64, AX
	SUBQ $64, CX
	JGT  loopL2
	RET
