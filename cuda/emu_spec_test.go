//go:build linux

package cuda

import (
	"fmt"
	"sync"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/spec"
)

// The spec through the emulated device, both profiles, the atomic mode at
// the conformant level and the deterministic mode at the strict level.
var (
	_ = spec.DescribeBackend(spec.Target{Backend: newLazyEmu(scatter.Torch2, config{}), Profile: scatter.Torch2})
	_ = spec.DescribeBackend(spec.Target{Backend: newLazyEmu(scatter.Torch113, config{}), Profile: scatter.Torch113})
	_ = spec.DescribeBackend(spec.Target{Backend: newLazyEmu(scatter.Torch2, config{deterministic: true}), Profile: scatter.Torch2})
	_ = spec.DescribeBackend(spec.Target{Backend: newLazyEmu(scatter.Torch113, config{deterministic: true}), Profile: scatter.Torch113})
)

// lazyEmu is the backend on the emulated device, built on first use (the
// specs are registered before any test runs). Without a C++ compiler it is
// unavailable, and the suites skip it with that reason; a library that
// fails to build fails every spec with the compiler's message.
type lazyEmu struct {
	prof scatter.Profile
	cfg  config
	muts []mutation
	once sync.Once
	b    *backend
	why  string
}

func newLazyEmu(p scatter.Profile, cfg config, muts ...mutation) *lazyEmu {
	return &lazyEmu{prof: p, cfg: cfg, muts: muts}
}

func (l *lazyEmu) get() (*backend, string) {
	l.once.Do(func() { l.b, l.why = emuBackend(l.prof, l.cfg, l.muts...) })
	return l.b, l.why
}

func (l *lazyEmu) Info() scatter.Info {
	mode := "atomic"
	if l.cfg.deterministic {
		mode = "deterministic"
	}
	info := scatter.Info{Name: "cuda-emu", Version: fmt.Sprintf("emulated device, %s, %v", mode, l.prof),
		Deterministic: l.cfg.deterministic}
	if _, why := gxx(); why != "" {
		info.Unavailable = why
	}
	return info
}

func (l *lazyEmu) Run(c scatter.Call) (scatter.Result, error) {
	b, why := l.get()
	if b == nil || b.dev == nil {
		return scatter.Result{}, fmt.Errorf("the emulated device is not available: %s", why)
	}
	return b.Run(c)
}
