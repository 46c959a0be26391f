// Package fuzz holds the native Go fuzz targets of the properties
// (properties.FuzzTarget on the reference), one per family:
//
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzScatterFamily$' -fuzztime 5m -fuzzminimizetime 0
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzIndexReduceGather$' -fuzzminimizetime 0
//	go test ./properties/fuzz -run '^$' -fuzz '^FuzzNeighbours$' -fuzzminimizetime 0
//
// They live in a package of their own, whose only test file is the fuzz
// targets in package fuzz itself, because OSS-Fuzz's and ClusterFuzzLite's
// compile_native_go_fuzzer (go-118-fuzz-build) copies every _test.go file
// of the directory into the package: an external test package beside it
// (package properties_test) breaks the build, and helpers from other test
// files are not seen. See package properties for the ClusterFuzzLite
// setup.
package fuzz
