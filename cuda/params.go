package cuda

// params mirrors struct Params of kernels/00_prelude.cu field for field:
// 28 fields of 8 bytes, no padding. See there for their meaning.
type params struct {
	Out, Src, Idx, Self, Count, Touched, Err, Perm, Segs uint64

	N, A, K, B    int64
	IsA, IsK, IsB int64
	SsA, SsK, SsB int64
	OsA, OsK      int64
	Size          int64
	Flags         int64
	Op            int64
	Lanes         int64
	Aux, Aux2     int64
}

// paramsSize is sizeof(Params) in the kernels.
const paramsSize = 28 * 8

// Flags (F_* in the kernels).
const (
	fIdx32        = 1
	fLinear       = 2
	fVec4         = 4
	fIncl         = 8
	fPerStepCount = 16
	fSentinel     = 32
	fCASAdd       = 64
	fCanon        = 128
	fVecRed       = 256
	fWarpAgg      = 512
)

// Operations (OP_* in the kernels) and init modes (INIT_*).
const (
	opAssign = 0
	opSum    = 1
	opProd   = 2
	opAmax   = 3
	opAmin   = 4
	opMean   = 5

	initFill = 0
	initCopy = 1
)

// smemBytes is SMEM_BYTES of the kernels: the shared-memory copy of a small
// output.
const smemBytes = 16384
