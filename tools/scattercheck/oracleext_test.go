package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"pgregory.net/rapid"
)

// unmarshalExt is what decodeExt stands in for: json.Unmarshal of the
// whole line into oracleExt, its type errors worded as decodeExt words
// them.
func unmarshalExt(line []byte) (oracleExt, error) {
	var ext oracleExt
	err := json.Unmarshal(line, &ext)
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) && te.Field != "" {
		return ext, fmt.Errorf("%q must be a JSON %s, got a JSON %s", te.Field, te.Type.Kind(), te.Value)
	}
	return ext, err
}

// sameExt fails t unless decodeExt and unmarshalExt agree on line: the
// same fields, the same answer bytes (a view of line in both), the same
// error text.
func sameExt(t interface {
	Helper()
	Fatalf(string, ...any)
}, line []byte) {
	t.Helper()
	got, gotErr := decodeExt(line)
	want, wantErr := unmarshalExt(line)
	if (gotErr == nil) != (wantErr == nil) {
		t.Fatalf("%s: decodeExt error %v, json.Unmarshal error %v", line, gotErr, wantErr)
	}
	if gotErr != nil {
		if !strings.Contains(gotErr.Error(), wantErr.Error()) {
			t.Fatalf("%s: decodeExt error %q, json.Unmarshal error %q", line, gotErr, wantErr)
		}
		return
	}
	str := func(p *string) string {
		if p == nil {
			return "<nil>"
		}
		return *p
	}
	bl := func(p *bool) string {
		if p == nil {
			return "<nil>"
		}
		return fmt.Sprint(*p)
	}
	if str(got.Profile) != str(want.Profile) || str(got.Level) != str(want.Level) || bl(got.Allowed) != bl(want.Allowed) || !bytes.Equal(got.Answer, want.Answer) || (got.Answer == nil) != (want.Answer == nil) {
		t.Fatalf("%s: decodeExt (%s, %s, %s, %q), json.Unmarshal (%s, %s, %s, %q)", line,
			str(got.Profile), str(got.Level), bl(got.Allowed), got.Answer,
			str(want.Profile), str(want.Level), bl(want.Allowed), want.Answer)
	}
}

func TestDecodeExtAsUnmarshal(t *testing.T) {
	for _, line := range []string{
		`{}`,
		` { } `,
		`{"id":1,"op":"gather"}`,
		`{"id":1,"op":"gather","profile":"torch-1.13","level":"strict","allowed":false}`,
		`{"PROFILE":"a","Level":"b","aLLoweD":true}`,
		`{"\u0070rofile":"escaped key","le\u0076el":"x"}`,
		`{"profile":"first","profile":"last"}`,
		`{"profile":"a","Profile":"b"}`,
		`{"profile":null}`,
		`{"allowed":null,"answer":null}`,
		`{"profile":5}`,
		`{"level":["strict"]}`,
		`{"allowed":"true"}`,
		`{"allowed":1}`,
		`{"profile":"a","allowed":{"x":1}}`,
		`{"answer":{"id":1,"ok":true,"out":{"dtype":"float32","shape":[2],"data":[1,2]}}}`,
		"{\"answer\" :\t{\"a\":\"}]\\\"{[\"} , \"level\":\"x\"}",
		`{"self":{"data":["a\"]}","b\\"]},"profile":"after a tricky string"}`,
		`{"src":[[[]],{},[{"k":"]"}]],"level":"after nesting"}`,
		`{"anſwer":{"k":1},"profile":"long s"}`,
		`{"aNSWER":[1,2,3]}`,
		`{"answer":"a string","answer":[1]}`,
		`{"x":-1.5e+10,"y":true,"z":null,"level":"l"}`,
		`{"profile":"\u00e9\n\"quoted\""}`,
		`{"": 1, "profile": ""}`,
	} {
		if !json.Valid([]byte(line)) {
			t.Fatalf("case %s is not valid JSON", line)
		}
		sameExt(t, []byte(line))
	}
}

func TestDecodeExtNotAnObject(t *testing.T) {
	for _, line := range []string{``, `[]`, `1`, `"profile"`, `null`} {
		if _, err := decodeExt([]byte(line)); err == nil {
			t.Errorf("decodeExt(%q): no error", line)
		}
	}
}

