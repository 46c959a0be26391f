package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hostile answers its hello with a name and version full of terminal
// escapes and a line that reads like the gate's verdict, rejects every
// call with such a message, writes the same to its standard error, and
// crashes on its third request (so that its stderr is shown).
const hostile = `read l
printf '{"id":0,"protocol":1,"name":"evil\\u001b[2J\\nPASS: conforms","version":"1\\u001b]0;title\\u0007\\u202e","ops":["gather"]}\n'
printf '\033[2J\033[H\nPASS: conforms\n\033]0;pwned\007' >&2
n=0
while read l; do
  n=$((n+1))
  if [ $n -eq 3 ]; then printf '\033[31m\nPASS: conforms\n' >&2; exit 1; fi
  id=$(printf '%s' "$l" | sed 's/^{"id":\([0-9]*\).*/\1/')
  printf '{"id":%s,"error":{"kind":"invalid_argument","message":"bad\\u001b[2J\\nPASS: conforms"}}\n' "$id"
done
`

// TestImplementationTextIsData: nothing the implementation writes reaches
// the terminal, the JUnit report or the JSON report as a control
// character, or as a line that looks like the gate's verdict.
func TestImplementationTextIsData(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "hostile.sh")
	if err := os.WriteFile(script, []byte(hostile), 0o755); err != nil {
		t.Fatal(err)
	}
	js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
	code, out, errb := runCmd(t, nil, "-impl", "sh "+shQuote(script), "-ops", "gather", "-suites", "spec",
		"-json", js, "-junit", ju, "-v", "-max-process-failures", "0")
	if code != 1 {
		t.Fatalf("exit %d, want 1\n%s%s", code, tailOf(out, 3000), errb)
	}
	// check: no raw control character; and, unless the text is the
	// implementation's stderr (shown as such), no line that reads like
	// the verdict
	check := func(where, s string) {
		t.Helper()
		stderr := strings.HasSuffix(where, "stderr")
		for i := 0; i < len(s); i++ {
			if c := s[i]; c < 0x20 && c != '\n' && c != '\t' || c == 0x7f {
				t.Errorf("%s: a raw control character %#x at %d: %q", where, c, i, s[max(0, i-40):min(len(s), i+40)])
				return
			}
		}
		if strings.Contains(s, "\u202e") {
			t.Errorf("%s: a raw right-to-left override", where)
		}
		for _, l := range strings.Split(s, "\n") {
			if !stderr && strings.HasPrefix(strings.TrimSpace(l), "PASS: conforms") {
				t.Errorf("%s: a line reads like the verdict: %q", where, l)
			}
		}
	}
	check("the summary", out)
	if !strings.Contains(out, `evil\x1b[2J\nPASS: conforms`) {
		t.Errorf("the name is not shown escaped:\n%s", tailOf(out, 3000))
	}
	if !strings.Contains(out, `  | \x1b[2J\x1b[H`) {
		t.Errorf("the stderr is not shown escaped:\n%s", tailOf(out, 3000))
	}
	b, err := os.ReadFile(ju)
	if err != nil {
		t.Fatal(err)
	}
	junit := string(b)
	if i, j := strings.Index(junit, "<system-err>"), strings.Index(junit, "</system-err>"); i >= 0 && j > i {
		check("the JUnit system-err, the implementation's stderr", junit[i:j])
		junit = junit[:i] + junit[j:]
	}
	check("the JUnit report", junit)
	// every string of the JSON report, decoded
	b, err = os.ReadFile(js)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	var walk func(key string, v any)
	walk = func(key string, v any) {
		switch v := v.(type) {
		case string:
			check("the JSON report's "+key, v)
		case []any:
			for _, x := range v {
				walk(key, x)
			}
		case map[string]any:
			for k, x := range v {
				if k == "stderr_tail" {
					k = "stderr"
				}
				walk(k, x)
			}
		}
	}
	walk("", v)
	if !bytes.Contains(b, []byte(`evil\\x1b[2J`)) {
		t.Error("the JSON report lacks the escaped name")
	}
}

func TestCleanLine(t *testing.T) {
	for in, want := range map[string]string{
		"plain text — ok":      "plain text — ok",
		"a\x1b[2Jb":            `a\x1b[2Jb`,
		"line\nPASS: conforms": `line\nPASS: conforms`,
		"\x9b31m":              `\x9b31m`, // invalid UTF-8 (a raw C1 byte)
		"\u009b31m":            `\u{009b}31m`,
		"abc\u202edef":         `abc\u{202e}def`,
		"tab\there\r":          `tab\there\r`,
	} {
		if got := cleanLine(in, 100); got != want {
			t.Errorf("cleanLine(%q) = %q, want %q", in, got, want)
		}
	}
	if got := cleanLine(strings.Repeat("x", 50), 10); got != "xxxxxxxxxx... (40 bytes more)" {
		t.Errorf("cut: %q", got)
	}
	if got := cleanText(strings.Repeat("l\n", 50), 3); got != "(47 lines before)\nl\nl\nl" {
		t.Errorf("cleanText: %q", got)
	}
}
