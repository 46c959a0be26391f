package protocol

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"

	"github.com/scatterconf/scatter"
)

// Version is the protocol version this package speaks.
const Version = 1

// The requests that are not operations.
const (
	OpHello = "hello" // the handshake: {"id":0,"op":"hello","protocol":1}
	OpBench = "bench" // the optional timing request
)

// Request is the wire form of one request: a hello, a bench or an
// operation. Field names are PyTorch's parameter names; a field left out
// (nil) takes PyTorch's default. Fields that the request's op does not take
// are ignored, as are unknown fields.
type Request struct {
	ID int64  `json:"id"`
	Op string `json:"op"`

	Protocol *int     `json:"protocol,omitempty"` // hello
	Repeat   *int     `json:"repeat,omitempty"`   // bench
	Call     *Request `json:"call,omitempty"`     // bench: the operation to time (its id is ignored)

	Self        *Tensor   `json:"self,omitempty"`
	Input       *Tensor   `json:"input,omitempty"`
	Dim         *int      `json:"dim,omitempty"`
	Index       *Tensor   `json:"index,omitempty"`
	Src         *Tensor   `json:"src,omitempty"`
	Source      *Tensor   `json:"source,omitempty"`
	Value       *Scalar   `json:"value,omitempty"`
	Reduce      *string   `json:"reduce,omitempty"`
	IncludeSelf *bool     `json:"include_self,omitempty"`
	Out         *Tensor   `json:"out,omitempty"`
	DimSize     *int      `json:"dim_size,omitempty"`
	FillValue   *Scalar   `json:"fill_value,omitempty"`
	Indices     []*Tensor `json:"indices,omitzero"` // nil: absent; a nil element is JSON null (None)
	Shape       []int     `json:"shape,omitzero"`   // nil: absent; [] is a 0-d shape
}

// IsCall reports whether the request names one of scatter.Ops.
func (r *Request) IsCall() bool {
	for _, op := range scatter.Ops {
		if r.Op == string(op) {
			return true
		}
	}
	return false
}

// DecodeRequest parses one request line under the default Limits.
func DecodeRequest(line []byte) (Request, error) { return Limits{}.DecodeRequest(line) }

// DecodeRequest parses one request line: a JSON object with an integer id
// and a string op. Its tensors are checked only by ToCall. A line that is
// too long or not such an object is an *scatter.Error with code
// ErrInvalidArgument; the Request then holds whatever id could be read.
func (l Limits) DecodeRequest(line []byte) (Request, error) {
	var r Request
	if len(line) > l.maxLine() {
		return r, scatter.Errorf(scatter.ErrInvalidArgument, "request line of %d bytes is longer than the limit %d", len(line), l.maxLine())
	}
	in := requestIn{Request: &r}
	if err := json.Unmarshal(line, &in); err != nil {
		return Request{ID: leadingID(line)}, scatter.Errorf(scatter.ErrInvalidArgument, "malformed request: %v", err)
	}
	if in.ID == nil {
		return r, scatter.Errorf(scatter.ErrInvalidArgument, "request has no id")
	}
	r.ID = *in.ID
	if r.Op == "" {
		return r, scatter.Errorf(scatter.ErrInvalidArgument, "request %d has no op", r.ID)
	}
	return r, nil
}

// DecodeCall parses one operation request under the default Limits.
func DecodeCall(line []byte) (id int64, c scatter.Call, err error) {
	return Limits{}.DecodeCall(line)
}

// DecodeCall parses one operation request line into its call. Anything
// malformed, an op that is not one of scatter.Ops (hello and bench
// included) and a missing required field are each an *scatter.Error with
// code ErrInvalidArgument; id is then whatever id could be read.
func (l Limits) DecodeCall(line []byte) (id int64, c scatter.Call, err error) {
	r, err := l.DecodeRequest(line)
	if err != nil {
		return r.ID, nil, err
	}
	c, err = l.ToCall(&r)
	return r.ID, c, err
}

// ToCall returns the call that r stands for, under the default Limits.
func (r *Request) ToCall() (scatter.Call, error) { return Limits{}.ToCall(r) }

