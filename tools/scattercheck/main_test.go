package main

import (
	"bytes"
	"strings"
	"testing"
)

func TestRunBuiltinDocs(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"-profile", "torch-1.13", "-labels", "docs"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{"reference", "profile torch-1.13", "scatter_reduce", "PASS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRunBadFlags(t *testing.T) {
	for _, args := range [][]string{{"-profile", "torch-3"}, {"-nosuch"}} {
		var out, errb bytes.Buffer
		if code := run(args, &out, &errb); code != 2 {
			t.Errorf("%v: exit %d, want 2", args, code)
		}
	}
}
