//go:build !unix

package optimized_test

// minFaults and cpuTime read nothing here (no getrusage): the benchmarks
// report zeros for them.
func minFaults() int64 { return 0 }

func cpuTime() int64 { return 0 }