// ToCall returns the call that r stands for, mapped to the scatter argument
// structs: include_self false is ExcludeSelf, an absent dim of a
// torch_scatter op is nil (-1), an absent fill_value is the int 0. An op
// that is not an operation, a missing required field (self, dim, index,
// src, reduce, ...; scatter needs exactly one of src and value) and a
// malformed tensor or one over the limits are each an *scatter.Error with
// code ErrInvalidArgument.
func (l Limits) ToCall(r *Request) (scatter.Call, error) {
	d := callDecoder{b: l.budget(), r: r}
	c := d.call()
	if d.err != nil {
		return nil, d.err
	}
	return c, nil
}

// callDecoder decodes the fields of one request, keeping the first error.
type callDecoder struct {
	b   *budget
	r   *Request
	err error
}

func (d *callDecoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", d.r.Op, fmt.Sprintf(format, args...))
	}
}

// tensor decodes a tensor field; a missing one is the zero Tensor, an error
// if required.
func (d *callDecoder) tensor(name string, w *Tensor, required bool) scatter.Tensor {
	if d.err != nil {
		return scatter.Tensor{}
	}
	if w == nil {
		if required {
			d.fail("missing %s", name)
		}
		return scatter.Tensor{}
	}
	t, err := d.b.tensor(*w, name)
	if err != nil {
		d.err = scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", d.r.Op, msgOf(err))
	}
	return t
}

func (d *callDecoder) dim() int {
	if d.r.Dim == nil {
		d.fail("missing dim")
		return 0
	}
	return *d.r.Dim
}

func (d *callDecoder) reduce(required bool) scatter.Reduce {
	if d.r.Reduce == nil {
		if required {
			d.fail("missing reduce")
		}
		return scatter.ReduceNone
	}
	if *d.r.Reduce == "" {
		return scatter.ReduceEmpty // given, and empty: not the default
	}
	return scatter.Reduce(*d.r.Reduce)
}

func (d *callDecoder) excludeSelf() bool { return d.r.IncludeSelf != nil && !*d.r.IncludeSelf }

func (d *callDecoder) indices() []scatter.Tensor {
	if d.r.Indices == nil {
		d.fail("missing indices")
		return nil
	}
	idx := make([]scatter.Tensor, len(d.r.Indices))
	for k, w := range d.r.Indices {
		if w != nil {
			idx[k] = d.tensor(fmt.Sprintf("indices[%d]", k), w, true)
		}
	}
	return idx
}

func optInt(p *int) *int {
	if p == nil {
		return nil
	}
	return scatter.Ptr(*p)
}

func (d *callDecoder) call() scatter.Call {
	r := d.r
	switch scatter.Op(r.Op) {
	case scatter.OpScatter:
		c := scatter.Scatter{
			Self:   d.tensor("self", r.Self, true),
			Dim:    d.dim(),
			Index:  d.tensor("index", r.Index, true),
			Src:    d.tensor("src", r.Src, false),
			Reduce: d.reduce(false),
		}
		if r.Value != nil {
			c.Value = scatter.Ptr(scatter.Scalar(*r.Value))
		}
		if (r.Src == nil) == (r.Value == nil) {
			d.fail("needs exactly one of src and value")
		}
		return c
	case scatter.OpScatterAdd:
		return scatter.ScatterAdd{
			Self:  d.tensor("self", r.Self, true),
			Dim:   d.dim(),
			Index: d.tensor("index", r.Index, true),
			Src:   d.tensor("src", r.Src, true),
		}
	case scatter.OpScatterReduce:
		return scatter.ScatterReduce{
			Self:        d.tensor("self", r.Self, true),
			Dim:         d.dim(),
			Index:       d.tensor("index", r.Index, true),
			Src:         d.tensor("src", r.Src, true),
			Reduce:      d.reduce(true),
			ExcludeSelf: d.excludeSelf(),
		}
	case scatter.OpIndexReduce:
		return scatter.IndexReduce{
			Self:        d.tensor("self", r.Self, true),
			Dim:         d.dim(),
			Index:       d.tensor("index", r.Index, true),
			Source:      d.tensor("source", r.Source, true),
			Reduce:      d.reduce(true),
			ExcludeSelf: d.excludeSelf(),
		}
	case scatter.OpGather:
		return scatter.Gather{
			Input: d.tensor("input", r.Input, true),
			Dim:   d.dim(),
			Index: d.tensor("index", r.Index, true),
		}
	case scatter.OpTorchScatterAdd:
		c := scatter.TorchScatterAdd{
			Src:     d.tensor("src", r.Src, true),
			Index:   d.tensor("index", r.Index, true),
			Dim:     optInt(r.Dim),
			Out:     d.tensor("out", r.Out, false),
			DimSize: optInt(r.DimSize),
		}
		if r.FillValue != nil {
			c.FillValue = scatter.Scalar(*r.FillValue)
		}
		return c
	case scatter.OpTorchScatter:
		return scatter.TorchScatter{
			Src:     d.tensor("src", r.Src, true),
			Index:   d.tensor("index", r.Index, true),
			Dim:     optInt(r.Dim),
			Out:     d.tensor("out", r.Out, false),
			DimSize: optInt(r.DimSize),
			Reduce:  d.reduce(false),
		}
	case scatter.OpTensorScatter:
		c := scatter.TensorScatter{
			Indices: d.indices(),
			Src:     d.tensor("src", r.Src, true),
		}
		if r.Shape == nil {
			d.fail("missing shape")
		}
		c.Shape = append(make([]int, 0, len(r.Shape)), r.Shape...)
		return c
	case scatter.OpTensorGather:
		return scatter.TensorGather{
			Indices: d.indices(),
			Src:     d.tensor("src", r.Src, true),
		}
	}
	d.err = scatter.Errorf(scatter.ErrInvalidArgument, "op %q is not an operation", clip(r.Op))
	return nil
}

