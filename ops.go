package scatter

// Op names an operation as the line protocol does.
type Op string

// The operations of the suite.
const (
	OpScatter         Op = "scatter"                   // torch.Tensor.scatter_
	OpScatterAdd      Op = "scatter_add"               // torch.Tensor.scatter_add_
	OpScatterReduce   Op = "scatter_reduce"            // torch.Tensor.scatter_reduce_
	OpIndexReduce     Op = "index_reduce"              // torch.Tensor.index_reduce_
	OpGather          Op = "gather"                    // torch.gather
	OpTorchScatterAdd Op = "torch_scatter.scatter_add" // torch_scatter 1.x scatter_add, with fill_value
	OpTorchScatter    Op = "torch_scatter.scatter"     // torch_scatter 2.x scatter
	OpTensorScatter   Op = "tensor.scatter"            // the F# Tensor library's Tensor.scatter
	OpTensorGather    Op = "tensor.gather"             // the F# Tensor library's Tensor.gather
)

// Ops lists every operation in the protocol's order.
var Ops = []Op{OpScatter, OpScatterAdd, OpScatterReduce, OpIndexReduce, OpGather,
	OpTorchScatterAdd, OpTorchScatter, OpTensorScatter, OpTensorGather}

// Reduce names a reduction as PyTorch spells it. Which names an operation
// takes depends on the operation; any other is ErrInvalidArgument.
type Reduce string

// The reductions. scatter takes ReduceNone, ReduceAdd and ReduceMultiply;
// scatter_reduce takes sum, prod, mean, amax and amin, and under the
// torch-2 and torch-2.6 profiles also max and min as amax and amin
// (Profile.ReduceAliases: PyTorch 2 takes them; 1.13 raises); index_reduce takes
// prod, mean, amax and amin; torch_scatter.scatter takes sum (also spelled
// add), mul, mean, min and max, with ReduceNone meaning sum.
const (
	ReduceNone     Reduce = ""
	ReduceAdd      Reduce = "add"
	ReduceMultiply Reduce = "multiply"
	ReduceSum      Reduce = "sum"
	ReduceProd     Reduce = "prod"
	ReduceMean     Reduce = "mean"
	ReduceAmax     Reduce = "amax"
	ReduceAmin     Reduce = "amin"
	ReduceMul      Reduce = "mul"
	ReduceMin      Reduce = "min"
	ReduceMax      Reduce = "max"
	// ReduceEmpty is reduce='' given explicitly: not a reduction of any
	// operation (PyTorch raises), unlike ReduceNone, the argument left
	// out. The protocol's "reduce": "" is ReduceEmpty.
	ReduceEmpty Reduce = "''"
)

// Name returns the string PyTorch is given for r: "" for ReduceEmpty,
// the name itself otherwise (ReduceNone, which means no argument, is ""
// too).
func (r Reduce) Name() string {
	if r == ReduceEmpty {
		return ""
	}
	return string(r)
}

// Call is the arguments of one operation: one of the argument structs of
// this package. Every operation is out of place: its Result is what the
// PyTorch call returns, which for an in-place method (scatter_,
// scatter_reduce_, index_reduce_) is what it leaves in self.
type Call interface {
	Op() Op
	// Tensors returns the call's tensors by their PyTorch parameter names,
	// the absent optional ones left out; F# indices are "indices[k]".
	Tensors() map[string]Tensor
	isCall()
}

// Scatter is torch.Tensor.scatter_(dim, index, src) or
// scatter_(dim, index, value), with the optional deprecated reduce:
//
//	self[t(p)] = src[p]            (Reduce "")
//	self[t(p)] += src[p]           (Reduce "add")
//	self[t(p)] *= src[p]           (Reduce "multiply")
//	t(p) = p with t[dim] = index[p], for every position p of index
//
// Exactly one of Src and Value is given; Value is converted to self's dtype
// first (a float truncated toward zero into an integer dtype).
type Scatter struct {
	Self   Tensor
	Dim    int
	Index  Tensor
	Src    Tensor  // the zero Tensor when Value is used
	Value  *Scalar // nil when Src is used
	Reduce Reduce  // ReduceNone, ReduceAdd or ReduceMultiply
}

// ScatterAdd is torch.Tensor.scatter_add_(dim, index, src):
//
//	self[t(p)] += src[p]
type ScatterAdd struct {
	Self  Tensor
	Dim   int
	Index Tensor
	Src   Tensor
}

// ScatterReduce is torch.Tensor.scatter_reduce_(dim, index, src, reduce,
// include_self=not ExcludeSelf):
//
//	out[t] = reduce({self[t]} if include_self, src[p] for every p with t(p) = t)
//	mean:  out[t] = sum / count, count = include_self + #contributions (in out's dtype),
//	       floor division for integers; untouched positions keep self
type ScatterReduce struct {
	Self        Tensor
	Dim         int
	Index       Tensor
	Src         Tensor
	Reduce      Reduce // sum, prod, mean, amax or amin (required); max and min as amax and amin (Profile.ReduceAliases)
	ExcludeSelf bool   // include_self=False
}

// IndexReduce is torch.Tensor.index_reduce_(dim, index, source, reduce,
// include_self=not ExcludeSelf):
//
//	out.select(dim, index[i]) = reduce(..., source.select(dim, i))
//
// with the identities and mean rule of ScatterReduce; the index is a vector
// of int32 or int64.
type IndexReduce struct {
	Self        Tensor
	Dim         int
	Index       Tensor
	Source      Tensor
	Reduce      Reduce // prod, mean, amax or amin (required)
	ExcludeSelf bool   // include_self=False
}

