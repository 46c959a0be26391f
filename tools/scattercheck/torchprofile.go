package main

import (
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/fixtures"
	"github.com/scatterconf/scatter/protocol"
)

// torchNotes are what the gate says about the profile of an implementation
// that is PyTorch itself (the PyTorch adapter's hello is named "torch", or
// "torch+torch_scatter-<version>", with torch.__version__ as its version).
type torchNotes struct {
	mu       sync.Mutex
	notes    []string // said once, before the reports
	warnings []string // also in the reports
}

func (n *torchNotes) add(warn bool, format string, args ...any) {
	if n == nil {
		return
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	if warn {
		n.warnings = append(n.warnings, fmt.Sprintf(format, args...))
	} else {
		n.notes = append(n.notes, fmt.Sprintf(format, args...))
	}
}

func (n *torchNotes) take() (notes, warnings []string) {
	if n == nil {
		return nil, nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.notes, n.warnings
}

// isTorch reports whether an implementation's hello names PyTorch.
func isTorch(info scatter.Info) bool {
	return info.Name == "torch" || strings.HasPrefix(info.Name, "torch+")
}

// torchProfiles returns the profiles to judge the implementation under:
// for PyTorch itself with no -profile given, the profile of its version
// (scatter.ProfileFor); otherwise those asked for, with a warning for each
// that is not its version's.
func torchProfiles(info scatter.Info, asked []scatter.Profile, given bool, n *torchNotes) []scatter.Profile {
	if !isTorch(info) {
		return asked
	}
	p, verified := scatter.ProfileFor(info.Version)
	nearest := ""
	if !verified {
		nearest = fmt.Sprintf(" (torch %s is not one of the versions the profiles were verified against; %v has the nearest rules)", info.Version, p)
	}
	if !given {
		n.add(false, "the implementation is torch %s: judged under its profile, %v%s; -profile chooses another", info.Version, p, nearest)
		return []scatter.Profile{p}
	}
	for _, q := range asked {
		if q != p {
			n.add(true, "the implementation is torch %s, whose profile is %v, not %v%s: run with -profile %v to judge it by its own version", info.Version, p, q, nearest, p)
		}
	}
	return asked
}

// knownCrashes remembers, for an implementation that is torch, the
// answers that were crashes listed in fixtures.Crashes for its version:
// PyTorch's bugs, which the gate reports as such instead of failures of
// the implementation. Any other implementation's crashes fail it.
type knownCrashes struct {
	version string // torch.__version__; "" when the implementation is not torch
	hits    []crashHit
}

// crashHit is a known crash seen in one answer: the text by which a
// failure report names that answer, and the crash.
type crashHit struct {
	needle string
	crash  fixtures.Crash
}

// saw records err, the answer to call c, when it is a known crash.
func (k *knownCrashes) saw(c scatter.Call, err error) bool {
	if k.version == "" || !fixtures.IsCrash(err) {
		return false
	}
	kc, ok := fixtures.KnownCrash(k.version, c)
	if !ok {
		return false
	}
	needle := err.Error()
	var pe *protocol.ProcessError
	if errors.As(err, &pe) {
		needle = fmt.Sprintf("request %d (", pe.ID)
	}
	k.hits = append(k.hits, crashHit{needle: needle, crash: kc})
	return true
}

// excuse turns a failed case whose report names a known crash into an
// expected failure that says so.
func (k *knownCrashes) excuse(cr *caseResult) {
	if k.version == "" || cr.Status != stFail || cr.Failure == nil {
		return
	}
	text := cr.Failure.Summary + "\n" + cr.Failure.Report
	for _, h := range k.hits {
		if strings.Contains(text, h.needle) {
			cr.Status = stXfail
			cr.Reason = fmt.Sprintf("a known crash of torch %s (fixtures/crashes.go: %s): %s; PyTorch's bug, whose intended outcome the oracle gives",
				k.version, h.crash.Name, h.crash.When)
			return
		}
	}
}
