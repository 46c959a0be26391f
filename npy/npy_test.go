package npy_test

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/sbinet/npyio"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/npy"
)

// bitsOf returns the bit patterns of the elements of a valid tensor in
// row-major order, so that NaNs and signed zeros compare exactly.
func bitsOf(t scatter.Tensor) []uint64 {
	pos := t.Positions()
	out := make([]uint64, len(pos))
	for i, p := range pos {
		switch d := t.Data.(type) {
		case []bool:
			if d[p] {
				out[i] = 1
			}
		case []uint8:
			out[i] = uint64(d[p])
		case []int8:
			out[i] = uint64(d[p])
		case []int16:
			out[i] = uint64(d[p])
		case []int32:
			out[i] = uint64(d[p])
		case []int64:
			out[i] = uint64(d[p])
		case []scatter.Float16:
			out[i] = uint64(d[p])
		case []scatter.BFloat16:
			out[i] = uint64(d[p])
		case []float32:
			out[i] = uint64(math.Float32bits(d[p]))
		case []float64:
			out[i] = math.Float64bits(d[p])
		}
	}
	return out
}

// sameTensor reports how got differs from want (shape, dtype, element bits),
// or "". got must be contiguous with a non-nil shape.
func sameTensor(got, want scatter.Tensor) string {
	if err := got.Validate(); err != nil {
		return fmt.Sprintf("invalid: %v", err)
	}
	if got.Shape == nil || got.Strides != nil || got.Offset != 0 {
		return fmt.Sprintf("not contiguous: shape %#v strides %v offset %d", got.Shape, got.Strides, got.Offset)
	}
	if !reflect.DeepEqual(got.Shape, append([]int{}, want.Shape...)) {
		return fmt.Sprintf("shape %v, want %v", got.Shape, want.Shape)
	}
	if got.DType() != want.DType() {
		return fmt.Sprintf("dtype %v, want %v", got.DType(), want.DType())
	}
	if n := scatter.DataLen(got.Data); n != got.NumEl() {
		return fmt.Sprintf("%d data elements for %d", n, got.NumEl())
	}
	if g, w := bitsOf(got), bitsOf(want); !reflect.DeepEqual(g, w) {
		return fmt.Sprintf("elements %x, want %x", g, w)
	}
	return ""
}

// fill returns n elements of dt with assorted bit patterns: extremes,
// negative zeros, infinities, NaNs with payloads, subnormals.
func fill(dt scatter.DType, n int) any {
	data := scatter.MakeData(dt, n)
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < n; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		switch d := data.(type) {
		case []bool:
			d[i] = x&1 == 1
		case []uint8:
			d[i] = uint8(x)
		case []int8:
			d[i] = int8(x)
		case []int16:
			d[i] = int16(x)
		case []int32:
			d[i] = int32(x)
		case []int64:
			d[i] = int64(x)
		case []scatter.Float16:
			d[i] = scatter.Float16(x)
		case []scatter.BFloat16:
			d[i] = scatter.BFloat16(x)
		case []float32:
			d[i] = math.Float32frombits(uint32(x))
		case []float64:
			d[i] = math.Float64frombits(x)
		}
	}
	return data
}

// views returns the tensors of dtype dt that a round trip must survive.
func views(dt scatter.DType) []struct {
	name string
	t    scatter.Tensor
} {
	return []struct {
		name string
		t    scatter.Tensor
	}{
		{"0-d", scatter.Tensor{Shape: []int{}, Data: fill(dt, 1)}},
		{"0-d/offset=5", scatter.Tensor{Shape: []int{}, Offset: 5, Data: fill(dt, 7)}},
		{"shape=[7]", scatter.Tensor{Shape: []int{7}, Data: fill(dt, 7)}},
		{"shape=[2,3]", scatter.Tensor{Shape: []int{2, 3}, Data: fill(dt, 6)}},
		{"shape=[2,3,4]", scatter.Tensor{Shape: []int{2, 3, 4}, Data: fill(dt, 24)}},
		{"shape=[0]", scatter.Tensor{Shape: []int{0}, Data: fill(dt, 0)}},
		{"shape=[2,0,3]", scatter.Tensor{Shape: []int{2, 0, 3}, Data: fill(dt, 0)}},
		{"shape=[0,5]/strided", scatter.Tensor{Shape: []int{0, 5}, Strides: []int{9, 2}, Offset: 3, Data: fill(dt, 4)}},
		{"shape=[3,2]/transposed", scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 3}, Data: fill(dt, 6)}},
		{"shape=[2,2]/strided/offset=3", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{5, 2}, Offset: 3, Data: fill(dt, 11)}},
		{"shape=[3,4]/expanded", scatter.Tensor{Shape: []int{3, 4}, Strides: []int{0, 1}, Offset: 1, Data: fill(dt, 5)}},
		{"shape=[1,1,1]", scatter.Tensor{Shape: []int{1, 1, 1}, Data: fill(dt, 1)}},
	}
}

