package optimized

import (
	"fmt"
	"math"
	"math/rand"
	"slices"
	"testing"
)

// The direct kernels against the plain Go loop they replace, at lengths
// around the main loop's 32-element look-ahead, with an index out of range
// at each position of an unrolled step (or none).
func TestDirectKernels(t *testing.T) {
	if !hasDirect {
		t.Skip("no direct kernels on this architecture")
	}
	defer func(m uintptr) { directMinBytes = m }(directMinBytes)
	directMinBytes = 0 // the kernels at every size
	r := rand.New(rand.NewSource(1))
	for _, n := range []int{1, 2, 31, 32, 33, 63, 64, 65, 200, 1000} {
		// every position of the eight-wide step of the unrolled kernels
		// (past the 32-contribution look-ahead too), the middle, the last
		bads := []int{-1, n / 2, n - 1}
		for b := 0; b < min(n, 16); b++ {
			bads = append(bads, b, b+40)
		}
		bads = slices.DeleteFunc(bads, func(b int) bool { return b >= n })
		for _, size := range []int{1, 3, 100} {
			for _, bad := range bads {
				t.Run(fmt.Sprintf("n=%d/size=%d/bad=%d", n, size, bad), func(t *testing.T) {
					t64 := make([]int64, n)
					for k := range t64 {
						t64[k] = r.Int63n(int64(size))
					}
					if bad >= 0 {
						t64[bad] = []int64{-1, int64(size), 1 << 40}[r.Intn(3)]
					}
					t32 := make([]int32, n)
					for k, x := range t64 {
						t32[k] = int32(x)
						if x == 1<<40 {
							t32[k] = -5
						}
					}
					v := make([]float32, n)
					for k := range v {
						v[k] = float32(r.Intn(9) - 4)
					}
					want := n
					if bad >= 0 {
						want = bad
					}
					wantAcc := make([]float32, size)
					wantCnt := make([]int64, size)
					for _, x := range t64[:want] {
						wantCnt[x]++
					}
					for k, x := range t64[:want] {
						wantAcc[x] += v[k]
					}
					for _, idx := range []any{t64, t32} {
						acc := make([]float32, size)
						var k int
						switch x := idx.(type) {
						case []int64:
							k, _ = directAdd(acc, x, v)
						case []int32:
							k, _ = directAdd(acc, x, v)
						}
						if k != want || fmt.Sprint(acc) != fmt.Sprint(wantAcc) {
							t.Fatalf("%T add: folded %d (want %d), %v, want %v", idx, k, want, acc, wantAcc)
						}
						cnt := make([]int32, size)
						switch x := idx.(type) {
						case []int64:
							k, _ = directCount(cnt, x)
						case []int32:
							k, _ = directCount(cnt, x)
						}
						if k != want {
							t.Fatalf("%T count: counted %d, want %d", idx, k, want)
						}
						for i, c := range cnt {
							if int64(c) != wantCnt[i] {
								t.Fatalf("%T count: %v, want %v", idx, cnt, wantCnt)
							}
						}
						// bfloat16 values: the upper halves of v's float32s
						// (small integers, exact in bfloat16)
						vb := make([]uint16, n)
						for k, x := range v {
							vb[k] = uint16(math.Float32bits(x) >> 16)
						}
						clear(acc)
						switch x := idx.(type) {
						case []int64:
							k, _ = directAddBF16(acc, x, vb)
						case []int32:
							k, _ = directAddBF16(acc, x, vb)
						}
						if k != want || fmt.Sprint(acc) != fmt.Sprint(wantAcc) {
							t.Fatalf("%T addBF16: folded %d (want %d), %v, want %v", idx, k, want, acc, wantAcc)
						}
						recs := make([]rec[float32], size)
						switch x := idx.(type) {
						case []int64:
							k, _ = directAddRec(recs, x, v)
						case []int32:
							k, _ = directAddRec(recs, x, v)
						}
						if k != want {
							t.Fatalf("%T addRec: folded %d, want %d", idx, k, want)
						}
						for i, q := range recs {
							if q.a != wantAcc[i] || int64(q.n) != wantCnt[i] {
								t.Fatalf("%T addRec: %v, want sums %v and counts %v", idx, recs, wantAcc, wantCnt)
							}
						}
					}
				})
			}
		}
	}
}

