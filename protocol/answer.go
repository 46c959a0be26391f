package protocol

import (
	"encoding/json"
	"errors"
	"math"
	"slices"
	"strings"

	"github.com/scatterconf/scatter"
)

// AnswerKind says what an answer is.
type AnswerKind uint8

// The kinds of answers.
const (
	AnswerInvalid     AnswerKind = iota // the zero value
	AnswerHello                         // the handshake's answer: protocol, name, version, ops, ...
	AnswerResult                        // {"out":...} and maybe "arg"
	AnswerError                         // {"error":{"kind":...,"message":...}}
	AnswerUnsupported                   // {"unsupported":"..."}
	AnswerBench                         // {"seconds":[...]}
)

var answerKindNames = [...]string{"invalid", "hello", "result", "error", "unsupported", "bench"}

// String returns the kind's name: "hello", "result", "error", ...
func (k AnswerKind) String() string {
	if int(k) < len(answerKindNames) {
		return answerKindNames[k]
	}
	return "AnswerKind(?)"
}

// Answer is one decoded answer line.
type Answer struct {
	ID   int64
	Kind AnswerKind

	// Result is the operation's result (AnswerResult).
	Result scatter.Result
	// Err is the rejection (AnswerError) with the kind's code, or
	// ErrNotSupported with the message (AnswerUnsupported).
	Err *scatter.Error

	// The hello's fields (AnswerHello). DTypes nil means every dtype.
	Protocol      int
	Name          string
	Version       string
	Ops           []scatter.Op
	DTypes        []scatter.DType
	Deterministic bool
	// Extensions are the protocol extensions the hello claims.
	Extensions Extensions

	// Seconds are the bench's timings (AnswerBench).
	Seconds []float64
}

// Extensions are the optional protocol extensions of this package that a
// hello answer may claim (see the package doc). The zero value claims
// none: the plain protocol of PROTOCOL.md.
type Extensions struct {
	// Strides: the implementation takes tensors with "strides" (a view's
	// strides and storage), hello field "strides": true.
	Strides bool
}

// Info returns the scatter.Info that a hello answer claims.
func (a Answer) Info() scatter.Info {
	return scatter.Info{
		Name:          a.Name,
		Version:       a.Version,
		Ops:           slices.Clone(a.Ops),
		DTypes:        slices.Clone(a.DTypes),
		Deterministic: a.Deterministic,
	}
}

// wireAnswer is the JSON form of every answer; the field order is the one
// PROTOCOL.md writes.
type wireAnswer struct {
	ID            *int64     `json:"id"`
	Protocol      *int       `json:"protocol,omitempty"`
	Name          string     `json:"name,omitempty"`
	Version       string     `json:"version,omitempty"`
	Ops           []string   `json:"ops,omitempty"`
	DTypes        []string   `json:"dtypes,omitempty"`
	Deterministic bool       `json:"deterministic,omitempty"`
	Strides       bool       `json:"strides,omitempty"`
	Out           *Tensor    `json:"out,omitempty"`
	Arg           *Tensor    `json:"arg,omitempty"`
	Error         *wireError `json:"error,omitempty"`
	Unsupported   *string    `json:"unsupported,omitempty"`
	Seconds       []float64  `json:"seconds,omitempty"`
}

type wireError struct {
	Kind    string `json:"kind"`
	Message string `json:"message"`
}

// EncodeResult returns the answer line (without the newline) for a
// successful call: {"id":7,"out":<tensor>}, with "arg" when res.Arg is
// not the zero Tensor. An invalid tensor is an *scatter.Error with code
// ErrInvalidArgument.
func EncodeResult(id int64, res scatter.Result) ([]byte, error) {
	out, err := EncodeTensor(res.Out)
	if err != nil {
		return nil, scatter.Errorf(scatter.ErrInvalidArgument, "out: %s", msgOf(err))
	}
	w := wireAnswer{ID: &id, Out: &out}
	if !res.Arg.IsZero() {
		arg, err := EncodeTensor(res.Arg)
		if err != nil {
			return nil, scatter.Errorf(scatter.ErrInvalidArgument, "arg: %s", msgOf(err))
		}
		w.Arg = &arg
	}
	return marshal(w)
}

