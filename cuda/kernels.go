package cuda

import (
	"embed"
	"fmt"
	"io/fs"
	"sort"
	"strings"

	"github.com/scatterconf/scatter"
)

// The kernels, in CUDA C. The files form one translation unit in name
// order; NVRTC compiles it for the device (driver_linux.go) and the tests
// compile it with g++ against emu/cuda_emu.h.
//
//go:embed kernels/*.cu
var kernelFS embed.FS

// kernelSource returns the translation unit: every kernels/*.cu file in
// name order, each preceded by a #line directive naming it.
func kernelSource() string {
	names, err := fs.Glob(kernelFS, "kernels/*.cu")
	if err != nil {
		panic(err) // the pattern is constant
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		data, err := kernelFS.ReadFile(n)
		if err != nil {
			panic(err) // embedded
		}
		fmt.Fprintf(&b, "#line 1 %q\n", n)
		b.Write(data)
		b.WriteString("\n")
	}
	return b.String()
}

// pairName names the (dtype, accumulator) pair of a kernel: "f32", "f16o"
// (float16 with a float32 accumulator), ... (kernels/90_instances.cu).
func pairName(dt scatter.DType, opmath bool) string {
	switch dt {
	case scatter.DTFloat32:
		return "f32"
	case scatter.DTFloat64:
		return "f64"
	case scatter.DTFloat16:
		if opmath {
			return "f16o"
		}
		return "f16"
	case scatter.DTBFloat16:
		if opmath {
			return "bf16o"
		}
		return "bf16"
	case scatter.DTInt64:
		return "i64"
	case scatter.DTInt32:
		return "i32"
	case scatter.DTInt16:
		return "i16"
	case scatter.DTInt8:
		return "i8"
	case scatter.DTUint8:
		return "u8"
	case scatter.DTBool:
		return "b8"
	}
	return "invalid"
}

// widthName names the element-width kernels (gather, fill): "w1" .. "w8".
func widthName(size int) string { return fmt.Sprintf("w%d", size) }

// kernelNames lists every kernel the host may launch, for the tests.
func kernelNames() []string {
	var ns []string
	pairs := []string{"f32", "f64", "f16", "bf16", "f16o", "bf16o", "i64", "i32", "i16", "i8", "u8", "b8"}
	for _, p := range pairs {
		for _, k := range []string{"scatter", "rows", "init", "finalize", "segfold"} {
			ns = append(ns, k+"_"+p)
		}
	}
	for _, p := range []string{"f32", "f64", "f16o", "bf16o", "i64", "i32"} {
		ns = append(ns, "smem_"+p, "warpagg_"+p)
	}
	for _, w := range []int{1, 2, 4, 8} {
		ns = append(ns, "gather_"+widthName(w))
	}
	ns = append(ns, "fill_w4", "fill_w8")
	return append(ns, "probe_atomics")
}
