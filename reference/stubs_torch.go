package reference

import "github.com/scatterconf/scatter"

// Temporary stubs, replaced by scatter.go, index_reduce.go, gather.go, fold.go.

func planScatter(c scatter.Scatter, prof scatter.Profile) (*plan, errs)       { return nil, notYet() }
func planScatterAdd(c scatter.ScatterAdd, prof scatter.Profile) (*plan, errs) { return nil, notYet() }
func planScatterReduce(c scatter.ScatterReduce, prof scatter.Profile) (*plan, errs) {
	return nil, notYet()
}
func planIndexReduce(c scatter.IndexReduce, prof scatter.Profile) (*plan, errs) { return nil, notYet() }
func planGather(c scatter.Gather, prof scatter.Profile) (*plan, errs)           { return nil, notYet() }
func (p *plan) fold() scatter.Result                                            { return scatter.Result{} }

func notYet() errs {
	var e errs
	e.add(scatter.ErrNotSupported, "not yet written")
	return e
}