// EncodeError returns the answer line (without the newline) for a call
// that failed with err:
//
//	{"id":7,"error":{"kind":"index_out_of_range","message":"..."}}
//	{"id":7,"unsupported":"..."}                       (ErrNotSupported)
//
// An error without a code goes as invalid_argument with its text.
func EncodeError(id int64, err error) []byte {
	code := scatter.CodeOf(err)
	msg := "<nil error>"
	if err != nil {
		msg = err.Error()
		var e *scatter.Error
		if errors.As(err, &e) {
			msg = e.Msg
		}
	}
	w := wireAnswer{ID: &id}
	switch code {
	case scatter.ErrNotSupported:
		w.Unsupported = &msg
	case 0:
		w.Error = &wireError{Kind: scatter.ErrInvalidArgument.String(), Message: msg}
	default:
		w.Error = &wireError{Kind: code.String(), Message: msg}
	}
	b, _ := marshal(w) // cannot fail: strings and an int
	return b
}

// EncodeUnsupported returns {"id":id,"unsupported":msg}.
func EncodeUnsupported(id int64, msg string) []byte {
	return EncodeError(id, scatter.Errorf(scatter.ErrNotSupported, "%s", msg))
}

// EncodeHelloAnswer returns the hello's answer line for info: protocol 1,
// name, version, ops (every op when info.Ops is nil), dtypes (left out
// when info.DTypes is nil: every dtype) and deterministic (left out when
// false). It claims no extension.
func EncodeHelloAnswer(id int64, info scatter.Info) []byte {
	return EncodeHelloAnswerExt(id, info, Extensions{})
}

// EncodeHelloAnswerExt is EncodeHelloAnswer claiming the extensions ext
// too: "strides": true for ext.Strides (left out when false).
func EncodeHelloAnswerExt(id int64, info scatter.Info, ext Extensions) []byte {
	w := wireAnswer{ID: &id, Protocol: scatter.Ptr(Version), Name: info.Name, Version: info.Version,
		Deterministic: info.Deterministic, Strides: ext.Strides}
	ops := info.Ops
	if ops == nil {
		ops = scatter.Ops
	}
	w.Ops = make([]string, len(ops))
	for i, op := range ops {
		w.Ops[i] = string(op)
	}
	if info.DTypes != nil {
		w.DTypes = make([]string, len(info.DTypes))
		for i, dt := range info.DTypes {
			w.DTypes[i] = dt.String()
		}
	}
	b, _ := marshal(w)
	return b
}

// EncodeBenchAnswer returns {"id":id,"seconds":[...]}. A NaN or infinite
// time is an error.
func EncodeBenchAnswer(id int64, seconds []float64) ([]byte, error) {
	for _, s := range seconds {
		if math.IsNaN(s) || math.IsInf(s, 0) {
			return nil, scatter.Errorf(scatter.ErrInvalidArgument, "bench time %v is not finite", s)
		}
	}
	if seconds == nil {
		seconds = []float64{}
	}
	w := struct {
		ID      int64     `json:"id"`
		Seconds []float64 `json:"seconds"`
	}{id, seconds}
	return marshal(w)
}

// DecodeAnswer parses one answer line under the default Limits.
func DecodeAnswer(line []byte) (Answer, error) { return Limits{}.DecodeAnswer(line) }

// DecodeAnswerBody parses an answer object without its id under the
// default Limits.
func DecodeAnswerBody(body []byte) (Answer, error) { return Limits{}.DecodeAnswerBody(body) }

// DecodeAnswer parses one answer line. The line must be a JSON object with
// an integer id and exactly one of: out (with arg), error, unsupported,
// seconds, or the hello's protocol and ops. Unknown fields are ignored.
// An error's kind must be one of PROTOCOL.md's (scatter.Codes): an
// implementation that names its own exception there has not said which
// rule the call broke, and is not taken to have said invalid_argument.
// Anything else, and a tensor that is malformed or over the limits, is an
// *scatter.Error with code ErrInvalidArgument returned as the error (not
// in Answer.Err, which is the implementation's own rejection of a call).
func (l Limits) DecodeAnswer(line []byte) (Answer, error) {
	if len(line) > l.maxLine() {
		return Answer{}, scatter.Errorf(scatter.ErrInvalidArgument, "answer line of %d bytes is longer than the limit %d", len(line), l.maxLine())
	}
	var w wireAnswer
	if err := json.Unmarshal(line, &w); err != nil {
		return Answer{}, scatter.Errorf(scatter.ErrInvalidArgument, "malformed answer: %v", err)
	}
	if w.ID == nil {
		return Answer{}, scatter.Errorf(scatter.ErrInvalidArgument, "answer has no id")
	}
	return l.decodeWire(&w, *w.ID)
}

