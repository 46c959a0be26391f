// Package live checks the oracle against live PyTorch (live_test.go):
// random calls of all nine operations, drawn by callgen's combination
// generator, answered by the PyTorch adapter through the protocol and
// judged by the reference at the strict level. rapid shrinks a
// disagreement to a minimal call, printed as a protocol line and a
// PyTorch snippet. layout_test.go checks reference.LayoutFree the same
// way: calls whose index is laid out as PyTorch 2's expanded-index path
// takes one, sent as views and as their copies. It skips, saying why,
// where no Python here imports torch.
package live
