package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// scattercheck oracle: the reference oracle as a protocol implementation
// on standard input and output, whose answers also say what conforms.
// ORACLE.md documents the extension; in short, beside the protocol's own
// fields an answer carries
//
//	"profile", "level"          the truth and the level it was judged by
//	"allowed": {"out": [...], "arg": [...]}   per element, what conforms
//	"allowed_errors": [...]     for a call that must fail, the kinds that conform
//
// and a request may carry "profile", "level" and "allowed": false. The
// extra op "judge" judges an answer someone else computed.

// oracleVersion is the version the oracle's hello reports.
const oracleVersion = "1"

// defaultAllowedMax bounds the results whose allowed sets are given.
const defaultAllowedMax = 4096

type oracle struct {
	profile    scatter.Profile
	level      scatter.Level
	allowed    bool
	allowedMax int
	budget     *requestBudget // nil: none (budget.go)
}

func runOracle(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck oracle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "torch-2", "the default truth: torch-2, torch-2.8, torch-2.6 or torch-1.13 (a request's \"profile\" overrides it)")
	level := fs.String("level", "conformant", "the default level of \"allowed\": conformant or strict (a request's \"level\" overrides it)")
	allowed := fs.Bool("allowed", true, "add the per-element allowed sets to every answer (a request's \"allowed\" overrides it)")
	allowedMax := fs.Int("allowed-max", defaultAllowedMax, "give per-element allowed sets only for results with at most this many elements")
	budget := budgetFlags(fs)
	fs.Usage = func() {
		fmt.Fprintf(stderr, "usage: scattercheck oracle [flags] < requests > answers\n\n"+
			"Answers protocol requests (PROTOCOL.md) with the reference oracle's outcome and what conforms (ORACLE.md).\n\n")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return 2
	}
	o := &oracle{allowed: *allowed, allowedMax: *allowedMax, budget: budget}
	var err error
	if o.profile, err = scatter.ParseProfile(*profile); err != nil {
		fmt.Fprintln(stderr, "scattercheck oracle:", err)
		return 2
	}
	if o.level, err = scatter.ParseLevel(*level); err != nil {
		fmt.Fprintln(stderr, "scattercheck oracle:", err)
		return 2
	}
	if err := o.serve(stdin, stdout); err != nil {
		fmt.Fprintln(stderr, "scattercheck oracle:", err)
		return 1
	}
	return 0
}

// serve answers every request line of r on w, one line each, in order.
func (o *oracle) serve(r io.Reader, w io.Writer) error {
	return protocol.ServeLines(r, w, o.budget.maxLine(), o.answer, o.budget.tooLong)
}

// answer returns the answer line to one request line.
func (o *oracle) answer(line []byte) []byte {
	req, err := protocol.DecodeRequest(line)
	if err != nil {
		return protocol.EncodeError(req.ID, err)
	}
	ext, err := decodeExt(line)
	if err != nil {
		return protocol.EncodeError(req.ID, err)
	}
	prof, lvl, allowed := o.profile, o.level, o.allowed
	if ext.Profile != nil {
		if prof, err = scatter.ParseProfile(*ext.Profile); err != nil {
			return protocol.EncodeError(req.ID, err)
		}
	}
	if ext.Level != nil {
		if lvl, err = scatter.ParseLevel(*ext.Level); err != nil {
			return protocol.EncodeError(req.ID, err)
		}
	}
	if ext.Allowed != nil {
		allowed = *ext.Allowed
	}
	switch {
	case req.Op == protocol.OpHello:
		return splice(protocol.EncodeHelloAnswer(req.ID, scatter.Info{Name: "scattercheck-oracle", Version: oracleVersion,
			Deterministic: true}), "profile", prof.String(), "level", lvl.String(), "extensions", []string{"allowed", "allowed_errors", "judge"})
	case req.Op == "judge":
		return o.judge(&req, ext, prof, lvl)
	case !req.IsCall():
		return protocol.EncodeUnsupported(req.ID, fmt.Sprintf("op %q is not offered by the oracle", req.Op))
	}
	c, err := req.ToCall()
	if err != nil {
		return protocol.EncodeError(req.ID, err)
	}
	if why := o.budget.refuse(c); why != "" {
		return protocol.EncodeUnsupported(req.ID, why)
	}
	return o.call(req.ID, c, prof, lvl, allowed)
}