// Gather is torch.gather(input, dim, index):
//
//	out[p] = input[p with p[dim] = index[p]],  out.shape = index.shape
type Gather struct {
	Input Tensor
	Dim   int
	Index Tensor
}

// TorchScatterAdd is torch_scatter 1.x's scatter_add(src, index, dim=-1,
// out=None, dim_size=None, fill_value=0): src and index broadcast against
// each other, then
//
//	out = full(size, fill_value) (if Out is absent); out.scatter_add_(dim, index, src)
//
// so untouched elements equal fill_value and touched ones fill_value + sum.
type TorchScatterAdd struct {
	Src       Tensor
	Index     Tensor
	Dim       *int   // nil: -1
	Out       Tensor // the zero Tensor: allocate
	DimSize   *int   // nil: index.max()+1
	FillValue Scalar // the zero Scalar is the int 0
}

// TorchScatter is torch_scatter 2.x's scatter(src, index, dim=-1, out=None,
// dim_size=None, reduce='sum'): the index broadcasts to src's shape, then
//
//	sum/add: out = zeros + sum;  mul: out = ones * prod
//	mean: (out + sum) / count    (out's own values are not counted)
//	min/max: the extreme, 0 where no element went; Arg holds its position along dim
type TorchScatter struct {
	Src     Tensor
	Index   Tensor
	Dim     *int   // nil: -1
	Out     Tensor // the zero Tensor: allocate
	DimSize *int   // nil: index.max()+1
	Reduce  Reduce // ReduceNone means sum
}

// TensorScatter is the F# Tensor library's Tensor.scatter indices shape src
// (and FillScatter, which zero-fills its target first, so it is the same
// call with the target's shape):
//
//	trgt = zeros(shape);  trgt[j(p)] += src[p] for every position p of src
//	j(p)[k] = indices[k][p] (broadcast to src's shape), or p[k] where indices[k] is None
type TensorScatter struct {
	Indices []Tensor // one per target dimension; the zero Tensor is None
	Shape   []int
	Src     Tensor
}

// TensorGather is the F# Tensor library's Tensor.gather indices src:
//
//	trgt[i] = src[j(i)],  j(i)[k] = indices[k][i] or i[k] where None;
//	trgt's shape is the common broadcast shape of the given indices
type TensorGather struct {
	Indices []Tensor // one per source dimension; the zero Tensor is None
	Src     Tensor
}

func (Scatter) Op() Op         { return OpScatter }
func (ScatterAdd) Op() Op      { return OpScatterAdd }
func (ScatterReduce) Op() Op   { return OpScatterReduce }
func (IndexReduce) Op() Op     { return OpIndexReduce }
func (Gather) Op() Op          { return OpGather }
func (TorchScatterAdd) Op() Op { return OpTorchScatterAdd }
func (TorchScatter) Op() Op    { return OpTorchScatter }
func (TensorScatter) Op() Op   { return OpTensorScatter }
func (TensorGather) Op() Op    { return OpTensorGather }

func (Scatter) isCall()         {}
func (ScatterAdd) isCall()      {}
func (ScatterReduce) isCall()   {}
func (IndexReduce) isCall()     {}
func (Gather) isCall()          {}
func (TorchScatterAdd) isCall() {}
func (TorchScatter) isCall()    {}
func (TensorScatter) isCall()   {}
func (TensorGather) isCall()    {}

// named collects the tensors that are present.
func named(kv ...any) map[string]Tensor {
	m := map[string]Tensor{}
	for i := 0; i < len(kv); i += 2 {
		if t := kv[i+1].(Tensor); !t.IsZero() {
			m[kv[i].(string)] = t
		}
	}
	return m
}

func (c Scatter) Tensors() map[string]Tensor {
	return named("self", c.Self, "index", c.Index, "src", c.Src)
}
func (c ScatterAdd) Tensors() map[string]Tensor {
	return named("self", c.Self, "index", c.Index, "src", c.Src)
}
func (c ScatterReduce) Tensors() map[string]Tensor {
	return named("self", c.Self, "index", c.Index, "src", c.Src)
}
func (c IndexReduce) Tensors() map[string]Tensor {
	return named("self", c.Self, "index", c.Index, "source", c.Source)
}
func (c Gather) Tensors() map[string]Tensor { return named("input", c.Input, "index", c.Index) }
func (c TorchScatterAdd) Tensors() map[string]Tensor {
	return named("src", c.Src, "index", c.Index, "out", c.Out)
}
func (c TorchScatter) Tensors() map[string]Tensor {
	return named("src", c.Src, "index", c.Index, "out", c.Out)
}
func (c TensorScatter) Tensors() map[string]Tensor {
	m := named("src", c.Src)
	addIndices(m, c.Indices)
	return m
}
func (c TensorGather) Tensors() map[string]Tensor {
	m := named("src", c.Src)
	addIndices(m, c.Indices)
	return m
}

func addIndices(m map[string]Tensor, idx []Tensor) {
	for k, t := range idx {
		if !t.IsZero() {
			m["indices["+itoa(k)+"]"] = t
		}
	}
}

func itoa(k int) string {
	if k < 10 {
		return string(rune('0' + k))
	}
	return itoa(k/10) + itoa(k%10)
}

// DimOr returns *d, or def if d is nil.
func DimOr(d *int, def int) int {
	if d == nil {
		return def
	}
	return *d
}

// Ptr returns a pointer to v, for the optional fields (Dim, DimSize, Value).
func Ptr[T any](v T) *T { return &v }