func TestRoundTrip(t *testing.T) {
	for _, dt := range scatter.DTypes {
		for _, v := range views(dt) {
			t.Run(fmt.Sprintf("%v/%s", dt, v.name), func(t *testing.T) {
				var buf bytes.Buffer
				if err := npy.Write(&buf, v.t); err != nil {
					t.Fatalf("Write: %v", err)
				}
				file := buf.Bytes()
				if start := len(file) - v.t.NumEl()*dt.Size(); start%64 != 0 {
					t.Errorf("the data starts at byte %d, not at a multiple of 64", start)
				}
				got, err := npy.ReadAs(bytes.NewReader(file), dt)
				if err != nil {
					t.Fatalf("ReadAs(%v): %v", dt, err)
				}
				if diff := sameTensor(got, v.t); diff != "" {
					t.Errorf("ReadAs(%v): %s", dt, diff)
				}
				got, err = npy.Read(bytes.NewReader(file))
				if dt == scatter.DTBFloat16 {
					if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
						t.Errorf("Read of a bfloat16 file (<u2) = %v, %v; want invalid_argument", got, err)
					}
					return
				}
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if diff := sameTensor(got, v.t); diff != "" {
					t.Errorf("Read: %s", diff)
				}
			})
		}
	}
}

// TestReadLeavesTheRest checks that Read consumes exactly one file, so files
// can follow each other in a stream.
func TestReadLeavesTheRest(t *testing.T) {
	a := scatter.FromSlice([]float32{1, 2, 3})
	b := scatter.Scalar0D(int64(-4))
	c := scatter.Tensor{Shape: []int{0, 2}, Data: []bool{}}
	var buf bytes.Buffer
	for _, x := range []scatter.Tensor{a, b, c} {
		if err := npy.Write(&buf, x); err != nil {
			t.Fatal(err)
		}
	}
	buf.WriteString("tail")
	for i, want := range []scatter.Tensor{a, b, c} {
		got, err := npy.Read(&buf)
		if err != nil {
			t.Fatalf("file %d: %v", i, err)
		}
		if diff := sameTensor(got, want); diff != "" {
			t.Errorf("file %d: %s", i, diff)
		}
	}
	if buf.String() != "tail" {
		t.Errorf("left %q after the files", buf.String())
	}
}

// numpyHeaders are headers that numpy 1.24.2's np.save wrote, byte for byte
// (see testdata/gen.py for how to make more).
var numpyHeaders = []struct {
	name   string
	t      scatter.Tensor
	header string
}{
	{"float32/shape=(4,)", scatter.FromSlice([]float32{1, 2, 3, 4}),
		"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }                                                            \n"},
	{"float64/shape=()", scatter.Scalar0D(2.5),
		"\x93NUMPY\x01\x00v\x00{'descr': '<f8', 'fortran_order': False, 'shape': (), }                                                              \n"},
	{"float32/shape=(0, 3)", scatter.Tensor{Shape: []int{0, 3}, Data: []float32{}},
		"\x93NUMPY\x01\x00v\x00{'descr': '<f4', 'fortran_order': False, 'shape': (0, 3), }                                                          \n"},
	{"bool/shape=(3,)", scatter.FromSlice([]bool{true, false, true}),
		"\x93NUMPY\x01\x00v\x00{'descr': '|b1', 'fortran_order': False, 'shape': (3,), }                                                            \n"},
	{"int64/shape=(12345678901, 0)", scatter.Tensor{Shape: []int{12345678901, 0}, Data: []int64{}},
		"\x93NUMPY\x01\x00v\x00{'descr': '<i8', 'fortran_order': False, 'shape': (12345678901, 0), }                                                \n"},
	{"uint16/shape=(1,)*32", scatter.Tensor{Shape: []int{1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1}, Data: []scatter.BFloat16{0}},
		"\x93NUMPY\x01\x00\xb6\x00{'descr': '<u2', 'fortran_order': False, 'shape': (1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1), }                                \n"},
}

func TestNumpyHeaders(t *testing.T) {
	for _, c := range numpyHeaders {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := npy.Write(&buf, c.t); err != nil {
				t.Fatal(err)
			}
			got := buf.Bytes()
			if !bytes.HasPrefix(got, []byte(c.header)) || len(got) != len(c.header)+c.t.NumEl()*c.t.DType().Size() {
				t.Errorf("Write wrote\n%q\nnumpy writes the header\n%q", got, c.header)
			}
		})
	}
}