// DecodeAnswerBody parses an answer object that stands for itself, not on
// a line of its own (the oracle's judge request carries one): as
// DecodeAnswer, but an "id" in it, of any JSON type, is ignored, and the
// Answer's ID is 0.
func (l Limits) DecodeAnswerBody(body []byte) (Answer, error) {
	if len(body) > l.maxLine() {
		return Answer{}, scatter.Errorf(scatter.ErrInvalidArgument, "answer of %d bytes is longer than the limit %d", len(body), l.maxLine())
	}
	var wb struct {
		wireAnswer
		ID json.RawMessage `json:"id"` // hides wireAnswer's: any type
	}
	if err := json.Unmarshal(body, &wb); err != nil {
		return Answer{}, scatter.Errorf(scatter.ErrInvalidArgument, "malformed answer: %v", err)
	}
	return l.decodeWire(&wb.wireAnswer, 0)
}

// decodeWire checks a decoded answer and makes it an Answer with the id.
func (l Limits) decodeWire(w *wireAnswer, id int64) (Answer, error) {
	a := Answer{ID: id}
	kinds := 0
	if w.Out != nil || w.Arg != nil {
		kinds++
		a.Kind = AnswerResult
	}
	if w.Error != nil {
		kinds++
		a.Kind = AnswerError
	}
	if w.Unsupported != nil {
		kinds++
		a.Kind = AnswerUnsupported
	}
	if w.Seconds != nil {
		kinds++
		a.Kind = AnswerBench
	}
	if w.Protocol != nil || w.Ops != nil {
		kinds++
		a.Kind = AnswerHello
	}
	if kinds != 1 {
		a.Kind = AnswerInvalid
		if kinds == 0 {
			return a, scatter.Errorf(scatter.ErrInvalidArgument, "answer %d has none of out, error, unsupported, seconds, protocol", a.ID)
		}
		return a, scatter.Errorf(scatter.ErrInvalidArgument, "answer %d mixes out, error, unsupported, seconds and protocol", a.ID)
	}
	switch a.Kind {
	case AnswerResult:
		if w.Out == nil {
			return a, scatter.Errorf(scatter.ErrInvalidArgument, "answer %d has arg but no out", a.ID)
		}
		b := l.budget()
		var err error
		if a.Result.Out, err = b.tensor(*w.Out, "out"); err != nil {
			return a, err
		}
		if w.Arg != nil {
			if a.Result.Arg, err = b.tensor(*w.Arg, "arg"); err != nil {
				return a, err
			}
		}
	case AnswerError:
		code, err := scatter.ParseCode(w.Error.Kind)
		if err != nil {
			return a, scatter.Errorf(scatter.ErrInvalidArgument, "answer %d has an unknown error kind %q (the protocol's kinds: %s)", a.ID, clip(w.Error.Kind), kindList())
		}
		a.Err = &scatter.Error{Code: code, Msg: w.Error.Message}
	case AnswerUnsupported:
		a.Err = &scatter.Error{Code: scatter.ErrNotSupported, Msg: *w.Unsupported}
	case AnswerBench:
		a.Seconds = w.Seconds
	case AnswerHello:
		if w.Protocol == nil {
			return a, scatter.Errorf(scatter.ErrInvalidArgument, "hello answer has no protocol")
		}
		if w.Ops == nil {
			return a, scatter.Errorf(scatter.ErrInvalidArgument, "hello answer has no ops")
		}
		a.Protocol = *w.Protocol
		a.Name, a.Version, a.Deterministic = w.Name, w.Version, w.Deterministic
		a.Extensions = Extensions{Strides: w.Strides}
		a.Ops = make([]scatter.Op, len(w.Ops))
		for i, op := range w.Ops {
			a.Ops[i] = scatter.Op(op)
		}
		if w.DTypes != nil {
			a.DTypes = make([]scatter.DType, 0, len(w.DTypes))
			for _, name := range w.DTypes {
				// An unknown dtype is a newer one: not claimed here.
				if dt, err := scatter.ParseDType(name); err == nil {
					a.DTypes = append(a.DTypes, dt)
				}
			}
		}
	}
	return a, nil
}

// kindList names the protocol's error kinds, for the message on an
// unknown one.
func kindList() string {
	names := make([]string, len(scatter.Codes))
	for i, c := range scatter.Codes {
		names[i] = c.String()
	}
	return strings.Join(names, ", ")
}