// NewRequest returns the request for call c with the given id, every
// tensor contiguous. A call with an invalid tensor, a missing required
// tensor or, for Scatter, not exactly one of Src and Value is an
// *scatter.Error with code ErrInvalidArgument: the protocol cannot
// express it.
func NewRequest(id int64, c scatter.Call) (Request, error) { return EncodeOptions{}.NewRequest(id, c) }

// NewRequest returns the request for call c with the given id, its
// tensors written as o says. See the package-level NewRequest for the
// calls it rejects.
func (o EncodeOptions) NewRequest(id int64, c scatter.Call) (Request, error) {
	e := callEncoder{r: Request{ID: id}, opts: o}
	if c == nil {
		return Request{}, scatter.Errorf(scatter.ErrInvalidArgument, "no call")
	}
	e.r.Op = string(c.Op())
	switch c := c.(type) {
	case scatter.Scatter:
		e.r.Self = e.tensor("self", c.Self, true)
		e.r.Dim = scatter.Ptr(c.Dim)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Src = e.tensor("src", c.Src, false)
		if c.Value != nil {
			e.r.Value = scatter.Ptr(Scalar(*c.Value))
		}
		if c.Src.IsZero() == (c.Value == nil) {
			e.fail("scatter needs exactly one of Src and Value")
		}
		e.r.Reduce = optReduce(c.Reduce)
	case scatter.ScatterAdd:
		e.r.Self = e.tensor("self", c.Self, true)
		e.r.Dim = scatter.Ptr(c.Dim)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Src = e.tensor("src", c.Src, true)
	case scatter.ScatterReduce:
		e.r.Self = e.tensor("self", c.Self, true)
		e.r.Dim = scatter.Ptr(c.Dim)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Src = e.tensor("src", c.Src, true)
		e.r.Reduce = scatter.Ptr(c.Reduce.Name())
		e.r.IncludeSelf = includeSelf(c.ExcludeSelf)
	case scatter.IndexReduce:
		e.r.Self = e.tensor("self", c.Self, true)
		e.r.Dim = scatter.Ptr(c.Dim)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Source = e.tensor("source", c.Source, true)
		e.r.Reduce = scatter.Ptr(c.Reduce.Name())
		e.r.IncludeSelf = includeSelf(c.ExcludeSelf)
	case scatter.Gather:
		e.r.Input = e.tensor("input", c.Input, true)
		e.r.Dim = scatter.Ptr(c.Dim)
		e.r.Index = e.tensor("index", c.Index, true)
	case scatter.TorchScatterAdd:
		e.r.Src = e.tensor("src", c.Src, true)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Dim = optInt(c.Dim)
		e.r.Out = e.tensor("out", c.Out, false)
		e.r.DimSize = optInt(c.DimSize)
		if c.FillValue != (scatter.Scalar{}) {
			e.r.FillValue = scatter.Ptr(Scalar(c.FillValue))
		}
	case scatter.TorchScatter:
		e.r.Src = e.tensor("src", c.Src, true)
		e.r.Index = e.tensor("index", c.Index, true)
		e.r.Dim = optInt(c.Dim)
		e.r.Out = e.tensor("out", c.Out, false)
		e.r.DimSize = optInt(c.DimSize)
		e.r.Reduce = optReduce(c.Reduce)
	case scatter.TensorScatter:
		e.r.Indices = e.indices(c.Indices)
		e.r.Shape = append(make([]int, 0, len(c.Shape)), c.Shape...)
		e.r.Src = e.tensor("src", c.Src, true)
	case scatter.TensorGather:
		e.r.Indices = e.indices(c.Indices)
		e.r.Src = e.tensor("src", c.Src, true)
	default:
		return Request{}, scatter.Errorf(scatter.ErrInvalidArgument, "unknown call type %T", c)
	}
	if e.err != nil {
		return Request{}, e.err
	}
	return e.r, nil
}