// golden lists the files of testdata, written by numpy (testdata/gen.py),
// with the tensor each holds. exact: Write must reproduce the file.
var golden = []struct {
	file  string
	dt    scatter.DType
	want  scatter.Tensor
	exact bool
}{
	{"bool_2x2.npy", scatter.DTBool, scatter.FromSlice([]bool{true, false, false, true}, 2, 2), true},
	{"uint8_3.npy", scatter.DTUint8, scatter.FromSlice([]uint8{0, 7, 255}), true},
	{"int8_3.npy", scatter.DTInt8, scatter.FromSlice([]int8{-128, 0, 127}), true},
	{"int16_2x2.npy", scatter.DTInt16, scatter.FromSlice([]int16{-32768, 1, 2, 32767}, 2, 2), true},
	{"int32_2x3.npy", scatter.DTInt32, scatter.FromSlice([]int32{-3, -2, -1, 0, 1, 2}, 2, 3), true},
	{"int64_3.npy", scatter.DTInt64, scatter.FromSlice([]int64{math.MinInt64, 1, math.MaxInt64}), true},
	{"float16_0d.npy", scatter.DTFloat16, scatter.Scalar0D(scatter.Float16(0x3e00)), true},
	{"float16_4.npy", scatter.DTFloat16, scatter.FromSlice([]scatter.Float16{0x3c00, 0xc000, 0x7c00, 0x7bff}), true},
	{"float32_2x3.npy", scatter.DTFloat32, scatter.FromSlice([]float32{0, 0.25, 0.5, 0.75, 1, 1.25}, 2, 3), true},
	{"float64_0d.npy", scatter.DTFloat64, scatter.Scalar0D(2.5), true},
	{"float64_2x0x3.npy", scatter.DTFloat64, scatter.Tensor{Shape: []int{2, 0, 3}, Data: []float64{}}, true},
	{"bfloat16_as_uint16_4.npy", scatter.DTBFloat16, scatter.FromSlice([]scatter.BFloat16{0x3f80, 0xc000, 0x7fc0, 0x7f80}), true},
	{"int64_2x3_fortran.npy", scatter.DTInt64, scatter.FromSlice([]int64{0, 1, 2, 3, 4, 5}, 2, 3), false},
	{"int32_2x2_bigendian.npy", scatter.DTInt32, scatter.FromSlice([]int32{1, -2, 3, 65536}, 2, 2), false},
}

func TestGolden(t *testing.T) {
	for _, g := range golden {
		t.Run(g.file, func(t *testing.T) {
			file, err := os.ReadFile(filepath.Join("testdata", g.file))
			if err != nil {
				t.Fatal(err)
			}
			got, err := npy.ReadAs(bytes.NewReader(file), g.dt)
			if err != nil {
				t.Fatalf("ReadAs(%v): %v", g.dt, err)
			}
			if diff := sameTensor(got, g.want); diff != "" {
				t.Errorf("ReadAs(%v): %s", g.dt, diff)
			}
			if g.dt != scatter.DTBFloat16 {
				got, err := npy.Read(bytes.NewReader(file))
				if err != nil {
					t.Fatalf("Read: %v", err)
				}
				if diff := sameTensor(got, g.want); diff != "" {
					t.Errorf("Read: %s", diff)
				}
			}
			if !g.exact {
				return
			}
			var buf bytes.Buffer
			if err := npy.Write(&buf, g.want); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(buf.Bytes(), file) {
				t.Errorf("Write wrote\n%q\nnumpy wrote\n%q", buf.Bytes(), file)
			}
		})
	}
}

