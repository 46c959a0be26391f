// Package live checks the oracle against live PyTorch (live_test.go):
// random calls of all nine operations, drawn by callgen's combination
// generator, answered by the PyTorch adapter through the protocol and
// judged by the reference at the strict level. rapid shrinks a
// disagreement to a minimal call, printed as a protocol line and a
// PyTorch snippet. It skips, saying why, where no Python here imports
// torch.
package live
