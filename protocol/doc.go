// Package protocol is the Go side of the implementation protocol
// (PROTOCOL.md, version 1): JSON lines between the suite and a scatter
// implementation in any language.
//
// The codec maps the wire forms to the contract of package scatter:
// EncodeTensor/DecodeTensor, EncodeScalar/DecodeScalar, EncodeCall/DecodeCall
// (and DecodeRequest for hello and bench), EncodeResult/EncodeError/
// DecodeAnswer. Every decoder is robust against hostile input: a malformed
// line, tensor or scalar is an *scatter.Error with code ErrInvalidArgument,
// never a panic, and nothing is allocated from a size the input merely
// claims: lines and decoded tensor bytes are bounded by Limits.
//
// Serve turns any Go scatter.Backend into a protocol implementation on a
// reader and a writer (standard input and output). Client runs an outside
// implementation as a child process and is itself a scatter.Backend; when
// the child hangs, crashes or prints garbage, the call fails with a
// *ProcessError, which carries no scatter.Code, and the child is restarted
// before the next call.
//
// A scalar is an integer literal (a Python int), a number with '.', 'e'
// or 'E' or one of the strings "nan", "inf" and "-inf" (a Python float),
// or the JSON literal true or false (a Python bool, scatter.Bool), as
// PROTOCOL.md has it; the suite sends all three kinds.
//
// # Extension: strided tensors
//
// PROTOCOL.md's tensors are contiguous: data holds every element in
// row-major order. A view such as PyG's expanded index (shape
// [1000000, 64], strides [1, 0]: one row id per row) would then travel as
// 64M int64s, and the implementation would run on a contiguous index,
// not on the view the call is about. This optional extension, which adds
// only optional fields, lets such a view travel as a view.
//
// An implementation claims it in its hello answer with "strides": true.
// A tensor sent to it may then carry "strides", one non-negative integer
// per dimension, the element stride of each (0 for a broadcast
// dimension):
//
//	{"dtype":"int64","shape":[3,2],"strides":[1,0],"data":"<base64 of 3 int64s>"}
//
// data then holds the view's storage, exactly 1 + Σ (shape[k]-1)·strides[k]
// elements (none when a size is 0), little-endian as usual, and element
// (i0, ..., ik) is storage element Σ i_k·strides[k]: what
// torch.as_strided(storage, shape, strides) and NumPy's as_strided
// (strides in bytes) make of it. Strides may overlap; an implementation
// does not write into such a view (every operation is out of place).
// Strides of the wrong number, a negative stride, a span past the largest
// int, and data that is not exactly the storage are invalid_argument, like
// any malformed tensor. The Go decoders bound a view as they bound a
// contiguous tensor (Limits.MaxTensorBytes), so that a few bytes of
// storage cannot stand for a tensor that exhausts memory; the storage
// counts against the line's budget.
//
// The suite sends strided tensors only to an implementation that claims
// the extension, and only in bench requests: the layout is part of what
// is timed, while operation requests stay contiguous, so that the gate's
// verdicts do not depend on the claim. It sends a view with strides when
// the view is not contiguous and its storage is no more elements than the
// view has (expanded and transposed views); other views go contiguous.
//
// In this package EncodeOptions{Strides: true} writes views so; every
// decoder takes "strides" wherever a tensor is (a scatter.Tensor with
// Strides over the storage), so Serve claims the extension for any Go
// backend (a Go implementation of its own claims it with
// EncodeHelloAnswerExt); Client.Bench uses it when the hello claims it
// (Client.Extensions). tools/adapters/torch_adapter.py and
// numpy_adapter.py claim it too.
//
// # An empty reduce
//
// A "reduce" field that is present is the reduction named, whatever the
// string: "reduce": "" is the empty string given to PyTorch as reduce
// (scatter.ReduceEmpty),
// which every operation rejects (invalid_argument), and is not the field
// left out (scatter.ReduceNone: no reduce, or torch_scatter's default
// sum). The codec keeps the difference both ways (Reduce.Name gives the
// string to send); the oracle and the reference validate any string as
// PyTorch does. (The two-character string of two apostrophes, the Go
// value of ReduceEmpty, decodes as ReduceEmpty too; PyTorch rejects both
// alike.)
package protocol
