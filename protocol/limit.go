package protocol

import (
	"encoding/base64"

	"github.com/scatterconf/scatter"
)

// How long an answer line may legitimately be. The Client reads no more
// than that of an answer: past it, the answer is garbage and the process
// is ended, so that an implementation that writes without end (or a
// result far larger than the call's) cannot make the Client hold more
// than the answer could have needed.

const (
	// helloMaxLine bounds the answer to hello: a name, a version, the
	// operations and dtypes claimed, and extensions.
	helloMaxLine = 64 << 10
	// answerSlack is room in every answer for what is not tensor data:
	// the id, the fields' names, a shape, an error's message.
	answerSlack = 64 << 10
	// maxElemBytes is the widest dtype's element size: an answer of the
	// wrong dtype is the judge's to reject (a mismatch), not the reader's.
	maxElemBytes = 8
)

// AnswerLimit is the longest answer line a call can legitimately get: its
// out (and, for torch_scatter min and max, arg), whatever the dtype, as
// base64, and the slack; within the Limits' line limit.
func (l Limits) AnswerLimit(c scatter.Call) int {
	n := int64(ResultElements(c))
	tensor := int64(base64.StdEncoding.EncodedLen(0))
	if n > 0 && n < int64(l.maxLine()) {
		tensor = int64(base64.StdEncoding.EncodedLen(int(n) * maxElemBytes))
	} else if n > 0 {
		tensor = int64(l.maxLine())
	}
	limit := answerSlack + 2*tensor // out and arg
	if limit > int64(l.maxLine()) {
		return l.maxLine()
	}
	return int(limit)
}

// benchLimit is the longest answer line to a bench request of repeat
// runs: one time each.
func benchLimit(repeat int) int {
	return answerSlack + 32*max(repeat, 0)
}

// ResultElements returns an upper bound of the number of elements of the
// call's result, whatever it is (0 for a call that cannot have one); it
// reads no more than the call's index storage (torch_scatter without
// dim_size: its largest value), and allocates nothing of the result's size.
func ResultElements(c scatter.Call) int {
	switch c := c.(type) {
	case scatter.Scatter:
		return c.Self.NumEl()
	case scatter.ScatterAdd:
		return c.Self.NumEl()
	case scatter.ScatterReduce:
		return c.Self.NumEl()
	case scatter.IndexReduce:
		return c.Self.NumEl()
	case scatter.Gather:
		return c.Index.NumEl()
	case scatter.TorchScatterAdd:
		return tsElements(c.Src, c.Index, c.Dim, c.Out, c.DimSize)
	case scatter.TorchScatter:
		return tsElements(c.Src, c.Index, c.Dim, c.Out, c.DimSize)
	case scatter.TensorScatter:
		n, err := scatter.NumElements(c.Shape)
		if err != nil {
			return 0
		}
		return n
	case scatter.TensorGather:
		shapes := [][]int{c.Src.Shape}
		for _, t := range c.Indices {
			shapes = append(shapes, t.Shape)
		}
		return broadcastBound(shapes)
	}
	return 0
}

// tsElements bounds torch_scatter's result: out's elements when given,
// else src's shape with dim's size replaced by dim_size or the largest
// index plus one.
func tsElements(src, index scatter.Tensor, dimp *int, out scatter.Tensor, dimSize *int) int {
	if !out.IsZero() {
		return out.NumEl()
	}
	dim := -1
	if dimp != nil {
		dim = *dimp
	}
	if dim < 0 {
		dim += len(src.Shape)
	}
	if dim < 0 || dim >= len(src.Shape) {
		return src.NumEl()
	}
	size := 0
	if dimSize != nil {
		size = *dimSize
	} else if index.Validate() == nil {
		for _, v := range indexValues(index) {
			if v >= int64(size) {
				size = int(min(v, 1<<40)) + 1
			}
		}
	}
	n := max(size, 0)
	for d, s := range src.Shape {
		if d != dim {
			if s > 0 && n > (1<<62)/s {
				return 1 << 62
			}
			n *= s
		}
	}
	return n
}

// indexValues returns the values of an integer tensor's storage (each
// element of a view counted once however often the view repeats it).
func indexValues(t scatter.Tensor) []int64 {
	var out []int64
	switch d := t.Data.(type) {
	case []int64:
		out = d
	case []int32:
		out = make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
	case []int16:
		out = make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
	case []uint8:
		out = make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
	case []int8:
		out = make([]int64, len(d))
		for i, v := range d {
			out[i] = int64(v)
		}
	}
	return out
}

// broadcastBound bounds the elements of any broadcast of the shapes: the
// product, aligned at the right, of each dimension's largest size.
func broadcastBound(shapes [][]int) int {
	rank := 0
	for _, s := range shapes {
		rank = max(rank, len(s))
	}
	n := 1
	for k := 1; k <= rank; k++ {
		size := 0
		for _, s := range shapes {
			if len(s) >= k {
				size = max(size, s[len(s)-k])
			}
		}
		if size > 0 && n > (1<<62)/size {
			return 1 << 62
		}
		n *= size
	}
	return n
}