// TestNpyioCrossCheck has npyio read what Write writes and Read read what
// npyio writes, for the dtypes and shapes npyio handles.
func TestNpyioCrossCheck(t *testing.T) {
	for _, dt := range scatter.DTypes {
		if dt == scatter.DTFloat16 {
			continue // npyio has no '<f2'
		}
		for _, v := range views(dt) {
			t.Run(fmt.Sprintf("npyio-reads/%v/%s", dt, v.name), func(t *testing.T) {
				var buf bytes.Buffer
				if err := npy.Write(&buf, v.t); err != nil {
					t.Fatal(err)
				}
				r, err := npyio.NewReader(&buf)
				if err != nil {
					t.Fatalf("npyio.NewReader: %v", err)
				}
				h := r.Header.Descr
				if h.Type != npy.Descr(dt) || h.Fortran || len(h.Shape) != len(v.t.Shape) || (len(h.Shape) > 0 && !reflect.DeepEqual(h.Shape, v.t.Shape)) {
					t.Fatalf("npyio read the header %v", r.Header)
				}
				var got scatter.Tensor
				switch dt {
				case scatter.DTBool:
					got = npyioRead[bool](t, r, v.t.Shape)
				case scatter.DTUint8:
					got = npyioRead[uint8](t, r, v.t.Shape)
				case scatter.DTInt8:
					got = npyioRead[int8](t, r, v.t.Shape)
				case scatter.DTInt16:
					got = npyioRead[int16](t, r, v.t.Shape)
				case scatter.DTInt32:
					got = npyioRead[int32](t, r, v.t.Shape)
				case scatter.DTInt64:
					got = npyioRead[int64](t, r, v.t.Shape)
				case scatter.DTBFloat16:
					u := npyioRead[uint16](t, r, v.t.Shape)
					bf := make([]scatter.BFloat16, len(u.Data.([]uint16)))
					for i, x := range u.Data.([]uint16) {
						bf[i] = scatter.BFloat16(x)
					}
					got = scatter.Tensor{Shape: u.Shape, Data: bf}
				case scatter.DTFloat32:
					got = npyioRead[float32](t, r, v.t.Shape)
				case scatter.DTFloat64:
					got = npyioRead[float64](t, r, v.t.Shape)
				}
				if diff := sameTensor(got, v.t); diff != "" {
					t.Errorf("npyio read %s", diff)
				}
			})
		}
	}
	for _, c := range []struct {
		name string
		val  any
		want scatter.Tensor
	}{
		{"[]float64", []float64{1.5, math.Inf(-1), math.Copysign(0, -1)}, scatter.FromSlice([]float64{1.5, math.Inf(-1), math.Copysign(0, -1)})},
		{"[]float32", []float32{1, 2}, scatter.FromSlice([]float32{1, 2})},
		{"[]int64", []int64{math.MinInt64, 0}, scatter.FromSlice([]int64{math.MinInt64, 0})},
		{"[]int32", []int32{-1}, scatter.FromSlice([]int32{-1})},
		{"[]int16", []int16{-1, 300}, scatter.FromSlice([]int16{-1, 300})},
		{"[]int8", []int8{-1, 100}, scatter.FromSlice([]int8{-1, 100})},
		{"[]uint8", []uint8{255, 0}, scatter.FromSlice([]uint8{255, 0})},
		{"[]bool", []bool{true, false}, scatter.FromSlice([]bool{true, false})},
		{"[]bool/empty", []bool{}, scatter.FromSlice([]bool{})},
		{"int64/0-d", int64(-7), scatter.Scalar0D(int64(-7))},
		{"float32/0-d", float32(0.5), scatter.Scalar0D(float32(0.5))},
	} {
		t.Run("reads-npyio/"+c.name, func(t *testing.T) {
			var buf bytes.Buffer
			if err := npyio.Write(&buf, c.val); err != nil {
				t.Fatal(err)
			}
			got, err := npy.Read(&buf)
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if diff := sameTensor(got, c.want); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func npyioRead[T any](t *testing.T, r *npyio.Reader, shape []int) scatter.Tensor {
	t.Helper()
	var data []T
	if err := r.Read(&data); err != nil {
		t.Fatalf("npyio Read: %v", err)
	}
	if data == nil {
		data = []T{}
	}
	return scatter.Tensor{Shape: shape, Data: data}
}

// hdr builds a version 1.0 file around a header dict.
func hdr(dict string, data ...byte) []byte {
	b := []byte("\x93NUMPY\x01\x00")
	dict += "\n"
	b = binary.LittleEndian.AppendUint16(b, uint16(len(dict)))
	b = append(b, dict...)
	return append(b, data...)
}

// hdrV builds a file of the given major version around a header dict.
func hdrV(major byte, dict string, data ...byte) []byte {
	b := []byte{0x93, 'N', 'U', 'M', 'P', 'Y', major, 0}
	dict += "\n"
	b = binary.LittleEndian.AppendUint32(b, uint32(len(dict)))
	b = append(b, dict...)
	return append(b, data...)
}

func f4(vals ...float32) []byte {
	var b []byte
	for _, v := range vals {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(v))
	}
	return b
}

// TestReadAccepts checks header variants numpy writes or accepts.
func TestReadAccepts(t *testing.T) {
	one := scatter.FromSlice([]float32{1})
	for _, c := range []struct {
		name string
		file []byte
		want scatter.Tensor
	}{
		{"keys-reordered", hdr("{'shape': (1,), 'fortran_order': False, 'descr': '<f4'}", f4(1)...), one},
		{"double-quotes", hdr(`{"descr": "<f4", "fortran_order": False, "shape": (1,)}`, f4(1)...), one},
		{"no-spaces", hdr("{'descr':'<f4','fortran_order':False,'shape':(1,)}", f4(1)...), one},
		{"trailing-comma-and-spaces", hdr("  {'descr': '<f4', 'fortran_order': False, 'shape': (1, ), }   ", f4(1)...), one},
		{"python2-long", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1L,), }", f4(1)...), one},
		{"shape-trailing-comma", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (1, 1,), }", f4(1)...), scatter.FromSlice([]float32{1}, 1, 1)},
		{"version=2.0", hdrV(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4(1)...), one},
		{"version=3.0", hdrV(3, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4(1)...), one},
		{"fortran/0-d", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (), }", f4(3)...), scatter.Scalar0D(float32(3))},
		{"fortran/1-d", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2,), }", f4(3, 4)...), scatter.FromSlice([]float32{3, 4})},
		{"fortran/zero-size", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 0), }"), scatter.Tensor{Shape: []int{2, 0}, Data: []float32{}}},
		{"fortran/2x3", hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f4(1, 4, 2, 5, 3, 6)...), scatter.FromSlice([]float32{1, 2, 3, 4, 5, 6}, 2, 3)},
		{"fortran/2x2x2", hdr("{'descr': '|i1', 'fortran_order': True, 'shape': (2, 2, 2), }", 0, 4, 2, 6, 1, 5, 3, 7), scatter.FromSlice([]int8{0, 1, 2, 3, 4, 5, 6, 7}, 2, 2, 2)},
		{"big-endian/f8", hdr("{'descr': '>f8', 'fortran_order': False, 'shape': (1,), }", 0x3f, 0xf8, 0, 0, 0, 0, 0, 0), scatter.FromSlice([]float64{1.5})},
		{"big-endian/f2", hdr("{'descr': '>f2', 'fortran_order': False, 'shape': (1,), }", 0x3c, 0x00), scatter.FromSlice([]scatter.Float16{0x3c00})},
		{"<b1", hdr("{'descr': '<b1', 'fortran_order': False, 'shape': (2,), }", 1, 0), scatter.FromSlice([]bool{true, false})},
		{"extra-data-ignored", hdr("{'descr': '|u1', 'fortran_order': False, 'shape': (1,), }", 9, 8, 7), scatter.FromSlice([]uint8{9})},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := npy.Read(bytes.NewReader(c.file))
			if err != nil {
				t.Fatalf("Read: %v", err)
			}
			if diff := sameTensor(got, c.want); diff != "" {
				t.Error(diff)
			}
		})
	}
	t.Run("ReadAs/bfloat16/from=<i2", func(t *testing.T) {
		got, err := npy.ReadAs(bytes.NewReader(hdr("{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", 0x80, 0x3f, 0xc0, 0x7f)), scatter.DTBFloat16)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameTensor(got, scatter.FromSlice([]scatter.BFloat16{0x3f80, 0x7fc0})); diff != "" {
			t.Error(diff)
		}
	})
	t.Run("ReadAs/float16/from=<u2", func(t *testing.T) {
		got, err := npy.ReadAs(bytes.NewReader(hdr("{'descr': '<u2', 'fortran_order': False, 'shape': (1,), }", 0x00, 0x3c)), scatter.DTFloat16)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameTensor(got, scatter.FromSlice([]scatter.Float16{0x3c00})); diff != "" {
			t.Error(diff)
		}
	})
}

