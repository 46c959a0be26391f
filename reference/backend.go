package reference

import "github.com/scatterconf/scatter"

// New returns the reference backend under profile p: every operation and
// dtype, validated in PyTorch's order, folded in the canonical order with
// the profile's rounding. It is deterministic and claims the strict level.
func New(p scatter.Profile) scatter.Backend { return backend{profile: p} }

type backend struct{ profile scatter.Profile }

func (b backend) Info() scatter.Info {
	return scatter.Info{Name: "reference", Version: b.profile.String(), Deterministic: true}
}

// Run validates c, returning the first rule it breaks, or folds its plan.
func (b backend) Run(c scatter.Call) (scatter.Result, error) {
	p, es := planCall(c, b.profile)
	if len(es) > 0 {
		return scatter.Result{}, es[0]
	}
	return p.fold(), nil
}

// planCall validates a call and normalises it into a plan. It returns the
// broken rules (PyTorch's first) instead when there are any.
func planCall(c scatter.Call, prof scatter.Profile) (*plan, errs) {
	switch c := c.(type) {
	case scatter.Scatter:
		return planScatter(c, prof)
	case scatter.ScatterAdd:
		return planScatterAdd(c, prof)
	case scatter.ScatterReduce:
		return planScatterReduce(c, prof)
	case scatter.IndexReduce:
		return planIndexReduce(c, prof)
	case scatter.Gather:
		return planGather(c, prof)
	case scatter.TorchScatterAdd:
		return planTorchScatterAdd(c, prof)
	case scatter.TorchScatter:
		return planTorchScatter(c, prof)
	case scatter.TensorScatter:
		return planTensorScatter(c, prof)
	case scatter.TensorGather:
		return planTensorGather(c, prof)
	}
	var e errs
	e.add(scatter.ErrInvalidArgument, "unknown call type %T", c)
	return nil, e
}
