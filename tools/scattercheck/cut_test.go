//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Tests of a run cut short: by SIGTERM, SIGINT or -deadline, while the
// implementation answers slowly or has not answered its hello. The gate
// ends the implementation and everything it started, writes the reports
// with what was judged, marked incomplete, and exits non-zero.

// pidFrom waits for a pid file.
func pidFrom(t *testing.T, path string) int {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		b, err := os.ReadFile(path)
		if pid, perr := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && perr == nil && pid > 0 {
			return pid
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("no pid in %s", path)
	return 0
}

// processAlive reports whether pid runs (a zombie counts as gone).
func processAlive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 && i+2 < len(s) {
		return s[i+2] != 'Z'
	}
	return true
}

func expectGone(t *testing.T, what string, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) {
		if time.Now().After(deadline) {
			syscall.Kill(pid, syscall.SIGKILL)
			t.Errorf("%s (pid %d) outlived the gate", what, pid)
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// spawningImpl is an implementation command that records its own pid and
// starts a grandchild (recording its pid) before becoming impl.
func spawningImpl(dir, impl string) (cmd, leader, grandchild string) {
	leader, grandchild = filepath.Join(dir, "leader.pid"), filepath.Join(dir, "grandchild.pid")
	cmd = "echo $$ > " + shQuote(leader) + "; sleep 300 & echo $! > " + shQuote(grandchild) + "; exec " + impl
	return cmd, leader, grandchild
}

func TestCutShort(t *testing.T) {
	gate := buildTool(t, "tools/scattercheck")
	mb := buildTool(t, "tools/adapters/misbehave")
	slow := shQuote(mb) + " -mode slow -every 1 -delay 300ms"
	for _, c := range []struct {
		name   string
		impl   string
		args   []string
		signal syscall.Signal // 0: -deadline cuts it
		after  time.Duration
		judged bool // some cases were judged before the cut
		reason string
	}{
		// (5 s: time enough for a loaded machine to judge a case or two)
		{"SIGTERM, slow answers", slow, nil, syscall.SIGTERM, 5 * time.Second, true, "interrupted by SIGTERM"},
		{"SIGINT, slow answers", slow, nil, syscall.SIGINT, 5 * time.Second, true, "interrupted by SIGINT"},
		{"SIGHUP, slow answers", slow, nil, syscall.SIGHUP, 5 * time.Second, true, "interrupted by SIGHUP"},
		{"SIGTERM, no hello", "sleep 301", nil, syscall.SIGTERM, time.Second, false, "interrupted by SIGTERM"},
		{"-deadline", slow, []string{"-deadline", "5s"}, 0, 0, true, "-deadline of 5s was reached"},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			impl, leaderFile, gcFile := spawningImpl(dir, c.impl)
			js, ju := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.xml")
			args := append([]string{"-impl", impl, "-ops", "gather", "-json", js, "-junit", ju, "-progress", "500ms"}, c.args...)
			cmd := exec.Command(gate, args...)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer cmd.Process.Kill()
			leader, gc := pidFrom(t, leaderFile), pidFrom(t, gcFile)
			if c.signal != 0 {
				time.Sleep(c.after)
				if c.judged {
					// the reports are written as the run goes
					if _, err := os.Stat(js); err != nil {
						t.Errorf("no JSON report while the run goes: %v", err)
					}
				}
				cmd.Process.Signal(c.signal)
			}
			waited := make(chan error, 1)
			go func() { waited <- cmd.Wait() }()
			select {
			case <-waited:
			case <-time.After(30 * time.Second):
				t.Fatalf("the gate did not end\n%s%s", out.String(), errb.String())
			}
			if code := cmd.ProcessState.ExitCode(); code == 0 || code == -1 {
				t.Errorf("exit %d, want a failure", code)
			}
			expectGone(t, "the implementation", leader)
			expectGone(t, "its grandchild", gc)
			if !strings.Contains(out.String(), "INCOMPLETE: "+c.reason) && !strings.Contains(out.String(), "INCOMPLETE: the "+c.reason) {
				t.Errorf("the summary does not say %q:\n%s", c.reason, tailOf(out.String(), 2000))
			}
			if strings.Contains(out.String(), "PASS: conforms") {
				t.Error("a run cut short reads as a pass")
			}
			r := readJSONReport(t, js)
			var meta struct {
				Complete   bool   `json:"complete"`
				Incomplete string `json:"incomplete"`
			}
			readJSONInto(t, js, &meta)
			if meta.Complete || !strings.Contains(meta.Incomplete, c.reason) || r.Conforms {
				t.Errorf("the JSON report: complete %v, incomplete %q, conforms %v", meta.Complete, meta.Incomplete, r.Conforms)
			}
			judged, incomplete := 0, false
			for _, run := range r.Runs {
				for _, cs := range run.Cases {
					switch {
					case cs.ID == "gate/incomplete":
						incomplete = cs.Status == "fail"
					case cs.Status != "skip":
						judged++
					}
					if cs.Failure != nil && cs.Failure.Kind == "closed" {
						t.Errorf("%s: a case cut in flight is in the report", cs.ID)
					}
				}
			}
			if !incomplete {
				t.Error("no failing gate/incomplete case in the JSON report")
			}
			if c.judged && judged == 0 {
				t.Errorf("no case judged in the report\n%s", tailOf(out.String(), 2000))
			}
			if b, err := os.ReadFile(ju); err != nil || !bytes.Contains(b, []byte("gate/incomplete")) {
				t.Errorf("the JUnit report lacks gate/incomplete (%v)", err)
			}
			if c.judged && !strings.Contains(errb.String(), "cases done") {
				t.Errorf("no progress line on stderr:\n%s", tailOf(errb.String(), 2000))
			}
		})
	}
}

