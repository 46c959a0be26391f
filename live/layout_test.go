package live

import (
	"errors"
	"sync/atomic"
	"testing"

	"pgregory.net/rapid"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/callgen"
	"github.com/scatterconf/scatter/fixtures"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/reference"
)

// layoutOps are the operations PyTorch 2's expanded-index path serves, and
// index_reduce, whose 16-bit prod crashes on a stride-0 source.
var layoutOps = []scatter.Op{scatter.OpScatterAdd, scatter.OpScatterReduce, scatter.OpGather, scatter.OpScatter, scatter.OpIndexReduce}

// TestLayoutViews checks reference.LayoutFree against each live PyTorch:
// calls whose index is laid out as graph libraries expand one
// (callgen.ExpandedIndexCall, the layout of PyTorch 2's expanded-index
// path) go to PyTorch once as views and once as their contiguous copies.
// Where LayoutFree passes a call, the view must be answered as the copy
// is: both judged by the oracle at the strict level under the version's
// profile, which answers the copy. The calls LayoutFree holds back are
// counted, with how many of them this torch answered otherwise; a rule
// that passed them all would fail here on torch 2.14 (PROFILES.md,
// "Views"). A fifth of the live budget (SCATTER_LIVE_CHECKS), a fifth of
// that under -short.
func TestLayoutViews(t *testing.T) {
	for _, tg := range targets() {
		t.Run(tg.name, func(t *testing.T) { layoutViews(t, tg) })
	}
}

func layoutViews(t *testing.T, tg *target) {
	plain, views := tg.start(t), tg.startViews(t)
	info := plain.Info()
	if !views.Extensions().Strides {
		t.Fatalf("the PyTorch adapter does not claim the strides extension")
	}
	prof, _ := scatter.ProfileFor(info.Version)
	n := max(budget(t)/5, 1)
	if testing.Short() {
		n = max(n/5, 1)
	}
	var tied, differed, crashed atomic.Int64
	for _, op := range layoutOps {
		t.Run(string(op), func(t *testing.T) {
			if !userChecks() {
				setRapidChecks(t, max(n/len(layoutOps), 1))
			}
			rapid.Check(t, func(rt *rapid.T) {
				call := callgen.New(callgen.Rapid(rt), callgen.Options{Profile: prof}).ExpandedIndexCall(op)
				resV, errV := views.Run(call)
				resC, errC := plain.Run(call)
				if viewCrash, copyCrash := fixtures.IsCrash(errV), fixtures.IsCrash(errC); viewCrash || copyCrash {
					if _, ok := fixtures.KnownCrash(info.Version, call); ok {
						if viewCrash && !copyCrash && reference.LayoutFree(call) {
							rt.Fatalf("PyTorch %s crashes on the views, not on their contiguous copy, of a call reference.LayoutFree passes: %v\n%s",
								info.Version, errV, reportAs(true, call, resV, errV))
						}
						crashed.Add(1)
						return
					}
				}
				for _, o := range []struct {
					views bool
					res   scatter.Result
					err   error
				}{{true, resV, errV}, {false, resC, errC}} {
					var pe *protocol.ProcessError
					if errors.As(o.err, &pe) {
						rt.Fatalf("the PyTorch adapter failed: %v\n%s", o.err, reportAs(o.views, call, o.res, o.err))
					}
				}
				copyErr := reference.Judge(call, prof, scatter.Strict, resC, errC)
				viewErr := reference.Judge(call, prof, scatter.Strict, resV, errV)
				if !reference.LayoutFree(call) {
					tied.Add(1)
					if copyErr == nil && viewErr != nil {
						differed.Add(1)
					}
					return
				}
				if copyErr != nil {
					rt.Fatalf("PyTorch %s and the oracle disagree on the contiguous copy (profile %v, strict):\n%v\n%s",
						info.Version, prof, copyErr, Report(call, resC, errC))
				}
				if viewErr != nil {
					rt.Fatalf("PyTorch %s answers the views otherwise than their contiguous copy, on a call reference.LayoutFree passes "+
						"(profile %v, strict):\n%v\nthe views: %s", info.Version, prof, viewErr, reportAs(true, call, resV, errV))
				}
			})
		})
	}
	t.Logf("torch %s: %d calls held back by reference.LayoutFree, %d of them answered otherwise than their copies; %d known crashes",
		info.Version, tied.Load(), differed.Load(), crashed.Load())
}
