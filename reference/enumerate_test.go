package reference

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/scatterconf/scatter"
)

// truncate16 rounds x toward zero to the 16-bit dtype dt: the store of a
// float32 accumulator with the wrong rounding mode.
func truncate16(dt scatter.DType, x float64) float64 {
	y := roundToDT(dt, x)
	if math.IsNaN(x) || y == x || math.Abs(y) < math.Abs(x) {
		return y
	}
	if dt == scatter.DTFloat16 {
		return scatter.Float16(uint16(scatter.Float16FromFloat64(y)) - 1).Float64()
	}
	return scatter.BFloat16(uint16(scatter.BFloat16FromFloat64(y)) - 1).Float64()
}

// sixteenBit returns a 16-bit tensor of the values xs (exact in dt).
func sixteenBit(dt scatter.DType, xs ...float64) scatter.Tensor {
	t := scatter.Tensor{Shape: []int{len(xs)}, Data: scatter.MakeData(dt, len(xs))}
	for i, x := range xs {
		setFloat(t.Data, i, x)
	}
	return t
}

// TestConformantRejectsTruncation/{dtype}/{sum,mean}/k={k}: a float16 or
// bfloat16 sum (or mean) accumulated in float32, as PyTorch 2 does, and
// then truncated to the dtype instead of rounded to nearest is rejected at
// the conformant level for every group size: the exact sets of small
// groups and the running-error interval of large ones (a few float32 ulps,
// rounded to nearest once) leave the truncated value out wherever it
// differs from every order's rounded one. The correctly rounded answer of
// the same order is accepted. The share rejected is logged.
func TestConformantRejectsTruncation(t *testing.T) {
	sizes := []int{2, 3, 4, 6, 8, 10, 11, 16, 32, 64, 128, 256, 1024}
	for _, dt := range []scatter.DType{scatter.DTFloat16, scatter.DTBFloat16} {
		for _, k := range []kind{kSum, kMean} {
			for _, n := range sizes {
				t.Run(fmt.Sprintf("%v/%v/k=%d", dt, k, n), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(n), uint64(dt)))
					trials := 60
					if n >= 256 {
						trials = 15
					}
					differ, rejected := 0, 0
					for range trials {
						xs := make([]float64, n)
						mixed := r.IntN(3) == 0
						for i := range xs {
							x := math.Ldexp(1+r.Float64(), r.IntN(8)-4)
							if mixed && r.IntN(2) == 0 {
								x = -x
							}
							xs[i] = roundToDT(dt, x)
						}
						// self is xs[0]; the float32 accumulator in the
						// canonical order.
						z := xs[0]
						for _, x := range xs[1:] {
							z = float64(float32(z + x))
						}
						good, bad := roundToDT(dt, z), truncate16(dt, z)
						p := judgePlan(sixteenBit(dt, xs[0]), sixteenBit(dt, xs[1:]...), k, true, group{srcs: judgeSeq(n - 1)})
						if k == kMean {
							p.mean = &meanRule{countSelf: true}
							c := roundToDT(dt, float64(n))
							good, bad = roundToDT(dt, good/c), roundToDT(dt, bad/c)
						}
						e := judgeExpect(p, scatter.Result{Out: sixteenBit(dt, good)})
						mustConform(t, e, scatter.Conformant, scatter.Result{Out: sixteenBit(dt, good)}, nil, "rounded to nearest")
						if bad == good {
							continue
						}
						differ++
						if e.Check(scatter.Conformant, scatter.Result{Out: sixteenBit(dt, bad)}, nil) != nil {
							rejected++
						}
					}
					t.Logf("%d of %d truncated answers that differ from the rounded one rejected", rejected, differ)
					if differ > 0 && rejected == 0 {
						t.Errorf("no truncated answer rejected (%d differ)", differ)
					}
					if differ == 0 {
						t.Errorf("truncation never changed the answer in %d groups: the test proves nothing", trials)
					}
				})
			}
		}
	}
}

// TestEnumerateAllTrees compares enumerateFold with a brute force over
// every labelled binary tree (k <= 6): the same set of values, in every
// float dtype and both accumulations, for sums and products.
func TestEnumerateAllTrees(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	for _, dt := range boundDTypes {
		for _, acc := range []scatter.DType{dt, scatter.DTFloat32} {
			if acc == scatter.DTFloat32 && dt != scatter.DTFloat16 && dt != scatter.DTBFloat16 {
				continue
			}
			for _, prod := range []bool{false, true} {
				t.Run(fmt.Sprintf("%v/acc=%v/prod=%v", dt, acc, prod), func(t *testing.T) {
					for range 40 {
						k := 2 + r.IntN(5)
						xs := make([]float64, k)
						for i := range xs {
							xs[i] = randomBoundValue(r, dt, r.IntN(4) == 0, r.IntN(6)-3)
							if prod {
								xs[i] = roundToDT(dt, 1+math.Ldexp(r.Float64()-0.5, -r.IntN(4)))
							}
						}
						got, ok := enumerateFold(acc, prod, xs)
						if !ok {
							t.Fatalf("%v: not enumerated", xs)
						}
						want := bruteTrees(acc, prod, xs)
						if !slices.EqualFunc(got, want, func(a, b float64) bool { return math.Float64bits(a) == math.Float64bits(b) }) {
							t.Errorf("%v: enumerated %v, every tree gives %v", xs, got, want)
						}
					}
				})
			}
		}
	}
}

// bruteTrees returns the sorted distinct keys (enumKey) of every labelled
// binary tree over xs, built by merging every pair of the remaining items.
func bruteTrees(acc scatter.DType, prod bool, xs []float64) []float64 {
	seen := map[uint64]bool{}
	var rec func(items []float64)
	rec = func(items []float64) {
		if len(items) == 1 {
			seen[enumKey(items[0], !prod)] = true
			return
		}
		for i := range items {
			for j := i + 1; j < len(items); j++ {
				v := roundToDT(acc, items[i]+items[j])
				if prod {
					v = roundToDT(acc, items[i]*items[j])
				}
				rest := []float64{v}
				for l, x := range items {
					if l != i && l != j {
						rest = append(rest, x)
					}
				}
				rec(rest)
			}
		}
	}
	rec(xs)
	var keys []uint64
	for key := range seen {
		keys = append(keys, key)
	}
	slices.Sort(keys)
	out := make([]float64, len(keys))
	for i, key := range keys {
		out[i] = math.Float64frombits(key)
	}
	return out
}
