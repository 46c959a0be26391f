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
// Extension: a scalar may also be the JSON literal true or false, which
// stands for a Python bool (scatter.Bool). PROTOCOL.md lists only numbers
// and the strings "nan", "inf" and "-inf"; an implementation that does not
// take bools rejects such a request with invalid_argument.
package protocol
