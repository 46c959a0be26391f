// Package scatter is the contract of the scatter conformance suite: the
// vocabulary that every implementation of the PyTorch scatter family speaks.
//
// It defines the element types (DType, with Float16 and BFloat16 as bit
// types), the strided Tensor view, one argument struct per operation (each a
// Call, whose zero value is PyTorch's defaults), the Backend interface that
// implementations satisfy, the Error codes that match the line protocol's
// error kinds, and the Profile that pins which PyTorch version's behaviour is
// the truth.
//
// The implementations live elsewhere: reference (the slow, obviously correct
// oracle and the judge), optimized (a fast CPU backend) and cuda. The suites
// that check any Backend are spec (documented examples and shape rules) and
// properties (randomised checks against the oracle).
package scatter