type callEncoder struct {
	r    Request
	opts EncodeOptions
	err  error
}

func (e *callEncoder) fail(format string, args ...any) {
	if e.err == nil {
		e.err = scatter.Errorf(scatter.ErrInvalidArgument, "%s: %s", e.r.Op, fmt.Sprintf(format, args...))
	}
}

func (e *callEncoder) tensor(name string, t scatter.Tensor, required bool) *Tensor {
	if t.IsZero() {
		if required {
			e.fail("missing %s", name)
		}
		return nil
	}
	w, err := e.opts.EncodeTensor(t)
	if err != nil {
		e.fail("%s: %s", name, msgOf(err))
		return nil
	}
	return &w
}

func (e *callEncoder) indices(idx []scatter.Tensor) []*Tensor {
	ws := make([]*Tensor, len(idx))
	for k, t := range idx {
		ws[k] = e.tensor(fmt.Sprintf("indices[%d]", k), t, false)
	}
	return ws
}

func optReduce(r scatter.Reduce) *string {
	if r == scatter.ReduceNone {
		return nil
	}
	return scatter.Ptr(r.Name())
}

func includeSelf(exclude bool) *bool {
	if exclude {
		return scatter.Ptr(false)
	}
	return nil
}

// EncodeRequest returns r as one line, without the newline.
func EncodeRequest(r Request) ([]byte, error) {
	if fast, ok := encodeSpliced(r); ok {
		return fast, nil
	}
	return encodeRequest(r)
}

// encodeRequest writes r with encoding/json alone.
func encodeRequest(r Request) ([]byte, error) {
	if r.Call != nil {
		// The timed call goes without its id.
		inner, err := marshal(callBody{Request: r.Call})
		if err != nil {
			return nil, err
		}
		outer := r
		outer.Call = nil
		b, err := marshal(outer)
		if err != nil {
			return nil, err
		}
		// b ends with '}': splice the call in before it.
		b = append(b[:len(b)-1], `,"call":`...)
		b = append(b, inner...)
		return append(b, '}'), nil
	}
	return marshal(r)
}

// dataKey is how a tensor's data begins in a line; with the data left
// empty the key is followed by the closing quote.
const dataKey = `"data":"`

// encodeSpliced writes r as encodeRequest does, but marshals it with
// every tensor's data left empty and splices the data in after: the data
// of a benchmark's call is hundreds of megabytes of base64, which
// encoding/json would scan and copy several times (base64 needs no
// escaping). ok is false for what it does not handle (a bench of a
// bench); encodeRequest then writes r.
func encodeSpliced(r Request) (line []byte, ok bool) {
	if r.Call != nil && r.Call.Call != nil {
		return nil, false
	}
	var datas []string
	outer := stripData(r, &datas) // its tensors come first: the call is spliced in at the end
	if r.Call != nil {
		inner := stripData(*r.Call, &datas)
		outer.Call = &inner
	}
	skel, err := encodeRequest(outer)
	if err != nil {
		return nil, false
	}
	total := len(skel)
	for _, d := range datas {
		total += len(d)
	}
	line = make([]byte, 0, total)
	rest := skel
	for _, d := range datas {
		i := bytes.Index(rest, []byte(dataKey+`"`))
		if i < 0 {
			return nil, false
		}
		line = append(line, rest[:i+len(dataKey)]...)
		if isBase64Text(d) {
			line = append(line, d...)
		} else {
			q, err := marshal(d)
			if err != nil {
				return nil, false
			}
			line = append(line, q[1:len(q)-1]...)
		}
		rest = rest[i+len(dataKey):]
	}
	if bytes.Contains(rest, []byte(dataKey+`"`)) {
		return nil, false // a tensor not stripped: cannot happen
	}
	return append(line, rest...), true
}

