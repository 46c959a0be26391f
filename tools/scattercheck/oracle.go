package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"strconv"

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

// oracleMaxLine bounds a request line (the protocol's default).
const oracleMaxLine = protocol.DefaultMaxLineBytes

type oracle struct {
	profile    scatter.Profile
	level      scatter.Level
	allowed    bool
	allowedMax int
	budget     *requestBudget // nil: none (budget.go)
}

// oracleExt are the request fields the oracle adds to the protocol.
type oracleExt struct {
	Profile *string         `json:"profile"`
	Level   *string         `json:"level"`
	Allowed *bool           `json:"allowed"`
	Answer  json.RawMessage `json:"answer"` // judge
}

func runOracle(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("scattercheck oracle", flag.ContinueOnError)
	fs.SetOutput(stderr)
	profile := fs.String("profile", "torch-2", "the default truth: torch-2 or torch-1.13 (a request's \"profile\" overrides it)")
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
	br := bufio.NewReaderSize(r, 64<<10)
	bw := bufio.NewWriterSize(w, 64<<10)
	for {
		line, err := readBounded(br, oracleMaxLine)
		if err == io.EOF {
			return bw.Flush()
		}
		var ans []byte
		switch {
		case errors.Is(err, errTooLong):
			ans = protocol.EncodeError(0, scatter.Errorf(scatter.ErrInvalidArgument, "request line longer than %d bytes", oracleMaxLine))
		case err != nil:
			return err
		case len(bytes.TrimSpace(line)) == 0:
			continue
		default:
			ans = o.answer(line)
		}
		bw.Write(ans)
		bw.WriteByte('\n')
		if err := bw.Flush(); err != nil {
			return err
		}
	}
}

var errTooLong = errors.New("line too long")

// readBounded returns the next line without its newline; a line longer
// than max is consumed and errTooLong returned, holding at most max bytes.
func readBounded(br *bufio.Reader, max int) ([]byte, error) {
	var line []byte
	tooLong := false
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 {
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		switch {
		case err == bufio.ErrBufferFull:
			continue
		case err == io.EOF:
			if tooLong {
				return nil, errTooLong
			}
			if len(line) == 0 {
				return nil, io.EOF
			}
			return line, nil
		case err != nil:
			return nil, err
		}
		if tooLong {
			return nil, errTooLong
		}
		return bytes.TrimRight(line, "\r\n"), nil
	}
}

// answer returns the answer line to one request line.
func (o *oracle) answer(line []byte) []byte {
	req, err := protocol.DecodeRequest(line)
	if err != nil {
		return protocol.EncodeError(req.ID, err)
	}
	var ext oracleExt
	_ = json.Unmarshal(line, &ext) // DecodeRequest parsed the line: it is an object
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

// call answers an operation: the reference's outcome and what conforms.
func (o *oracle) call(id int64, c scatter.Call, prof scatter.Profile, lvl scatter.Level, allowed bool) []byte {
	exp := reference.Expect(scatter.CloneCall(c), prof)
	res, runErr := reference.New(prof).Run(c)
	if codes := exp.Codes(); codes != nil {
		err := runErr
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
		return splice(protocol.EncodeError(id, err), "profile", prof.String(), "level", lvl.String(), "allowed_errors", names)
	}
	if runErr != nil {
		return protocol.EncodeError(id, runErr)
	}
	line, err := protocol.EncodeResult(id, res)
	if err != nil {
		return protocol.EncodeError(id, err)
	}
	kv := []any{"profile", prof.String(), "level", lvl.String()}
	if allowed {
		kv = append(kv, "allowed", allowedJSON(exp, lvl, o.allowedMax))
	}
	return splice(line, kv...)
}

// allowedJSON is the "allowed" object of a successful answer.
func allowedJSON(exp *reference.Expectation, lvl scatter.Level, maxElems int) json.RawMessage {
	if anyOutcome(exp, lvl) {
		return json.RawMessage(`{"any":true,"note":"the call's outcome is undefined: anything conforms"}`)
	}
	sets, err := allowedSets(exp, lvl, maxElems)
	if err != nil {
		b, _ := json.Marshal(map[string]string{"omitted": err.Error()})
		return b
	}
	var b bytes.Buffer
	b.WriteString("{")
	for k, at := range sets {
		if k > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, "%q:[", at.name)
		for i, e := range at.elems {
			if i > 0 {
				b.WriteString(",")
			}
			b.Write(e.json(at.dtype, at.name == "arg"))
		}
		b.WriteString("]")
	}
	b.WriteString("}")
	return b.Bytes()
}