// The amax/amin kernels against amax32/amin32 (PyTorch's rule), on values
// full of NaN, infinities and signed zeros, with and without the bitmap of
// the elements reached.
func TestDirectExt(t *testing.T) {
	if !hasDirect {
		t.Skip("no direct kernels on this architecture")
	}
	defer func(m uintptr) { directMinBytes = m }(directMinBytes)
	directMinBytes = 0
	r := rand.New(rand.NewSource(2))
	vals := []float32{0, float32(math.Copysign(0, -1)), 1, -1, 2, float32(math.Inf(1)), float32(math.Inf(-1)),
		float32(math.NaN()), math.Float32frombits(0x7fc00001), math.Float32frombits(0xffc00000), 1e-45}
	for _, n := range []int{1, 31, 32, 33, 100, 1000} {
		for _, size := range []int{1, 5, 130} {
			for _, isMax := range []bool{true, false} {
				for _, bad := range []int{-1, n / 2} {
					t64 := make([]int64, n)
					v := make([]float32, n)
					for k := range t64 {
						t64[k], v[k] = r.Int63n(int64(size)), vals[r.Intn(len(vals))]
					}
					if bad >= 0 {
						t64[bad] = int64(size)
					}
					t32 := make([]int32, n)
					for k, x := range t64 {
						t32[k] = int32(x)
					}
					want := n
					if bad >= 0 {
						want = bad
					}
					init := make([]float32, size)
					for i := range init {
						init[i] = vals[r.Intn(len(vals))]
					}
					wantAcc := append([]float32(nil), init...)
					wantSeen := make([]uint64, size/64+1)
					for k, x := range t64[:want] {
						if isMax {
							wantAcc[x] = amax32(wantAcc[x], v[k])
						} else {
							wantAcc[x] = amin32(wantAcc[x], v[k])
						}
						wantSeen[x>>6] |= 1 << (x & 63)
					}
					for _, withSeen := range []bool{false, true} {
						for _, idx := range []any{t64, t32} {
							acc := append([]float32(nil), init...)
							var seen []uint64
							if withSeen {
								seen = make([]uint64, size/64+1)
							}
							var k int
							var ok bool
							switch x := idx.(type) {
							case []int64:
								k, ok = directExt(isMax, acc, seen, x, v)
							case []int32:
								k, ok = directExt(isMax, acc, seen, x, v)
							}
							if !ok || k != want {
								t.Fatalf("n=%d size=%d max=%v %T: folded %d (%v), want %d", n, size, isMax, idx, k, ok, want)
							}
							for i := range acc {
								if math.Float32bits(acc[i]) != math.Float32bits(wantAcc[i]) &&
									!(acc[i] != acc[i] && wantAcc[i] != wantAcc[i]) &&
									!(acc[i] == 0 && wantAcc[i] == 0) {
									t.Fatalf("n=%d size=%d max=%v %T: acc[%d] = %v, want %v", n, size, isMax, idx, i, acc[i], wantAcc[i])
								}
							}
							if withSeen && fmt.Sprint(seen) != fmt.Sprint(wantSeen) {
								t.Fatalf("n=%d size=%d %T: seen %x, want %x", n, size, idx, seen, wantSeen)
							}
						}
					}
				}
			}
		}
	}
}

// The direct kernels alone on W1's index (10M int64 values below 1M), on
// one goroutine: go test ./optimized -run XXX -bench Direct
var benchIdx, benchVal = func() ([]int64, []float32) {
	r := rand.New(rand.NewSource(1))
	t := make([]int64, 10_000_000)
	v := make([]float32, len(t))
	for k := range t {
		t[k], v[k] = r.Int63n(1_000_000), r.Float32()
	}
	return t, v
}()

func BenchmarkDirectAdd(b *testing.B) {
	acc := make([]float32, 1_000_000)
	for i := 0; i < b.N; i++ {
		directAdd(acc, benchIdx, benchVal)
	}
}

func BenchmarkDirectAddRec(b *testing.B) {
	r := make([]rec[float32], 1_000_000)
	for i := 0; i < b.N; i++ {
		directAddRec(r, benchIdx, benchVal)
	}
}

func BenchmarkDirectCount32(b *testing.B) {
	cnt := make([]int32, 1_000_000)
	for i := 0; i < b.N; i++ {
		directCount(cnt, benchIdx)
	}
}
