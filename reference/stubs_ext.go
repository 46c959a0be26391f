package reference

import "github.com/scatterconf/scatter"

// Temporary stubs, replaced by torch_scatter.go and fsharp.go.

func planTorchScatterAdd(c scatter.TorchScatterAdd, prof scatter.Profile) (*plan, errs) {
	return nil, notYet()
}
func planTorchScatter(c scatter.TorchScatter, prof scatter.Profile) (*plan, errs) {
	return nil, notYet()
}
func planTensorScatter(c scatter.TensorScatter, prof scatter.Profile) (*plan, errs) {
	return nil, notYet()
}
func planTensorGather(c scatter.TensorGather, prof scatter.Profile) (*plan, errs) {
	return nil, notYet()
}

func notYet() errs {
	var e errs
	e.add(scatter.ErrNotSupported, "not yet written")
	return e
}