func readJSONInto(t *testing.T, path string, v any) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s does not parse: %v", path, err)
	}
}

// TestProgressLines: off a terminal, plain lines with the cases judged,
// the failures, the time elapsed and the estimate, and once a long run
// is foreseen, a line that says so; on a terminal, one live line.
func TestProgressLines(t *testing.T) {
	for _, tty := range []bool{false, true} {
		cfg := parseConfig(t, "-impl", "x", "-ops", "gather", "-progress", "30s")
		var out bytes.Buffer
		s := newSession(cfg, nil, &out)
		s.tty = tty
		s.t0 = time.Now().Add(-40 * time.Second)
		r := newRunReport(cfg, cfg.profiles[0], implInfo{Name: "slow"})
		s.addRun(r, false)
		for i := 0; i < 20; i++ {
			s.add(r, &caseResult{ID: fmt.Sprint("spec/", i), Source: suiteSpec, Status: stPass})
			s.countRequest()
		}
		s.add(r, &caseResult{ID: "spec/x", Source: suiteSpec, Status: stFail})
		s.countRequest()
		// 21 requests in 40 s: the random pairs (10 × 100 calls) and the
		// properties alone need hours
		s.printProgress(time.Now())
		got := out.String()
		for _, want := range []string{"spec: 21 of about", "cases done, 1 failed, 40s elapsed", "left", "this is a long run: about"} {
			if !strings.Contains(got, want) {
				t.Errorf("tty %v: no %q in %q", tty, want, got)
			}
		}
		if tty != strings.Contains(got, "\r\033[K") {
			t.Errorf("tty %v: %q", tty, got)
		}
		out.Reset()
		s.printProgress(time.Now())
		if strings.Contains(out.String(), "long run") {
			t.Error("the long run is said twice")
		}
		if left, ok := s.estimate(time.Now()); !ok || left < time.Hour {
			t.Errorf("estimate %v, %v", left, ok)
		}
	}
	// off a terminal the first line comes within 10 s, then every -progress
	cfg := parseConfig(t, "-progress", "30s")
	s := newSession(cfg, nil, io.Discard)
	now := s.t0
	if s.dueProgress(now.Add(5*time.Second), time.Time{}) || !s.dueProgress(now.Add(10*time.Second), time.Time{}) {
		t.Error("the first progress line is not due at 10 s")
	}
	if s.dueProgress(now.Add(39*time.Second), now.Add(10*time.Second)) || !s.dueProgress(now.Add(40*time.Second), now.Add(10*time.Second)) {
		t.Error("progress lines are not due every 30 s")
	}
}
