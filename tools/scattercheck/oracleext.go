package main

import (
	"bytes"
	"encoding/json"
	"strings"

	"github.com/scatterconf/scatter"
)

// oracleExt are the request fields the oracle adds to the protocol.
type oracleExt struct {
	Profile *string  `json:"profile"`
	Level   *string  `json:"level"`
	Allowed *bool    `json:"allowed"`
	Answer  lineView `json:"answer"` // judge
	// InCall names an extension field found inside a judge request's
	// call, where it would be ignored: judge refuses it ("" for none).
	InCall string `json:"-"`
}

// lineView is a JSON value kept as the bytes of the request line it was
// decoded from, not copied (json.RawMessage copies): a judge request's
// answer can be as long as the line, and is refused by its length before
// anything else is made of it. The oracle neither changes nor reuses the
// line while it answers the request.
type lineView []byte

func (v *lineView) UnmarshalJSON(b []byte) error {
	*v = b[:len(b):len(b)]
	return nil
}

// decodeExt reads the extension fields of a request line that
// protocol.DecodeRequest accepted, and so a valid JSON object, with
// json.Unmarshal's rules: keys matched without regard to case, the last
// of repeated keys kept, null leaving profile, level and allowed unset
// (answer keeps the bytes null, which judge refuses), and a value of the
// wrong type an error naming the field. json.Unmarshal(line, &ext) would
// read the whole line twice more (its validity scan and its decoding
// pass, skipping the tensors): a third of the oracle's time on a request
// of a million elements. decodeExt only steps over the members it does not
// want, in one pass, and decodes the few bytes of the ones it does; a
// "call" object (a judge's, or a bench request's) is stepped over once
// more, member by member, for extension fields misplaced in it (InCall).
//
// An error is an *scatter.Error with code ErrInvalidArgument.
func decodeExt(line []byte) (oracleExt, error) {
	var ext oracleExt
	fields := [...]struct {
		name string
		dst  any
	}{{"profile", &ext.Profile}, {"level", &ext.Level}, {"allowed", &ext.Allowed}}
	err := eachMember(line, func(key string, val []byte) error {
		if strings.EqualFold(key, "answer") {
			// as it lies: json.Unmarshal would scan the answer, as long as
			// the line, once more to check it
			return ext.Answer.UnmarshalJSON(val)
		}
		if strings.EqualFold(key, "call") && len(val) > 0 && val[0] == '{' {
			// a judge's call: profile, level or allowed there would be
			// ignored (they are the judge request's own); its members
			// are stepped over once more (the last call counts, as
			// json.Unmarshal keeps the last of repeated keys)
			ext.InCall = ""
			return eachMember(val, func(k string, _ []byte) error {
				for _, f := range fields {
					if ext.InCall == "" && strings.EqualFold(k, f.name) {
						ext.InCall = f.name
					}
				}
				return nil
			})
		}
		for _, f := range fields {
			if !strings.EqualFold(key, f.name) {
				continue
			}
			if err := json.Unmarshal(val, f.dst); err != nil {
				return extTypeError(f.name, err)
			}
		}
		return nil
	})
	return ext, err
}

// extTypeError is the error for an extension field named name whose value
// json.Unmarshal refused with err.
func extTypeError(name string, err error) error {
	if te, ok := err.(*json.UnmarshalTypeError); ok {
		return scatter.Errorf(scatter.ErrInvalidArgument, "%q must be a JSON %s, got a JSON %s", name, te.Type.Kind(), te.Value)
	}
	return scatter.Errorf(scatter.ErrInvalidArgument, "an extension field has the wrong type")
}

// errNotAnObject is eachMember's error for anything but a JSON object.
var errNotAnObject = scatter.Errorf(scatter.ErrInvalidArgument, "a request is a JSON object")

// eachMember calls f with the key (unquoted) and the value (its bytes in
// obj) of every member of the JSON object obj, in order, until f returns
// an error, which it returns. obj must be valid JSON (it steps over the
// values without checking them); anything but an object is an error.
func eachMember(obj []byte, f func(key string, val []byte) error) error {
	i := skipSpace(obj, 0)
	if i >= len(obj) || obj[i] != '{' {
		return errNotAnObject
	}
	i = skipSpace(obj, i+1)
	if i < len(obj) && obj[i] == '}' {
		return nil
	}
	for i < len(obj) {
		if obj[i] != '"' {
			return errNotAnObject
		}
		end := skipValue(obj, i)
		key, ok := unquote(obj[i:end])
		if !ok {
			return errNotAnObject
		}
		i = skipSpace(obj, end)
		if i >= len(obj) || obj[i] != ':' {
			return errNotAnObject
		}
		start := skipSpace(obj, i+1)
		end = skipValue(obj, start)
		if end <= start {
			return errNotAnObject
		}
		if err := f(key, obj[start:end]); err != nil {
			return err
		}
		i = skipSpace(obj, end)
		if i >= len(obj) {
			return errNotAnObject
		}
		switch obj[i] {
		case '}':
			return nil
		case ',':
			i = skipSpace(obj, i+1)
		default:
			return errNotAnObject
		}
	}
	return errNotAnObject
}

// unquote returns the string a JSON string literal q stands for.
func unquote(q []byte) (string, bool) {
	if len(q) < 2 || q[0] != '"' || q[len(q)-1] != '"' {
		return "", false
	}
	if bytes.IndexByte(q, '\\') < 0 {
		return string(q[1 : len(q)-1]), true
	}
	var s string
	return s, json.Unmarshal(q, &s) == nil
}

// skipSpace returns the first position from i that is not JSON white
// space.
func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipValue returns the position just past the valid JSON value that
// starts at i: a string up to its closing quote, an array or object up to
// its closing bracket (strings inside stepped over whole, so that the
// brackets in them do not count), anything else up to the next
// delimiter.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return i
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			j := bytes.IndexAny(b[i:], `"[]{}`)
			if j < 0 {
				return len(b)
			}
			i += j
			switch b[i] {
			case '"':
				i = skipString(b, i)
				continue
			case '[', '{':
				depth++
			default:
				depth--
			}
			i++
			if depth == 0 {
				return i
			}
		}
		return i
	}
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	return i
}

// skipString returns the position just past the JSON string literal
// whose opening quote is at i: the first quote after it that is not
// escaped, that is, not preceded by an odd run of backslashes.
func skipString(b []byte, i int) int {
	for i++; i < len(b); {
		j := bytes.IndexByte(b[i:], '"')
		if j < 0 {
			return len(b)
		}
		i += j
		k := i
		for k > 0 && b[k-1] == '\\' {
			k--
		}
		i++
		if (i-1-k)%2 == 0 {
			return i
		}
	}
	return len(b)
}