// read calls f, turning a panic into a test failure.
func read(t *testing.T, f func() (scatter.Tensor, error)) (got scatter.Tensor, err error) {
	t.Helper()
	defer func() {
		if r := recover(); r != nil {
			t.Fatalf("panic: %v", r)
		}
	}()
	return f()
}

func TestReadRejects(t *testing.T) {
	good := hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)
	huge := binary.LittleEndian.AppendUint32([]byte("\x93NUMPY\x02\x00"), 0xffffffff)
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"empty", nil},
		{"magic/short", []byte("\x93NUM")},
		{"magic/wrong", []byte("\x93NUMPX\x01\x00\x10\x00")},
		{"magic/zip", []byte("PK\x03\x04\x14\x00\x00\x00")},
		{"version=1.1", []byte("\x93NUMPY\x01\x01\x10\x00")},
		{"version=4.0", []byte("\x93NUMPY\x04\x00\x10\x00\x00\x00")},
		{"version=0.0", []byte("\x93NUMPY\x00\x00\x10\x00")},
		{"header-length/missing", []byte("\x93NUMPY\x01\x00\x10")},
		{"header-length/v2/missing", []byte("\x93NUMPY\x02\x00\x10\x00")},
		{"header-length/v2/4GiB", huge},
		{"header-length/v2/over-limit", binary.LittleEndian.AppendUint32([]byte("\x93NUMPY\x02\x00"), 1<<16+1)},
		{"header/truncated", good[:40]},
		{"header/length-past-end", []byte("\x93NUMPY\x01\x00\xff\xff{'descr': '<f4'")},
		{"header/empty", hdr("")},
		{"header/not-a-dict", hdr("['descr', '<f4']")},
		{"header/unterminated-dict", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), ")},
		{"header/missing-descr", hdr("{'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/missing-shape", hdr("{'descr': '<f4', 'fortran_order': False, }", f4(1, 2, 3, 4)...)},
		{"header/missing-fortran_order", hdr("{'descr': '<f4', 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/extra-key", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), 'x': 1, }", f4(1, 2, 3, 4)...)},
		{"header/duplicate-key", hdr("{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/unquoted-key", hdr("{descr: '<f4', 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/no-colon", hdr("{'descr' '<f4', 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/no-comma", hdr("{'descr': '<f4' 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/unterminated-string", hdr("{'descr': '<f4, 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"header/escape", hdr(`{'descr': '<f\4', 'fortran_order': False, 'shape': (4,), }`, f4(1, 2, 3, 4)...)},
		{"header/garbage-after", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), } x", f4(1, 2, 3, 4)...)},
		{"header/nul", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }\x00", f4(1, 2, 3, 4)...)},
		{"fortran_order/maybe", hdr("{'descr': '<f4', 'fortran_order': Maybe, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"fortran_order/Truer", hdr("{'descr': '<f4', 'fortran_order': Truer, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"fortran_order/1", hdr("{'descr': '<f4', 'fortran_order': 1, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"shape/list", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': [4], }", f4(1, 2, 3, 4)...)},
		{"shape/int", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': 4, }", f4(1, 2, 3, 4)...)},
		{"shape/parenthesized-int", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4), }", f4(1, 2, 3, 4)...)},
		{"shape/negative", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (-4,), }", f4(1, 2, 3, 4)...)},
		{"shape/float", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4.0,), }", f4(1, 2, 3, 4)...)},
		{"shape/empty-element", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (,), }", f4(1, 2, 3, 4)...)},
		{"shape/double-comma", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2,,2), }", f4(1, 2, 3, 4)...)},
		{"shape/no-comma", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2 2), }", f4(1, 2, 3, 4)...)},
		{"shape/unterminated", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 2", f4(1, 2, 3, 4)...)},
		{"shape/int-overflow", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", f4(1, 2, 3, 4)...)},
		{"shape/product-overflow", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': (4294967296, 4294967296), }", f4(1, 2, 3, 4)...)},
		{"shape/bytes-overflow", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (2305843009213693952,), }", f4(1, 2, 3, 4)...)},
		{"shape/65-dims", hdr("{'descr': '<f4', 'fortran_order': False, 'shape': ("+strings.Repeat("1, ", 65)+"), }", f4(1)...)},
		{"descr/complex", hdr("{'descr': '<c8', 'fortran_order': False, 'shape': (2,), }", f4(1, 2, 3, 4)...)},
		{"descr/uint32", hdr("{'descr': '<u4', 'fortran_order': False, 'shape': (4,), }", f4(1, 2, 3, 4)...)},
		{"descr/uint64", hdr("{'descr': '<u8', 'fortran_order': False, 'shape': (2,), }", f4(1, 2, 3, 4)...)},
		{"descr/uint16", hdr("{'descr': '<u2', 'fortran_order': False, 'shape': (2,), }", f4(1)...)},
		{"descr/string", hdr("{'descr': '<U4', 'fortran_order': False, 'shape': (1,), }", f4(1, 2, 3, 4)...)},
		{"descr/object", hdr("{'descr': '|O', 'fortran_order': False, 'shape': (1,), }", f4(1, 2)...)},
		{"descr/f16", hdr("{'descr': '<f16', 'fortran_order': False, 'shape': (1,), }", f4(1, 2, 3, 4)...)},
		{"descr/pipe-f4", hdr("{'descr': '|f4', 'fortran_order': False, 'shape': (1,), }", f4(1)...)},
		{"descr/native", hdr("{'descr': '=f4', 'fortran_order': False, 'shape': (1,), }", f4(1)...)},
		{"descr/name", hdr("{'descr': 'float32', 'fortran_order': False, 'shape': (1,), }", f4(1)...)},
		{"descr/b2", hdr("{'descr': '|b2', 'fortran_order': False, 'shape': (1,), }", 1, 0)},
		{"descr/structured", hdr("{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (1,), }", f4(1)...)},
		{"descr/not-a-string", hdr("{'descr': 4, 'fortran_order': False, 'shape': (1,), }", f4(1)...)},
		{"data/truncated", good[:len(good)-1]},
		{"data/one-element-short", good[:len(good)-4]},
		{"data/missing", good[:len(good)-16]},
		{"data/huge-claim", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", f4(1, 2, 3, 4)...)},
		{"data/huge-claim/fortran", hdr("{'descr': '|u1', 'fortran_order': True, 'shape': (1048576, 1048576), }", 1, 2, 3)},
		{"data/0-d/missing", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (), }")},
		{"bool/byte=2", hdr("{'descr': '|b1', 'fortran_order': False, 'shape': (2,), }", 1, 2)},
		{"bool/byte=255", hdr("{'descr': '|b1', 'fortran_order': False, 'shape': (1,), }", 255)},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := read(t, func() (scatter.Tensor, error) { return npy.Read(bytes.NewReader(c.file)) })
			checkRejected(t, got, err)
		})
	}
}

func checkRejected(t *testing.T, got scatter.Tensor, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("accepted: %v", got)
	}
	var e *scatter.Error
	if !errors.As(err, &e) || e.Code != scatter.ErrInvalidArgument {
		t.Fatalf("error %#v is not an *scatter.Error with code invalid_argument", err)
	}
	if !strings.HasPrefix(e.Msg, "npy: ") {
		t.Errorf("message %q does not say npy", e.Msg)
	}
	if !got.IsZero() {
		t.Errorf("returned %v with the error", got)
	}
	t.Log(err)
}

func TestReadAsRejects(t *testing.T) {
	file := func(descr string, data ...byte) []byte {
		return hdr("{'descr': '"+descr+"', 'fortran_order': False, 'shape': (1,), }", data...)
	}
	for _, c := range []struct {
		name string
		file []byte
		dt   scatter.DType
	}{
		{"<f4-as-int32", file("<f4", 0, 0, 0, 0), scatter.DTInt32},
		{"<f2-as-bfloat16", file("<f2", 0, 0x3c), scatter.DTBFloat16},
		{"<u2-as-int16", file("<u2", 0, 0), scatter.DTInt16},
		{"<i2-as-float32", file("<i2", 0, 0), scatter.DTFloat32},
		{"<u1-as-bool", file("|u1", 1), scatter.DTBool},
		{"<i4-as-bfloat16", file("<i4", 0, 0, 0, 0), scatter.DTBFloat16},
		{"as-invalid", file("<f4", 0, 0, 0, 0), scatter.DTInvalid},
		{"as-DType(99)", file("<f4", 0, 0, 0, 0), scatter.DType(99)},
		{"bfloat16/truncated", file("<u2", 0), scatter.DTBFloat16},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := read(t, func() (scatter.Tensor, error) { return npy.ReadAs(bytes.NewReader(c.file), c.dt) })
			checkRejected(t, got, err)
		})
	}
}

// allocated returns the bytes f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// TestReadBoundedAllocation checks that a claimed size costs nothing until
// the data is there.
func TestReadBoundedAllocation(t *testing.T) {
	for _, c := range []struct {
		name string
		file []byte
	}{
		{"shape=(2^40,)/f8/16-bytes", hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", f4(1, 2, 3, 4)...)},
		{"shape=(2^20,2^20)/fortran/3-bytes", hdr("{'descr': '|u1', 'fortran_order': True, 'shape': (1048576, 1048576), }", 1, 2, 3)},
		{"header=4GiB", binary.LittleEndian.AppendUint32([]byte("\x93NUMPY\x02\x00"), 0xffffffff)},
		{"header=64KiB/absent", []byte("\x93NUMPY\x01\x00\xff\xff{")},
	} {
		t.Run(c.name, func(t *testing.T) {
			var err error
			n := allocated(func() { _, err = npy.Read(bytes.NewReader(c.file)) })
			if err == nil {
				t.Fatal("accepted")
			}
			if n > 256<<10 {
				t.Errorf("Read allocated %d bytes for a %d-byte file", n, len(c.file))
			}
		})
	}
	t.Run("stream/endless", func(t *testing.T) {
		// A reader that never ends: Read must still stop, at the claim.
		// Here the claim is small enough to read: 1 MiB of zeros.
		file := hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (131072,), }")
		r := io.MultiReader(bytes.NewReader(file), zeros{})
		var got scatter.Tensor
		var err error
		n := allocated(func() { got, err = npy.Read(r) })
		if err != nil || got.NumEl() != 131072 {
			t.Fatalf("Read = %v elements, %v", got.NumEl(), err)
		}
		if n > 8<<20 {
			t.Errorf("Read allocated %d bytes for 1 MiB of data", n)
		}
	})
}

type zeros struct{}

func (zeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}

type failWriter struct{ after int }

func (w *failWriter) Write(p []byte) (int, error) {
	if w.after <= 0 {
		return 0, io.ErrShortWrite
	}
	w.after--
	return len(p), nil
}

func TestWriteErrors(t *testing.T) {
	for _, c := range []struct {
		name string
		t    scatter.Tensor
	}{
		{"no-data", scatter.Tensor{Shape: []int{2}}},
		{"short-data", scatter.Tensor{Shape: []int{3}, Data: []float32{1}}},
		{"go-type=[]int", scatter.Tensor{Shape: []int{1}, Data: []int{1}}},
		{"negative-stride", scatter.Tensor{Shape: []int{2}, Strides: []int{-1}, Offset: 1, Data: []float32{1, 2}}},
		{"65-dims", scatter.Tensor{Shape: make([]int, 65), Data: []float32{}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			var buf bytes.Buffer
			err := npy.Write(&buf, c.t)
			if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Errorf("Write = %v, want invalid_argument", err)
			}
			if buf.Len() != 0 {
				t.Errorf("Write wrote %d bytes before failing", buf.Len())
			}
		})
	}
	for _, after := range []int{0, 1} {
		t.Run(fmt.Sprintf("writer-fails-after=%d", after), func(t *testing.T) {
			err := npy.Write(&failWriter{after: after}, scatter.FromSlice([]float32{1, 2}))
			if !errors.Is(err, io.ErrShortWrite) {
				t.Errorf("Write = %v, want the writer's error", err)
			}
		})
	}
	t.Run("64-dims", func(t *testing.T) {
		shape := make([]int, 64)
		for i := range shape {
			shape[i] = 1
		}
		x := scatter.Tensor{Shape: shape, Data: []int8{-3}}
		var buf bytes.Buffer
		if err := npy.Write(&buf, x); err != nil {
			t.Fatal(err)
		}
		got, err := npy.Read(&buf)
		if err != nil {
			t.Fatal(err)
		}
		if diff := sameTensor(got, x); diff != "" {
			t.Error(diff)
		}
	})
}

// FuzzRead feeds Read and ReadAs arbitrary bytes: they must not panic, must
// reject with an invalid_argument *scatter.Error, must allocate in
// proportion to the input, and what they accept must survive a
// Write/Read round trip bit for bit.
func FuzzRead(f *testing.F) {
	for _, g := range golden {
		if b, err := os.ReadFile(filepath.Join("testdata", g.file)); err == nil {
			f.Add(b, uint8(g.dt))
		}
	}
	for _, dt := range scatter.DTypes {
		for _, v := range views(dt)[:6] {
			var buf bytes.Buffer
			if err := npy.Write(&buf, v.t); err == nil {
				f.Add(buf.Bytes(), uint8(dt))
				f.Add(buf.Bytes()[:buf.Len()-1], uint8(dt))
			}
		}
	}
	f.Add(hdr("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", f4(1, 4, 2, 5, 3, 6)...), uint8(0))
	f.Add(hdr("{'shape': (1L,), 'fortran_order': False, 'descr': '>f8'}", 0x3f, 0xf8, 0, 0, 0, 0, 0, 0), uint8(0))
	f.Add(hdrV(2, "{'descr': '<f4', 'fortran_order': False, 'shape': (1,), }", f4(1)...), uint8(0))
	f.Add(hdr("{'descr': '<f8', 'fortran_order': False, 'shape': (1099511627776,), }", f4(1, 2, 3, 4)...), uint8(0))
	f.Fuzz(func(t *testing.T, file []byte, dtByte uint8) {
		dt := scatter.DType(dtByte % 12) // DTInvalid and DType(11) too
		var got scatter.Tensor
		var err error
		n := allocated(func() {
			if dtByte >= 128 {
				got, err = npy.Read(bytes.NewReader(file))
			} else {
				got, err = npy.ReadAs(bytes.NewReader(file), dt)
			}
		})
		// The header (at most 64 KiB), the data buffer (at most twice what
		// is there), the elements, and for Fortran order the positions and
		// a copy: a few tens of bytes per input byte.
		if limit := uint64(256<<10 + 48*len(file)); n > limit {
			t.Fatalf("Read allocated %d bytes for a %d-byte input", n, len(file))
		}
		if err != nil {
			if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Fatalf("error %#v is not invalid_argument", err)
			}
			var e *scatter.Error
			if !errors.As(err, &e) {
				t.Fatalf("error %#v is not an *scatter.Error", err)
			}
			return
		}
		if err := got.Validate(); err != nil || got.Shape == nil || got.Strides != nil || got.Offset != 0 {
			t.Fatalf("Read returned a bad tensor %+v: %v", got, err)
		}
		if dtByte < 128 && got.DType() != dt {
			t.Fatalf("ReadAs(%v) returned %v", dt, got.DType())
		}
		if size := got.NumEl() * got.DType().Size(); size > len(file) {
			t.Fatalf("Read returned %d bytes of elements from %d bytes", size, len(file))
		}
		var buf bytes.Buffer
		if err := npy.Write(&buf, got); err != nil {
			t.Fatalf("Write of what Read returned: %v", err)
		}
		again, err := npy.ReadAs(&buf, got.DType())
		if err != nil {
			t.Fatalf("ReadAs of what Write wrote: %v", err)
		}
		if diff := sameTensor(again, got); diff != "" {
			t.Fatalf("round trip: %s", diff)
		}
	})
}
