package spec

import (
	"fmt"
	"math"

	"github.com/scatterconf/scatter"
)

// identityCases returns cases where a reduction without self must not show
// the identity it starts from: scatter_reduce and index_reduce amax and amin
// with include_self=False over a group of contributions at the far end of
// the dtype's range, -inf for amax and +inf for amin in the float dtypes
// (a finite identity, the dtype's lowest or max, would win), lowest and max
// in the integer ones; the untouched element keeps self. The truth is the
// definition: the extreme of the contributions alone.
func identityCases() []Case {
	var cs []Case
	const source = "the definition (include_self=False: the extreme of the contributions alone; SEMANTICS.md §5, §6): a group of the dtype's far end gives that end, not a finite identity"
	for _, op := range []scatter.Op{scatter.OpScatterReduce, scatter.OpIndexReduce} {
		for _, dt := range []scatter.DType{scatter.DTFloat32, scatter.DTFloat16, scatter.DTBFloat16, scatter.DTFloat64, scatter.DTInt8, scatter.DTUint8, scatter.DTInt64} {
			for _, r := range []scatter.Reduce{scatter.ReduceAmax, scatter.ReduceAmin} {
				end := math.Inf(-1)
				if r == scatter.ReduceAmin {
					end = math.Inf(1)
				}
				if !dt.IsFloat() {
					lo, hi := dt.IntRange()
					end = float64(lo)
					if r == scatter.ReduceAmin {
						end = float64(hi)
					}
				}
				self := full(dt, 5, 2)
				src := full(dt, end, 2)
				want := full(dt, 5, 2)
				setAt(want, 1, end)
				index := i64(1, 1)
				var call scatter.Call = scatter.ScatterReduce{Self: self, Index: index, Src: src, Reduce: r, ExcludeSelf: true}
				if op == scatter.OpIndexReduce {
					call = scatter.IndexReduce{Self: self, Index: index, Source: src, Reduce: r, ExcludeSelf: true}
				}
				cs = append(cs, Case{
					Name:   fmt.Sprintf("%s/%s/%v/include_self=false/identity-unseen/%v", op, r, dt, end),
					Labels: []string{string(op), dt.String(), string(r), "include_self", "identity"},
					Source: source,
					Call:   call,
					Want:   want,
				})
			}
		}
	}
	return cs
}