// declined returns the unsupported answer to a call past the reference's
// own limits (Expectation.Declined), or nil: the oracle cannot say what
// conforms there, nor judge an answer.
func declined(id int64, exp *reference.Expectation) []byte {
	why := exp.Declined()
	if why == "" {
		return nil
	}
	return protocol.EncodeUnsupported(id, "declined: "+why+"; PyTorch allocates it where memory allows, so the oracle cannot say what conforms")
}

// call answers an operation: the reference's outcome and what conforms.
func (o *oracle) call(id int64, c scatter.Call, prof scatter.Profile, lvl scatter.Level, allowed bool) []byte {
	exp := reference.Expect(c, prof) // the one fold: its result is the answer
	if line := declined(id, exp); line != nil {
		return line
	}
	if codes := exp.Codes(); codes != nil {
		err := exp.Err()
		if err == nil || scatter.CodeOf(err) != codes[0] {
			err = scatter.Errorf(codes[0], "the call breaks the rule %v", codes[0])
		}
		want := codes
		if lvl == scatter.Strict {
			want = codes[:1]
		}
		names := make([]string, len(want))
		for i, c := range want {
			names[i] = c.String()
		}
		kv := withLayout([]any{"profile", prof.String(), "level", lvl.String(), "allowed_errors", names}, c, prof)
		return splice(protocol.EncodeError(id, err), kv...)
	}
	line, err := protocol.EncodeResult(id, exp.Result())
	if err != nil {
		return protocol.EncodeError(id, err)
	}
	kv := []any{"profile", prof.String(), "level", lvl.String()}
	if allowed {
		kv = append(kv, "allowed", allowedJSON(exp, lvl, o.allowedMax))
	}
	kv = withLayout(kv, c, prof)
	return splice(line, kv...)
}

// withLayout adds the answer's "layout" field (layoutNote) to kv where c
// has one.
func withLayout(kv []any, c scatter.Call, prof scatter.Profile) []any {
	if note := layoutNote(c, prof); note != "" {
		return append(kv, "layout", note)
	}
	return kv
}

// layoutNote is the answer's "layout" field: where the request's own views
// lay its index out as PyTorch 2.14's expanded-index path takes one and
// the path answers otherwise than the copy (the calls reference.LayoutFree
// holds back, of the operations that path serves: PROFILES.md, "Views"),
// it says that the answer is the call's contiguous copy's, which torch
// 2.14 (and PyPI's 2.8 to 2.13) may not give; "" elsewhere (Debian's
// torch 2.6 and 1.13 answer such views as their copies).
func layoutNote(c scatter.Call, prof scatter.Profile) string {
	switch c.Op() {
	case scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpGather, scatter.OpTorchScatterAdd, scatter.OpTorchScatter:
	default:
		return ""
	}
	if (prof != scatter.Torch2 && prof != scatter.Torch28) || reference.LayoutFree(c) {
		return ""
	}
	if op := c.Op(); op == scatter.OpTorchScatterAdd || op == scatter.OpTorchScatter {
		return "the request carries views: this is the answer of the call on contiguous copies, which torch_scatter on torch 2.14 " +
			"may not give (an int32 index or a wider out on the expanded-index path, a non-contiguous out of mul, min or max fails: " +
			"PROFILES.md, \"Views\")"
	}
	return "the request's views lay the index out as torch 2.14's expanded-index path takes one: this is the answer of the call on contiguous copies, " +
		"which torch 2.14 may not give (an int32 index fails, a self wider than the index gets shifted rows, a 16-bit mean rounds otherwise, " +
		"gather reads every row through index[0]: PROFILES.md, \"Views\")"
}