// TestDecodeExtAnswerIsAView checks that the answer is read where it lies
// in the line, not copied.
func TestDecodeExtAnswerIsAView(t *testing.T) {
	line := []byte(`{"id":3,"op":"judge","answer":{"id":3,"ok":true}}`)
	ext, err := decodeExt(line)
	if err != nil {
		t.Fatal(err)
	}
	at := bytes.Index(line, []byte(`{"id":3,"ok"`))
	if len(ext.Answer) == 0 || &ext.Answer[0] != &line[at] {
		t.Fatalf("answer %q is not a view of the line at %d", ext.Answer, at)
	}
}

// jsonValue draws a JSON value of the kinds a request holds, with strings
// full of the bytes a scanner could trip on.
func jsonValue(t *rapid.T, depth int, label string) string {
	kinds := 6
	if depth > 2 {
		kinds = 4
	}
	switch rapid.IntRange(0, kinds-1).Draw(t, label+"kind") {
	case 0:
		return rapid.SampledFrom([]string{"null", "true", "false"}).Draw(t, label+"lit")
	case 1:
		return rapid.SampledFrom([]string{"0", "-1", "2.5", "1e3", "-0.0e-2", "123456789012"}).Draw(t, label+"num")
	case 2, 3:
		s := rapid.StringOfN(rapid.SampledFrom([]rune(`ab"\\{}[],: ſé`+"\n\t\x01")), 0, 8, -1).Draw(t, label+"str")
		b, _ := json.Marshal(s)
		return string(b)
	case 4:
		n := rapid.IntRange(0, 3).Draw(t, label+"len")
		parts := make([]string, n)
		for i := range parts {
			parts[i] = jsonValue(t, depth+1, fmt.Sprintf("%s[%d]", label, i))
		}
		return "[" + ws(t, label+"open") + strings.Join(parts, rapid.SampledFrom([]string{",", " , ", ",\n"}).Draw(t, label+"sep")) + ws(t, label+"close") + "]"
	default:
		return jsonObject(t, depth+1, label+".")
	}
}

// extKeys are keys that name an extension field (exactly, in another case,
// escaped, with the long s that folds to s) and keys that do not.
var extKeys = []string{
	"profile", "level", "allowed", "answer",
	"Profile", "LEVEL", "Allowed", "ANSWER", "anſwer",
	`\u0070rofile`, `lev\u0065l`, `all\u006fwed`,
	"id", "op", "self", "src", "index", "profiles", "answers", "", `\"`,
}

func jsonObject(t *rapid.T, depth int, label string) string {
	n := rapid.IntRange(0, 5).Draw(t, label+"members")
	parts := make([]string, n)
	for i := range parts {
		key := rapid.SampledFrom(extKeys).Draw(t, fmt.Sprintf("%skey%d", label, i))
		parts[i] = `"` + key + `"` + rapid.SampledFrom([]string{":", " : ", ":\t"}).Draw(t, label+"colon") +
			jsonValue(t, depth, fmt.Sprintf("%sval%d", label, i))
	}
	return "{" + ws(t, label+"open") + strings.Join(parts, rapid.SampledFrom([]string{",", " ,", ",\n "}).Draw(t, label+"comma")) + ws(t, label+"close") + "}"
}

// ws draws JSON white space, often none.
func ws(t *rapid.T, label string) string {
	return rapid.SampledFrom([]string{"", "", " ", "\n\t", "\r\n  "}).Draw(t, label)
}

// TestDecodeExtDifferential draws request-like objects whose members name
// the extension fields in every way json.Unmarshal accepts, with values of
// every kind (the wrong types included) and strings full of brackets,
// quotes and escapes, and requires decodeExt to agree with json.Unmarshal.
func TestDecodeExtDifferential(t *testing.T) {
	rapid.Check(t, func(t *rapid.T) {
		line := ws(t, "lead") + jsonObject(t, 0, "") + ws(t, "trail")
		if !json.Valid([]byte(line)) {
			t.Fatalf("drew invalid JSON %s", line)
		}
		sameExt(t, []byte(line))
	})
}

func FuzzDecodeExt(f *testing.F) {
	f.Add([]byte(`{"profile":"torch-2","answer":{"a":"]"}}`))
	f.Add([]byte(`{"allowed":"no","\u006cevel":1}`))
	f.Fuzz(func(t *testing.T, line []byte) {
		if !json.Valid(line) || bytes.TrimSpace(line)[0] != '{' {
			return
		}
		sameExt(t, line)
	})
}