// stripData returns r with a copy of each tensor whose data is empty,
// appending the data to datas in the order encoding/json writes the
// tensors (the order of Request's fields).
func stripData(r Request, datas *[]string) Request {
	strip := func(t *Tensor) *Tensor {
		if t == nil {
			return nil
		}
		c := *t
		*datas = append(*datas, c.Data)
		c.Data = ""
		return &c
	}
	r.Self = strip(r.Self)
	r.Input = strip(r.Input)
	r.Index = strip(r.Index)
	r.Src = strip(r.Src)
	r.Source = strip(r.Source)
	r.Out = strip(r.Out)
	if r.Indices != nil {
		idx := make([]*Tensor, len(r.Indices))
		for k, t := range r.Indices {
			idx[k] = strip(t)
		}
		r.Indices = idx
	}
	return r
}

// base64Text marks the bytes of the standard base64 alphabet and padding.
var base64Text = func() (t [256]bool) {
	for _, c := range "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=" {
		t[c] = true
	}
	return t
}()

// isBase64Text reports whether s is made of the standard base64 alphabet
// and padding only, which JSON writes as it is.
func isBase64Text(s string) bool {
	ok := true
	for i := 0; i < len(s); i++ {
		ok = ok && base64Text[s[i]]
	}
	return ok
}

var leadingIDRE = regexp.MustCompile(`^\s*\{\s*"id"\s*:\s*(-?[0-9]{1,19})\s*[,}]`)

// leadingID returns the id of a malformed line that starts as requests
// do, with {"id":N, and 0 otherwise (N outside int64 too: no id the
// client sent), so that its error answer can carry it.
func leadingID(line []byte) int64 {
	m := leadingIDRE.FindSubmatch(line)
	if m == nil {
		return 0
	}
	id, err := strconv.ParseInt(string(m[1]), 10, 64)
	if err != nil {
		return 0
	}
	return id
}

// requestIn reads a Request and whether it has an id.
type requestIn struct {
	*Request
	ID *int64 `json:"id"` // shadows Request.ID
}

// callBody is a Request written without its id.
type callBody struct {
	*Request
	ID *int64 `json:"id,omitempty"` // shadows Request.ID; always nil
}

// EncodeCall returns the request line (without the newline) for call c with
// the given id, every tensor contiguous. See NewRequest for the calls it
// rejects.
func EncodeCall(id int64, c scatter.Call) ([]byte, error) { return EncodeOptions{}.EncodeCall(id, c) }

// EncodeCall returns the request line (without the newline) for call c
// with the given id, its tensors written as o says.
func (o EncodeOptions) EncodeCall(id int64, c scatter.Call) ([]byte, error) {
	r, err := o.NewRequest(id, c)
	if err != nil {
		return nil, err
	}
	return EncodeRequest(r)
}

// EncodeHello returns the hello request line:
//
//	{"id":0,"op":"hello","protocol":1}
func EncodeHello(id int64) []byte {
	b, _ := EncodeRequest(Request{ID: id, Op: OpHello, Protocol: scatter.Ptr(Version)})
	return b
}

// EncodeBench returns the bench request line that times call c repeat
// times, every tensor contiguous:
//
//	{"id":9,"op":"bench","repeat":20,"call":{...}}
func EncodeBench(id int64, c scatter.Call, repeat int) ([]byte, error) {
	return EncodeOptions{}.EncodeBench(id, c, repeat)
}

// EncodeBench returns the bench request line that times call c repeat
// times, its tensors written as o says.
func (o EncodeOptions) EncodeBench(id int64, c scatter.Call, repeat int) ([]byte, error) {
	inner, err := o.NewRequest(0, c)
	if err != nil {
		return nil, err
	}
	return EncodeRequest(Request{ID: id, Op: OpBench, Repeat: &repeat, Call: &inner})
}

// marshal writes v as compact JSON without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}
