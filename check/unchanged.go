package check

import (
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/scatterconf/scatter"
)

// maxShown is how many changed elements a report shows.
const maxShown = 10

// ModifiedError reports what a backend changed in the call it was given:
// one line per tensor (by name, in PyTorch's parameter order) or for the
// other arguments.
type ModifiedError struct {
	Changes []string
}

func (e *ModifiedError) Error() string { return strings.Join(e.Changes, "\n") }

// Unchanged returns nil when after, the call a backend was given, is what
// before (a deep copy taken before the run) was: every tensor's shape,
// strides, offset and every bit of its backing slice (guard elements and
// NaN payloads included), and every other argument. Otherwise it returns
// a *ModifiedError saying what changed.
func Unchanged(before, after scatter.Call) error {
	var out []string
	if a, b := describeArgs(before), describeArgs(after); a != b {
		out = append(out, fmt.Sprintf("arguments: before %s, after %s", a, b))
	}
	bt, at := before.Tensors(), after.Tensors()
	for _, name := range sortedNames(bt, at) {
		if d := diffTensorBits(bt[name], at[name]); d != "" {
			out = append(out, name+": "+d)
		}
	}
	if len(out) == 0 {
		return nil
	}
	return &ModifiedError{Changes: out}
}

// sortedNames returns the tensor names of the maps in PyTorch's parameter
// order: self or input, src or source, index, out, then the F# indices.
func sortedNames(ms ...map[string]scatter.Tensor) []string {
	var names []string
	for _, m := range ms {
		for k := range m {
			if !slices.Contains(names, k) {
				names = append(names, k)
			}
		}
	}
	order := []string{"self", "input", "src", "source", "index", "out"}
	rank := func(n string) int {
		if i := slices.Index(order, n); i >= 0 {
			return i
		}
		return len(order)
	}
	sort.Slice(names, func(i, j int) bool {
		ri, rj := rank(names[i]), rank(names[j])
		if ri != rj {
			return ri < rj
		}
		return names[i] < names[j]
	})
	return names
}

// diffTensorBits compares two tensors' layouts and whole backing slices bit
// for bit.
func diffTensorBits(before, after scatter.Tensor) string {
	switch {
	case before.IsZero() && after.IsZero():
		return ""
	case before.IsZero() || after.IsZero():
		return "a tensor appeared or disappeared"
	case !slices.Equal(before.Shape, after.Shape):
		return fmt.Sprintf("shape changed from %v to %v", before.Shape, after.Shape)
	case !slices.Equal(before.Strides, after.Strides):
		return fmt.Sprintf("strides changed from %v to %v", before.Strides, after.Strides)
	case before.Offset != after.Offset:
		return fmt.Sprintf("offset changed from %d to %d", before.Offset, after.Offset)
	case before.DType() != after.DType():
		return fmt.Sprintf("dtype changed from %v to %v", before.DType(), after.DType())
	}
	nb, na := scatter.DataLen(before.Data), scatter.DataLen(after.Data)
	if nb != na {
		return fmt.Sprintf("backing slice length changed from %d to %d", nb, na)
	}
	var shown []int // the first maxShown changed elements
	count := 0
	for i := 0; i < nb; i++ {
		if scatter.BitsAt(before.Data, i) == scatter.BitsAt(after.Data, i) {
			continue
		}
		count++
		if len(shown) < maxShown {
			shown = append(shown, i)
		}
	}
	if count == 0 {
		return ""
	}
	// Which of them the view holds: asked only once something changed
	// (a set of a large tensor's positions costs more than the comparison).
	inView := make([]bool, nb)
	if after.Validate() == nil {
		for _, p := range after.Positions() {
			inView[p] = true
		}
	}
	bad := make([]string, len(shown))
	for k, i := range shown {
		where := "guard element"
		if inView[i] {
			where = "element"
		}
		bad[k] = fmt.Sprintf("%s at data[%d]: %s became %s", where, i,
			scatter.FormatAt(before.Data, i), scatter.FormatAt(after.Data, i))
	}
	return fmt.Sprintf("%d backing elements changed: %s", count, strings.Join(bad, "; "))
}

// describeArgs writes the non-tensor arguments of a call.
func describeArgs(c scatter.Call) string {
	var a []string
	add := func(format string, args ...any) { a = append(a, fmt.Sprintf(format, args...)) }
	optInt := func(name string, p *int) {
		if p != nil {
			add("%s=%d", name, *p)
		}
	}
	reduce := func(r scatter.Reduce) {
		if r != scatter.ReduceNone {
			add("reduce=%q", string(r))
		}
	}
	includeSelf := func(exclude bool) {
		if exclude {
			add("include_self=False")
		}
	}
	switch c := c.(type) {
	case scatter.Scatter:
		add("dim=%d", c.Dim)
		if c.Value != nil {
			add("value=%s", c.Value)
		}
		reduce(c.Reduce)
	case scatter.ScatterAdd:
		add("dim=%d", c.Dim)
	case scatter.ScatterReduce:
		add("dim=%d", c.Dim)
		add("reduce=%q", string(c.Reduce))
		includeSelf(c.ExcludeSelf)
	case scatter.IndexReduce:
		add("dim=%d", c.Dim)
		add("reduce=%q", string(c.Reduce))
		includeSelf(c.ExcludeSelf)
	case scatter.Gather:
		add("dim=%d", c.Dim)
	case scatter.TorchScatterAdd:
		optInt("dim", c.Dim)
		optInt("dim_size", c.DimSize)
		add("fill_value=%s", c.FillValue)
	case scatter.TorchScatter:
		optInt("dim", c.Dim)
		optInt("dim_size", c.DimSize)
		reduce(c.Reduce)
	case scatter.TensorScatter:
		add("shape=%v", c.Shape)
		add("indices=%s", describeIndices(c.Indices))
	case scatter.TensorGather:
		add("indices=%s", describeIndices(c.Indices))
	}
	return strings.Join(a, ", ")
}

// describeIndices writes an F# index list as Some/None by position.
func describeIndices(idx []scatter.Tensor) string {
	s := make([]string, len(idx))
	for k, t := range idx {
		if t.IsZero() {
			s[k] = "None"
		} else {
			s[k] = "Some"
		}
	}
	return "[" + strings.Join(s, "; ") + "]"
}
