// Package reference is the oracle of the scatter suite: a slow, obviously
// correct implementation of every operation (New), and the judge that says
// which outcomes of a call conform (Expect).
//
// Every call is first validated in PyTorch's order and normalised into a
// plan (plan.go): the output's initial values, the source values, and for
// every output element the contributions it receives in canonical order
// (increasing position along dim, self first). The backend folds the plan
// in that order with the profile's rounding (fold.go); the judge derives
// from the same plan the exact result and the bounds any correct
// implementation must meet (judge.go, bounds.go).
package reference