// json writes one element's allowed set.
func (a *elemAllowed) json(dt scatter.DType, isArg bool) []byte {
	var b bytes.Buffer
	b.WriteString("{")
	sep := ""
	field := func(k string, v []byte) {
		fmt.Fprintf(&b, "%s%q:", sep, k)
		b.Write(v)
		sep = ","
	}
	switch {
	case a.any:
		field("any", []byte("true"))
	case a.unverified:
		field("text", quote(a.text))
		field("unverified", []byte("true"))
	default:
		if len(a.vals) > 0 || !a.hasRange {
			var vs bytes.Buffer
			vs.WriteString("[")
			for i, v := range a.vals {
				if i > 0 {
					vs.WriteString(",")
				}
				vs.Write(valueJSON(dt, isArg, v))
			}
			vs.WriteString("]")
			field("values", vs.Bytes())
		}
		if a.hasRange {
			field("lo", valueJSON(dt, false, aval{f: a.lo}))
			field("hi", valueJSON(dt, false, aval{f: a.hi}))
		}
	}
	if a.note != "" {
		field("note", quote(a.note))
	}
	b.WriteString("}")
	return b.Bytes()
}

func quote(s string) []byte {
	b, _ := json.Marshal(s)
	return b
}

// valueJSON writes a value as the protocol writes scalars: a JSON number
// (a float always with a '.' or an exponent, so that -0.0 keeps its
// sign), "nan", "inf" or "-inf"; true or false for bool.
func valueJSON(dt scatter.DType, isArg bool, v aval) []byte {
	switch {
	case isArg || dt.IsInt():
		return []byte(strconv.FormatInt(v.i, 10))
	case dt == scatter.DTBool:
		return []byte(strconv.FormatBool(v.i != 0))
	case math.IsNaN(v.f):
		return []byte(`"nan"`)
	case math.IsInf(v.f, 1):
		return []byte(`"inf"`)
	case math.IsInf(v.f, -1):
		return []byte(`"-inf"`)
	}
	size := 64
	if dt == scatter.DTFloat32 {
		size = 32
	}
	s := strconv.FormatFloat(v.f, 'g', -1, size)
	if !bytes.ContainsAny([]byte(s), ".e") {
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
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(ext.Answer, &fields); err != nil || fields == nil {
		return fail("answer is not a JSON object")
	}
	fields["id"] = json.RawMessage("0")
	raw, _ := json.Marshal(fields)
	ans, err := protocol.DecodeAnswer(raw)
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
	jerr := reference.Expect(c, prof).Check(lvl, res, runErr)
	out := []byte(fmt.Sprintf(`{"id":%d,"conforms":%v}`, req.ID, jerr == nil))
	kv := []any{"profile", prof.String(), "level", lvl.String()}
	var m *reference.Mismatch
	if errors.As(jerr, &m) {
		type elem struct {
			Tensor  string `json:"tensor"`
			Index   []int  `json:"index"`
			Got     string `json:"got"`
			Allowed string `json:"allowed"`
		}
		els := make([]elem, len(m.Elements))
		for i, e := range m.Elements {
			els[i] = elem{e.Tensor, append([]int{}, e.Index...), e.Got, e.Allowed}
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
	return splice(out, kv...)
}