// allowedJSON is the "allowed" object of a successful answer, rendered
// from the judge's sets (reference.Expectation.Allowed).
func allowedJSON(exp *reference.Expectation, lvl scatter.Level, maxElems int) json.RawMessage {
	a, err := allowedSets(exp, lvl, maxElems)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"omitted": err.Error()})
		return b
	}
	if a.Any {
		return json.RawMessage(`{"any":true,"note":"the call's outcome is undefined: anything conforms"}`)
	}
	var b bytes.Buffer
	b.WriteString("{")
	for k, at := range allowedTensors(a) {
		if k > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:[", at.name)
		for i, e := range at.Elems {
			if i > 0 {
				b.WriteString(",")
			}
			b.Write(outcomesJSON(at.DType, e))
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.Bytes()
}

// allowedSets returns what conforms for a call that succeeds, unless its
// result has more than maxElems elements (out and arg together). The size
// is checked before the sets are built: they cost memory linear in the
// result (hundreds of bytes per element), which a large call must not take
// only to have them dropped.
func allowedSets(exp *reference.Expectation, lvl scatter.Level, maxElems int) (reference.Allowed, error) {
	if codes := exp.Codes(); codes != nil {
		return reference.Allowed{}, errors.New("the call does not succeed")
	}
	if exp.Anything() {
		return reference.Allowed{Any: true}, nil
	}
	canon := exp.Result()
	n := canon.Out.NumEl()
	if !canon.Arg.IsZero() {
		n += canon.Arg.NumEl()
	}
	if n > maxElems {
		return reference.Allowed{}, fmt.Errorf("the result has %d elements; per-element allowed sets are given up to %d", n, maxElems)
	}
	return exp.Allowed(lvl)
}

// namedAllowed is one result tensor's sets with its name in the answer.
type namedAllowed struct {
	name string
	reference.AllowedTensor
}

// allowedTensors returns out's sets, then arg's when the result has one.
func allowedTensors(a reference.Allowed) []namedAllowed {
	ts := []namedAllowed{{"out", a.Out}}
	if a.Arg != nil {
		ts = append(ts, namedAllowed{"arg", *a.Arg})
	}
	return ts
}

// outcomesJSON writes one element's allowed set.
func outcomesJSON(dt scatter.DType, o reference.Outcomes) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	sep := ""
	field := func(k string, v []byte) {
		fmt.Fprintf(&b, "%s%q:", sep, k)
		b.Write(v)
		sep = ","
	}
	switch {
	case o.Any:
		field("any", []byte("true"))
	default:
		if len(o.Values) > 0 || !o.Range {
			var vs bytes.Buffer
			vs.WriteString("[")
			for i, v := range o.Values {
				if i > 0 {
					vs.WriteString(",")
				}
				vs.Write(valueJSON(dt, v))
			}
			vs.WriteString("]")
			field("values", vs.Bytes())
		}
		if o.Range {
			field("lo", valueJSON(dt, scatter.Float(o.Lo)))
			field("hi", valueJSON(dt, scatter.Float(o.Hi)))
		}
	}
	if o.Note != "" {
		field("note", quote(o.Note))
	}
	b.WriteString("}")
	return b.Bytes()
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// valueJSON writes a value of dtype dt as the protocol writes scalars
// (protocol.EncodeScalar: a float always with a '.' or an exponent, so
// that -0.0 keeps its sign; "nan", "inf", "-inf"; true or false for
// bool), a finite float32 as the shortest decimal that reads back as it.
func valueJSON(dt scatter.DType, v scatter.Scalar) []byte {
	f := v.Float64()
	if dt != scatter.DTFloat32 || !v.IsFloat() || math.IsNaN(f) || math.IsInf(f, 0) {
		return protocol.EncodeScalar(v)
	}
	s := strconv.FormatFloat(f, 'g', -1, 32)
	if !strings.ContainsAny(s, ".e") {
		s += ".0"
	}
	return []byte(s)
}

// splice adds key/value fields to an answer line (a JSON object).
func splice(line []byte, kv ...any) []byte {
	if len(line) == 0 || line[len(line)-1] != '}' {
		return line
	}
	out := append([]byte{}, line[:len(line)-1]...)
	for i := 0; i+1 < len(kv); i += 2 {
		var v []byte
		switch x := kv[i+1].(type) {
		case json.RawMessage:
			v = x
		default:
			v, _ = json.Marshal(x)
		}
		out = append(out, ',')
		out = append(out, quote(kv[i].(string))...)
		out = append(out, ':')
		out = append(out, v...)
	}
	return append(out, '}')
}

// judge answers {"op":"judge","call":{...},"answer":{...}}: whether the
// answer conforms, and if not the judge's report.
func (o *oracle) judge(req *protocol.Request, ext oracleExt, prof scatter.Profile, lvl scatter.Level) []byte {
	fail := func(format string, args ...any) []byte {
		return protocol.EncodeError(req.ID, scatter.Errorf(scatter.ErrInvalidArgument, "judge: "+format, args...))
	}
	if req.Call == nil || !req.Call.IsCall() {
		return fail("missing call (an operation request, without id)")
	}
	if ext.InCall != "" {
		return fail("%q is a field of the judge request, not of its call: put it next to \"call\" and \"answer\"", ext.InCall)
	}
	c, err := req.Call.ToCall()
	if err != nil {
		return fail("call: %v", err)
	}
	if why := o.budget.refuse(c); why != "" {
		return protocol.EncodeUnsupported(req.ID, why)
	}
	if len(ext.Answer) == 0 {
		return fail("missing answer (an answer object, without id)")
	}
	// No answer to the call is longer than the Client would read from an
	// implementation: a longer one is refused before it is decoded, so
	// that the request's memory stays within the call's budget.
	if limit := (protocol.Limits{}).AnswerLimit(c); len(ext.Answer) > limit {
		return fail("answer of %d bytes, longer than any answer to this call (%d bytes at most)", len(ext.Answer), limit)
	}
	body := bytes.TrimSpace(ext.Answer)
	if len(body) < 2 || body[0] != '{' {
		return fail("answer is not a JSON object")
	}
	// decoded once, where it lies in the request line; an id of the
	// answer's own, of any JSON type, is ignored
	ans, err := protocol.DecodeAnswerBody(body)
	if err != nil {
		return fail("answer: %v", err)
	}
	var res scatter.Result
	var runErr error
	switch ans.Kind {
	case protocol.AnswerResult:
		res = ans.Result
	case protocol.AnswerError, protocol.AnswerUnsupported:
		runErr = ans.Err
	default:
		return fail("answer is a %v answer, not a result, error or unsupported", ans.Kind)
	}
	exp := reference.Expect(c, prof)
	if line := declined(req.ID, exp); line != nil {
		return line
	}
	jerr := exp.Check(lvl, res, runErr)
	out := []byte(fmt.Sprintf(`{"id":%d,"conforms":%v}`, req.ID, jerr == nil))
	kv := []any{"profile", prof.String(), "level", lvl.String()}
	var m *reference.Mismatch
	if errors.As(jerr, &m) {
		type elem struct {
			Tensor  string `json:"tensor"`
			Index   []int  `json:"index"`
			Got     string `json:"got"`
			Allowed string `json:"allowed"`
			From    string `json:"from,omitempty"`
		}
		els := make([]elem, len(m.Elements))
		for i, e := range m.Elements {
			els[i] = elem{e.Tensor, append([]int{}, e.Index...), e.Got, e.Allowed, e.From}
		}
		kv = append(kv, "reason", m.Reason, "report", m.Error(), "elements", els, "count", m.Count)
		if m.Want != nil {
			names := make([]string, len(m.Want))
			for i, c := range m.Want {
				names[i] = c.String()
			}
			kv = append(kv, "allowed_errors", names)
		}
	}
	kv = withLayout(kv, c, prof)
	return splice(out, kv...)
}
