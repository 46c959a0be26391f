package reference

import (
	"math"
	"testing"

	"github.com/scatterconf/scatter"
)

// fuzzReader hands out small integers from the fuzzer's bytes.
type fuzzReader struct {
	b []byte
	i int
}

func (r *fuzzReader) byte() byte {
	if r.i >= len(r.b) {
		return 0
	}
	r.i++
	return r.b[r.i-1]
}

// intIn returns a value in [lo, hi].
func (r *fuzzReader) intIn(lo, hi int) int { return lo + int(r.byte())%(hi-lo+1) }

// size is a dimension size: usually small, sometimes negative or huge.
func (r *fuzzReader) size() int {
	switch b := r.byte(); {
	case b < 200:
		return int(b % 4)
	case b < 220:
		return -int(b%3) - 1
	case b < 240:
		return math.MaxInt / 3
	default:
		return math.MaxInt
	}
}

// tensor builds a tensor that is usually valid and sometimes malformed:
// short data, a bad data type, bad strides or offset.
func (r *fuzzReader) tensor(dt scatter.DType) scatter.Tensor {
	rank := r.intIn(0, 3)
	shape := make([]int, rank)
	for i := range shape {
		shape[i] = r.size()
	}
	n, err := scatter.NumElements(shape)
	if err != nil || n > 64 {
		n = 4
	}
	t := scatter.Tensor{Shape: shape, Data: scatter.MakeData(dt, n)}
	for i := 0; i < n; i++ {
		v := int64(int8(r.byte())) % 5
		switch d := t.Data.(type) {
		case []float32:
			d[i] = float32(v) / 2
		case []int64:
			d[i] = v
		case []int32:
			d[i] = int32(v)
		default:
			setInt(t.Data, i, v)
		}
	}
	switch r.byte() % 16 {
	case 0:
		t.Strides = make([]int, rank)
		for i := range t.Strides {
			t.Strides[i] = r.intIn(-1, 3)
		}
	case 1:
		t.Offset = r.intIn(-1, 3)
	case 2:
		t.Data = []int{1, 2, 3}
	case 3:
		t.Data = nil
	}
	return t
}

func (r *fuzzReader) dtype() scatter.DType {
	return []scatter.DType{scatter.DTFloat32, scatter.DTInt64, scatter.DTInt32, scatter.DTBool, scatter.DTUint8}[r.intIn(0, 4)]
}

func (r *fuzzReader) reduce() scatter.Reduce {
	return []scatter.Reduce{"", "add", "multiply", "sum", "prod", "mean", "amax", "amin", "mul", "min", "max", "bogus"}[r.intIn(0, 11)]
}

func (r *fuzzReader) call() scatter.Call {
	self := r.tensor(r.dtype())
	index := r.tensor([]scatter.DType{scatter.DTInt64, scatter.DTInt32, scatter.DTFloat32}[r.intIn(0, 2)])
	src := r.tensor(self.DType())
	dim := r.intIn(-4, 4)
	switch r.intIn(0, 8) {
	case 0:
		c := scatter.Scatter{Self: self, Dim: dim, Index: index, Src: src, Reduce: r.reduce()}
		if r.byte()%2 == 0 {
			c.Src = scatter.Tensor{}
			c.Value = scatter.Ptr([]scatter.Scalar{scatter.Int(300), scatter.Float(-2.7), scatter.Float(math.NaN()), scatter.Bool(true)}[r.intIn(0, 3)])
		}
		return c
	case 1:
		return scatter.ScatterAdd{Self: self, Dim: dim, Index: index, Src: src}
	case 2:
		return scatter.ScatterReduce{Self: self, Dim: dim, Index: index, Src: src, Reduce: r.reduce(), ExcludeSelf: r.byte()%2 == 0}
	case 3:
		return scatter.IndexReduce{Self: self, Dim: dim, Index: index, Source: src, Reduce: r.reduce(), ExcludeSelf: r.byte()%2 == 0}
	case 4:
		return scatter.Gather{Input: self, Dim: dim, Index: index}
	case 5:
		return scatter.TorchScatterAdd{Src: src, Index: index, Dim: scatter.Ptr(dim), DimSize: scatter.Ptr(r.intIn(-1, 4)), FillValue: scatter.Int(int64(r.intIn(-2, 2)))}
	case 6:
		c := scatter.TorchScatter{Src: src, Index: index, Dim: scatter.Ptr(dim), Reduce: r.reduce()}
		if r.byte()%2 == 0 {
			c.Out = self
		}
		return c
	case 7:
		return scatter.TensorScatter{Indices: []scatter.Tensor{index, {}, r.tensor(scatter.DTInt64)}[:r.intIn(0, 3)], Shape: []int{r.size(), r.size()}, Src: src}
	}
	return scatter.TensorGather{Indices: []scatter.Tensor{index, {}, r.tensor(scatter.DTInt64)}[:r.intIn(0, 3)], Src: src}
}

// FuzzValidate builds calls of every operation from arbitrary bytes —
// malformed tensors, negative and overflowing sizes, wrong dtypes, bad
// dims and reduce names — and checks that the reference and the judge
// answer each with a result or an error that carries a protocol code,
// never a panic, and that the judge accepts the reference's outcome.
func FuzzValidate(f *testing.F) {
	for _, seed := range []string{"", "\x00\x01\x02\x03", "\xff\xfe\x10\x20\x30\x40\x50", "scatter_reduce amax", "\x05\x02\x03\x01\x00\x00\x00\x01\x02"} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		r := &fuzzReader{b: b}
		c := r.call()
		for _, prof := range scatter.Profiles {
			res, err := New(prof).Run(c)
			if err != nil {
				code := scatter.CodeOf(err)
				if code == 0 || code == scatter.ErrNotSupported {
					t.Fatalf("%s: error without a protocol code: %v", c.Op(), err)
				}
			} else if verr := res.Out.Validate(); verr != nil {
				t.Fatalf("%s: the reference returned an invalid tensor: %v", c.Op(), verr)
			}
			// the judge takes every call too, and accepts the reference
			e := Expect(c, prof)
			for _, lvl := range []scatter.Level{scatter.Strict, scatter.Conformant} {
				if m := e.Check(lvl, res, err); m != nil {
					t.Fatalf("the judge rejects the reference at %v: %v", lvl, m)
				}
			}
		}
	})
}
