package scatter

import "slices"

// CloneTensor returns a deep copy of t: the same shape, strides and offset,
// and the whole of its data (guard elements beyond the view included) in
// memory of its own. The zero Tensor stays the zero Tensor.
func CloneTensor(t Tensor) Tensor {
	return Tensor{Shape: slices.Clone(t.Shape), Strides: slices.Clone(t.Strides), Offset: t.Offset, Data: cloneData(t.Data)}
}

// cloneData copies an element slice; anything else is returned as it is.
func cloneData(data any) any {
	switch d := data.(type) {
	case []bool:
		return slices.Clone(d)
	case []uint8:
		return slices.Clone(d)
	case []int8:
		return slices.Clone(d)
	case []int16:
		return slices.Clone(d)
	case []int32:
		return slices.Clone(d)
	case []int64:
		return slices.Clone(d)
	case []Float16:
		return slices.Clone(d)
	case []BFloat16:
		return slices.Clone(d)
	case []float32:
		return slices.Clone(d)
	case []float64:
		return slices.Clone(d)
	}
	return data
}

func cloneTensors(ts []Tensor) []Tensor {
	if ts == nil {
		return nil
	}
	out := make([]Tensor, len(ts))
	for i, t := range ts {
		out[i] = CloneTensor(t)
	}
	return out
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	v := *p
	return &v
}

// CloneCall returns a deep copy of c: every tensor (CloneTensor) and every
// optional argument in memory of its own, so that a backend that writes to
// its inputs can be caught by comparing the copy afterwards. Tensors that
// shared memory in c no longer do in the copy.
func CloneCall(c Call) Call {
	switch c := c.(type) {
	case Scatter:
		c.Self, c.Index, c.Src, c.Value = CloneTensor(c.Self), CloneTensor(c.Index), CloneTensor(c.Src), clonePtr(c.Value)
		return c
	case ScatterAdd:
		c.Self, c.Index, c.Src = CloneTensor(c.Self), CloneTensor(c.Index), CloneTensor(c.Src)
		return c
	case ScatterReduce:
		c.Self, c.Index, c.Src = CloneTensor(c.Self), CloneTensor(c.Index), CloneTensor(c.Src)
		return c
	case IndexReduce:
		c.Self, c.Index, c.Source = CloneTensor(c.Self), CloneTensor(c.Index), CloneTensor(c.Source)
		return c
	case Gather:
		c.Input, c.Index = CloneTensor(c.Input), CloneTensor(c.Index)
		return c
	case TorchScatterAdd:
		c.Src, c.Index, c.Out = CloneTensor(c.Src), CloneTensor(c.Index), CloneTensor(c.Out)
		c.Dim, c.DimSize = clonePtr(c.Dim), clonePtr(c.DimSize)
		return c
	case TorchScatter:
		c.Src, c.Index, c.Out = CloneTensor(c.Src), CloneTensor(c.Index), CloneTensor(c.Out)
		c.Dim, c.DimSize = clonePtr(c.Dim), clonePtr(c.DimSize)
		return c
	case TensorScatter:
		c.Indices, c.Src, c.Shape = cloneTensors(c.Indices), CloneTensor(c.Src), slices.Clone(c.Shape)
		return c
	case TensorGather:
		c.Indices, c.Src = cloneTensors(c.Indices), CloneTensor(c.Src)
		return c
	}
	return c
}
