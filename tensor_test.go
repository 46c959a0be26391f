package scatter_test

import (
	"errors"
	"fmt"
	"math"
	"math/big"
	"reflect"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// validate calls t.Validate, turning a panic into an error that says so.
func validate(t scatter.Tensor) (err error, panicked bool) {
	defer func() {
		if r := recover(); r != nil {
			err, panicked = fmt.Errorf("panic: %v", r), true
		}
	}()
	return t.Validate(), false
}

func f32s(n int) []float32 {
	d := make([]float32, n)
	for i := range d {
		d[i] = float32(i)
	}
	return d
}

func TestTensorValidate(t *testing.T) {
	const maxInt = math.MaxInt
	valid := []struct {
		name string
		t    scatter.Tensor
	}{
		{"contiguous/shape=[2,3]", scatter.Tensor{Shape: []int{2, 3}, Data: f32s(6)}},
		{"contiguous/shape=[2,3]/data=10", scatter.Tensor{Shape: []int{2, 3}, Data: f32s(10)}},
		{"contiguous/shape=[2,3]/offset=4", scatter.Tensor{Shape: []int{2, 3}, Offset: 4, Data: f32s(10)}},
		{"contiguous/explicit-strides", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{3, 1}, Data: f32s(6)}},
		{"0-d", scatter.Tensor{Shape: []int{}, Data: f32s(1)}},
		{"0-d/nil-shape", scatter.Tensor{Data: f32s(1)}},
		{"0-d/offset=2", scatter.Tensor{Shape: []int{}, Offset: 2, Data: f32s(3)}},
		{"0-d/strides=[]", scatter.Tensor{Shape: []int{}, Strides: []int{}, Offset: 2, Data: f32s(3)}},
		{"zero-size/shape=[0]/data=0", scatter.Tensor{Shape: []int{0}, Data: f32s(0)}},
		{"zero-size/shape=[0,3]/data=nil-slice", scatter.Tensor{Shape: []int{0, 3}, Data: []float32(nil)}},
		{"zero-size/shape=[2,0]/data=5", scatter.Tensor{Shape: []int{2, 0}, Data: f32s(5)}},
		{"zero-size/offset=len", scatter.Tensor{Shape: []int{3, 0}, Offset: 5, Data: f32s(5)}},
		{"zero-size/strided/offset=len", scatter.Tensor{Shape: []int{0, 7}, Strides: []int{100, 9}, Offset: 4, Data: f32s(4)}},
		{"zero-size/huge-other-dims", scatter.Tensor{Shape: []int{maxInt, 0, maxInt}, Data: f32s(0)}},
		{"zero-size/huge-strides", scatter.Tensor{Shape: []int{5, 0}, Strides: []int{maxInt, maxInt}, Data: f32s(1)}},
		{"transposed/shape=[3,2]/strides=[1,3]", scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 3}, Data: f32s(6)}},
		{"transposed/3-d", scatter.Tensor{Shape: []int{4, 3, 2}, Strides: []int{1, 8, 4}, Data: f32s(24)}},
		{"expanded/strides=[0,1]", scatter.Tensor{Shape: []int{4, 3}, Strides: []int{0, 1}, Data: f32s(3)}},
		{"expanded/strides=[0,0]", scatter.Tensor{Shape: []int{5, 5}, Strides: []int{0, 0}, Offset: 2, Data: f32s(3)}},
		{"expanded/huge", scatter.Tensor{Shape: []int{1 << 40}, Strides: []int{0}, Data: f32s(1)}},
		{"strided/offset=4", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{3, 1}, Offset: 4, Data: f32s(9)}},
		{"strided/every-other", scatter.Tensor{Shape: []int{3}, Strides: []int{2}, Offset: 1, Data: f32s(6)}},
		{"size-1-dim/huge-stride", scatter.Tensor{Shape: []int{1, 2}, Strides: []int{maxInt, 1}, Data: f32s(2)}},
		{"dtype=bool", scatter.Tensor{Shape: []int{2}, Data: []bool{true, false}}},
		{"dtype=uint8", scatter.Tensor{Shape: []int{2}, Data: []uint8{1, 2}}},
		{"dtype=int8", scatter.Tensor{Shape: []int{2}, Data: []int8{1, 2}}},
		{"dtype=int16", scatter.Tensor{Shape: []int{2}, Data: []int16{1, 2}}},
		{"dtype=int32", scatter.Tensor{Shape: []int{2}, Data: []int32{1, 2}}},
		{"dtype=int64", scatter.Tensor{Shape: []int{2}, Data: []int64{1, 2}}},
		{"dtype=float16", scatter.Tensor{Shape: []int{2}, Data: []scatter.Float16{1, 2}}},
		{"dtype=bfloat16", scatter.Tensor{Shape: []int{2}, Data: []scatter.BFloat16{1, 2}}},
		{"dtype=float64", scatter.Tensor{Shape: []int{2}, Data: []float64{1, 2}}},
	}
	for _, tt := range valid {
		t.Run("valid/"+tt.name, func(t *testing.T) {
			err, panicked := validate(tt.t)
			if panicked || err != nil {
				t.Fatalf("Validate(%+v) = %v, want nil", tt.t, err)
			}
		})
	}

	invalid := []struct {
		name string
		t    scatter.Tensor
	}{
		{"short/shape=[2,3]/data=5", scatter.Tensor{Shape: []int{2, 3}, Data: f32s(5)}},
		{"short/0-d/data=0", scatter.Tensor{Shape: []int{}, Data: f32s(0)}},
		{"short/strided", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{3, 1}, Data: f32s(4)}},
		{"short/transposed", scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 3}, Data: f32s(5)}},
		{"short/expanded", scatter.Tensor{Shape: []int{4, 3}, Strides: []int{0, 1}, Data: f32s(2)}},
		{"offset+extent/contiguous", scatter.Tensor{Shape: []int{3}, Offset: 1, Data: f32s(3)}},
		{"offset+extent/strided", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{3, 1}, Offset: 5, Data: f32s(9)}},
		{"offset+extent/0-d", scatter.Tensor{Shape: []int{}, Offset: 3, Data: f32s(3)}},
		{"offset-past-end/zero-size", scatter.Tensor{Shape: []int{0}, Offset: 4, Data: f32s(3)}},
		{"offset-past-end/zero-size/strided", scatter.Tensor{Shape: []int{0, 2}, Strides: []int{2, 1}, Offset: 4, Data: f32s(3)}},
		{"offset/huge", scatter.Tensor{Shape: []int{2}, Offset: maxInt, Data: f32s(3)}},
		{"offset/huge/strided", scatter.Tensor{Shape: []int{2}, Strides: []int{1}, Offset: maxInt, Data: f32s(3)}},
		{"negative-size/shape=[-1]", scatter.Tensor{Shape: []int{-1}, Data: f32s(3)}},
		{"negative-size/shape=[2,-3]", scatter.Tensor{Shape: []int{2, -3}, Data: f32s(3)}},
		{"negative-size/with-zero", scatter.Tensor{Shape: []int{0, -1}, Data: f32s(3)}},
		{"negative-size/min-int", scatter.Tensor{Shape: []int{math.MinInt}, Data: f32s(3)}},
		{"overflow/shape=[2^40,2^40]", scatter.Tensor{Shape: []int{1 << 40, 1 << 40}, Data: f32s(3)}},
		{"overflow/shape=[maxint,2]", scatter.Tensor{Shape: []int{maxInt, 2}, Data: f32s(3)}},
		{"overflow/expanded", scatter.Tensor{Shape: []int{1 << 40, 1 << 40}, Strides: []int{0, 0}, Data: f32s(3)}},
		{"overflow/strides", scatter.Tensor{Shape: []int{3, 3}, Strides: []int{maxInt / 2, 1}, Data: f32s(10)}},
		{"overflow/strides-sum", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{maxInt / 2, maxInt / 2}, Data: f32s(10)}},
		{"overflow/offset+stride", scatter.Tensor{Shape: []int{2}, Strides: []int{maxInt}, Offset: 1, Data: f32s(10)}},
		{"go-type=[]int", scatter.Tensor{Shape: []int{2}, Data: []int{1, 2}}},
		{"go-type=[]string", scatter.Tensor{Shape: []int{2}, Data: []string{"a", "b"}}},
		{"go-type=[]uint16", scatter.Tensor{Shape: []int{2}, Data: []uint16{1, 2}}},
		{"go-type=[][]float32", scatter.Tensor{Shape: []int{1}, Data: [][]float32{{1}}}},
		{"go-type=float32", scatter.Tensor{Shape: []int{}, Data: float32(1)}},
		{"go-type=*[]float32", scatter.Tensor{Shape: []int{1}, Data: &[]float32{1}}},
		{"go-type=nil", scatter.Tensor{Shape: []int{2}}},
		{"go-type=nil/zero-tensor", scatter.Tensor{}},
		{"strides/count=1/dims=2", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{1}, Data: f32s(6)}},
		{"strides/count=3/dims=2", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{3, 1, 1}, Data: f32s(6)}},
		{"strides/count=1/0-d", scatter.Tensor{Shape: []int{}, Strides: []int{1}, Data: f32s(6)}},
		{"strides/count=1/zero-size", scatter.Tensor{Shape: []int{0, 3}, Strides: []int{1}, Data: f32s(6)}},
		{"negative-stride", scatter.Tensor{Shape: []int{3}, Strides: []int{-1}, Offset: 2, Data: f32s(3)}},
		{"negative-stride/zero-size", scatter.Tensor{Shape: []int{0, 3}, Strides: []int{3, -1}, Data: f32s(6)}},
		{"negative-stride/size-1", scatter.Tensor{Shape: []int{1}, Strides: []int{-1}, Data: f32s(6)}},
		{"negative-offset", scatter.Tensor{Shape: []int{2}, Offset: -1, Data: f32s(6)}},
		{"negative-offset/strided", scatter.Tensor{Shape: []int{2}, Strides: []int{1}, Offset: -1, Data: f32s(6)}},
		{"negative-offset/zero-size", scatter.Tensor{Shape: []int{0}, Offset: -1, Data: f32s(6)}},
	}
	for _, tt := range invalid {
		t.Run("invalid/"+tt.name, func(t *testing.T) {
			err, panicked := validate(tt.t)
			if panicked {
				t.Fatalf("Validate panicked: %v", err)
			}
			if err == nil {
				t.Fatalf("Validate(%+v) = nil, want an error", tt.t)
			}
			var e *scatter.Error
			if !errors.As(err, &e) || e.Code != scatter.ErrInvalidArgument {
				t.Fatalf("Validate(%+v) = %#v, want an *Error with code invalid_argument", tt.t, err)
			}
			if !errors.Is(err, scatter.ErrInvalidArgument) {
				t.Errorf("errors.Is(%v, ErrInvalidArgument) = false", err)
			}
			// String must not panic on an invalid tensor either.
			// The zero Tensor, an absent argument, is "<none>".
			if s := tt.t.String(); !strings.HasPrefix(s, "<invalid tensor: ") && !(tt.t.IsZero() && s == "<none>") {
				t.Errorf("String() = %q, want the invalid-tensor form", s)
			}
		})
	}
}

// refValid says whether a tensor is valid, with exact integer arithmetic.
func refValid(shape, strides []int, offset, dlen int, elemSlice bool) bool {
	if !elemSlice || offset < 0 {
		return false
	}
	numel := big.NewInt(1)
	for _, s := range shape {
		if s < 0 {
			return false
		}
		numel.Mul(numel, big.NewInt(int64(s)))
	}
	if !numel.IsInt64() || numel.Int64() > math.MaxInt {
		return false
	}
	n := int(numel.Int64())
	if strides == nil {
		return offset <= dlen && n <= dlen-offset
	}
	if len(strides) != len(shape) {
		return false
	}
	for _, st := range strides {
		if st < 0 {
			return false
		}
	}
	if n == 0 {
		return offset <= dlen
	}
	last := big.NewInt(int64(offset))
	for d, s := range shape {
		last.Add(last, new(big.Int).Mul(big.NewInt(int64(s-1)), big.NewInt(int64(strides[d]))))
	}
	return last.Cmp(big.NewInt(int64(dlen))) < 0
}

func fuzzData(kind uint8, n int) (data any, elemSlice bool) {
	switch kind % 12 {
	case 0:
		return make([]bool, n), true
	case 1:
		return make([]uint8, n), true
	case 2:
		return make([]int8, n), true
	case 3:
		return make([]int16, n), true
	case 4:
		return make([]int32, n), true
	case 5:
		return make([]int64, n), true
	case 6:
		return make([]scatter.Float16, n), true
	case 7:
		return make([]scatter.BFloat16, n), true
	case 8:
		return make([]float32, n), true
	case 9:
		return make([]float64, n), true
	case 10:
		return make([]int, n), false
	}
	return nil, false
}

// FuzzTensorValidate builds tensors from fuzzed shapes, strides, offsets and
// data lengths. Validate must never panic, must agree with an exact
// reference, and a tensor it accepts must have every position inside Data.
func FuzzTensorValidate(f *testing.F) {
	const big = math.MaxInt
	seeds := []struct {
		rank          uint8
		s0, s1, s2    int
		hasStrides    bool
		st0, st1, st2 int
		offset        int
		dlen          uint16
		kind          uint8
	}{
		{2, 2, 3, 0, false, 0, 0, 0, 0, 6, 8},
		{2, 3, 2, 0, true, 1, 3, 0, 0, 6, 9},
		{2, 4, 3, 0, true, 0, 1, 0, 0, 3, 6},
		{3, 2, 0, 5, true, 7, 1, 1, 3, 3, 7},
		{0, 0, 0, 0, false, 0, 0, 0, 2, 3, 1},
		{2, 1 << 40, 1 << 40, 0, false, 0, 0, 0, 0, 3, 8},
		{2, 3, 3, 0, true, big / 2, 1, 0, 0, 10, 8},
		{1, 2, 0, 0, true, big, 0, 0, 1, 10, 8},
		{1, -1, 0, 0, false, 0, 0, 0, 0, 10, 8},
		{1, 2, 0, 0, true, -1, 0, 0, 1, 10, 8},
		{1, 2, 0, 0, false, 0, 0, 0, -1, 10, 8},
		{1, 1, 0, 0, true, big, 0, 0, 0, 1, 8},
		{3, 1 << 20, 1 << 20, 1 << 20, true, 0, 0, 0, 0, 1, 5},
		{1, 2, 0, 0, false, 0, 0, 0, 0, 2, 10},
		{1, 2, 0, 0, false, 0, 0, 0, 0, 2, 11},
	}
	for _, s := range seeds {
		f.Add(s.rank, s.s0, s.s1, s.s2, s.hasStrides, s.st0, s.st1, s.st2, s.offset, s.dlen, s.kind)
	}
	f.Fuzz(func(t *testing.T, rank uint8, s0, s1, s2 int, hasStrides bool, st0, st1, st2 int, offset int, dlen uint16, kind uint8) {
		r := int(rank % 5) // 0..4; rank 4 repeats dimension 0
		shape := []int{s0, s1, s2, s0}[:r]
		var strides []int
		if hasStrides {
			strides = []int{st0, st1, st2, st0}[:r]
			if rank >= 128 { // a count mismatch
				strides = append(strides, st1)
			}
		}
		data, elemSlice := fuzzData(kind, int(dlen))
		tn := scatter.Tensor{Shape: shape, Strides: strides, Offset: offset, Data: data}
		err, panicked := validate(tn)
		if panicked {
			t.Fatalf("Validate(%+v) %v", tn, err)
		}
		want := refValid(shape, strides, offset, int(dlen), elemSlice)
		if (err == nil) != want {
			t.Fatalf("Validate(shape=%v strides=%v offset=%d len=%d %T) = %v, reference says valid=%v",
				shape, strides, offset, dlen, data, err, want)
		}
		if err != nil {
			if c := scatter.CodeOf(err); c != scatter.ErrInvalidArgument {
				t.Fatalf("Validate error %v has code %v, want invalid_argument", err, c)
			}
			return
		}
		n := tn.NumEl()
		if n > 1<<16 {
			return // a large expanded view: too many positions to list
		}
		pos := tn.Positions()
		if len(pos) != n {
			t.Fatalf("Positions() has %d entries, NumEl() = %d", len(pos), n)
		}
		for _, p := range pos {
			if p < 0 || p >= int(dlen) {
				t.Fatalf("position %d outside data of %d elements (shape=%v strides=%v offset=%d)", p, dlen, shape, strides, offset)
			}
		}
		_ = tn.String()
		c := tn.Contiguous()
		if err := c.Validate(); err != nil || c.NumEl() != n || scatter.DataLen(c.Data) != n {
			t.Fatalf("Contiguous() = %+v (%v), want %d elements", c, err, n)
		}
	})
}

func TestPositionsValuesContiguous(t *testing.T) {
	data := make([]float64, 12)
	for i := range data {
		data[i] = float64(i)
	}
	tests := []struct {
		name  string
		t     scatter.Tensor
		want  []int
		shape []int
	}{
		{"contiguous/shape=[2,3]", scatter.Tensor{Shape: []int{2, 3}, Data: data}, []int{0, 1, 2, 3, 4, 5}, []int{2, 3}},
		{"contiguous/offset=7", scatter.Tensor{Shape: []int{5}, Offset: 7, Data: data}, []int{7, 8, 9, 10, 11}, []int{5}},
		{"strided/strides=[6,2]", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{6, 2}, Data: data}, []int{0, 2, 4, 6, 8, 10}, []int{2, 3}},
		{"transposed/strides=[1,3]", scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 3}, Data: data}, []int{0, 3, 1, 4, 2, 5}, []int{3, 2}},
		{"transposed/3-d", scatter.Tensor{Shape: []int{2, 2, 3}, Strides: []int{1, 6, 2}, Data: data},
			[]int{0, 2, 4, 6, 8, 10, 1, 3, 5, 7, 9, 11}, []int{2, 2, 3}},
		{"offset/strides=[4,1]/offset=5", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{4, 1}, Offset: 5, Data: data}, []int{5, 6, 9, 10}, []int{2, 2}},
		{"expanded/strides=[0,1]/offset=1", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{0, 1}, Offset: 1, Data: data}, []int{1, 2, 3, 1, 2, 3}, []int{2, 3}},
		{"expanded/strides=[1,0]", scatter.Tensor{Shape: []int{2, 3}, Strides: []int{1, 0}, Data: data}, []int{0, 0, 0, 1, 1, 1}, []int{2, 3}},
		{"expanded/strides=[0]", scatter.Tensor{Shape: []int{3}, Strides: []int{0}, Offset: 11, Data: data}, []int{11, 11, 11}, []int{3}},
		{"size-1/huge-stride", scatter.Tensor{Shape: []int{1, 3}, Strides: []int{math.MaxInt, 1}, Offset: 2, Data: data}, []int{2, 3, 4}, []int{1, 3}},
		{"0-d/offset=3", scatter.Tensor{Shape: []int{}, Offset: 3, Data: data}, []int{3}, []int{}},
		{"0-d/strides=[]", scatter.Tensor{Shape: []int{}, Strides: []int{}, Offset: 4, Data: data}, []int{4}, []int{}},
		{"zero-size/shape=[2,0,3]", scatter.Tensor{Shape: []int{2, 0, 3}, Data: data}, []int{}, []int{2, 0, 3}},
		{"zero-size/strided", scatter.Tensor{Shape: []int{0, 3}, Strides: []int{3, 1}, Offset: 12, Data: data}, []int{}, []int{0, 3}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := tt.t.Validate(); err != nil {
				t.Fatalf("Validate: %v", err)
			}
			if n := tt.t.NumEl(); n != len(tt.want) {
				t.Errorf("NumEl() = %d, want %d", n, len(tt.want))
			}
			pos := tt.t.Positions()
			if pos == nil || !reflect.DeepEqual(pos, tt.want) {
				t.Errorf("Positions() = %#v, want %v", pos, tt.want)
			}
			var each []int
			for i, p := range tt.t.EachPosition() {
				if i != len(each) {
					t.Fatalf("EachPosition yielded number %d after %d elements", i, len(each))
				}
				each = append(each, p)
			}
			if len(each) != len(tt.want) || !reflect.DeepEqual(each, tt.want) && len(each) > 0 {
				t.Errorf("EachPosition() yielded %v, want %v", each, tt.want)
			}
			for stop := range len(tt.want) {
				n := 0
				for range tt.t.EachPosition() {
					if n == stop {
						break
					}
					n++
				}
				if n != stop {
					t.Errorf("EachPosition went on after break at %d", stop)
				}
			}
			vals, ok := scatter.Values[float64](tt.t)
			if !ok {
				t.Fatal("Values[float64] not ok")
			}
			wantVals := make([]float64, len(tt.want))
			for i, p := range tt.want {
				wantVals[i] = float64(p)
			}
			if !reflect.DeepEqual(vals, wantVals) {
				t.Errorf("Values = %v, want %v", vals, wantVals)
			}
			if _, ok := scatter.Values[float32](tt.t); ok {
				t.Error("Values[float32] of a float64 tensor is ok")
			}
			before := append([]float64{}, data...)
			c := tt.t.Contiguous()
			if !reflect.DeepEqual(data, before) {
				t.Fatal("Contiguous modified its input")
			}
			if c.Strides != nil || c.Offset != 0 || !reflect.DeepEqual(c.Shape, tt.shape) || c.Shape == nil {
				t.Errorf("Contiguous() = shape %#v strides %v offset %d, want shape %v, nil strides, offset 0", c.Shape, c.Strides, c.Offset, tt.shape)
			}
			cd, _ := c.Data.([]float64)
			if !reflect.DeepEqual(cd, wantVals) || cd == nil {
				t.Errorf("Contiguous().Data = %#v, want %v", c.Data, wantVals)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("Contiguous() is invalid: %v", err)
			}
			if len(cd) > 0 {
				cd[0] = -1
				if data[tt.want[0]] == -1 {
					t.Error("Contiguous() shares data with its input")
				}
				copy(data, before)
			}
			if len(tt.shape) > 0 && &c.Shape[0] == &tt.t.Shape[0] {
				t.Error("Contiguous() shares its shape with its input")
			}
		})
	}
}

// TestContiguousDTypes checks Contiguous and Values on a transposed view of
// every dtype.
func TestContiguousDTypes(t *testing.T) {
	// data[i] = i for i < 6; view [[0 1 2] [3 4 5]]^T = [[0 3] [1 4] [2 5]]
	want := []int{0, 3, 1, 4, 2, 5}
	for _, dt := range scatter.DTypes {
		t.Run("dtype="+dt.String(), func(t *testing.T) {
			data := scatter.MakeData(dt, 6)
			setInts(data)
			v := scatter.Tensor{Shape: []int{3, 2}, Strides: []int{1, 3}, Data: data}
			c := v.Contiguous()
			if c.DType() != dt {
				t.Fatalf("Contiguous().DType() = %v, want %v", c.DType(), dt)
			}
			for i, p := range want {
				got, exp := scatter.Float64At(c.Data, i), scatter.Float64At(data, p)
				if got != exp {
					t.Errorf("element %d = %v, want %v", i, got, exp)
				}
			}
		})
	}
	t.Run("invalid-data", func(t *testing.T) {
		if _, ok := scatter.Values[int64](scatter.Tensor{Shape: []int{1}, Data: []int{1}}); ok {
			t.Error("Values[int64] of []int data is ok")
		}
	})
}

// setInts sets element i to i (to i%2 == 1 for bool).
func setInts(data any) {
	switch d := data.(type) {
	case []bool:
		for i := range d {
			d[i] = i%2 == 1
		}
	case []uint8:
		for i := range d {
			d[i] = uint8(i)
		}
	case []int8:
		for i := range d {
			d[i] = int8(i)
		}
	case []int16:
		for i := range d {
			d[i] = int16(i)
		}
	case []int32:
		for i := range d {
			d[i] = int32(i)
		}
	case []int64:
		for i := range d {
			d[i] = int64(i)
		}
	case []scatter.Float16:
		for i := range d {
			d[i] = scatter.Float16FromFloat64(float64(i))
		}
	case []scatter.BFloat16:
		for i := range d {
			d[i] = scatter.BFloat16FromFloat64(float64(i))
		}
	case []float32:
		for i := range d {
			d[i] = float32(i)
		}
	case []float64:
		for i := range d {
			d[i] = float64(i)
		}
	}
}

func TestTensorString(t *testing.T) {
	long := make([]int64, 30)
	for i := range long {
		long[i] = int64(i)
	}
	tests := []struct {
		name string
		t    scatter.Tensor
		want string
	}{
		{"float32/1-d", scatter.FromSlice([]float32{1, 2.5, float32(math.Copysign(0, -1))}), "float32[3](1.0 2.5 -0.0)"},
		{"float64/special", scatter.FromSlice([]float64{math.NaN(), math.Inf(1), math.Inf(-1)}), "float64[3](nan inf -inf)"},
		{"float64/0-d", scatter.Scalar0D(2.5), "float64[](2.5)"},
		{"bool", scatter.FromSlice([]bool{true, false}), "bool[2](True False)"},
		{"int64/2-d", scatter.FromSlice([]int64{1, -2, 3, 4}, 2, 2), "int64[2 2](1 -2 3 4)"},
		{"int64/min", scatter.FromSlice([]int64{math.MinInt64}), "int64[1](-9223372036854775808)"},
		{"uint8", scatter.FromSlice([]uint8{0, 255}), "uint8[2](0 255)"},
		{"int8", scatter.FromSlice([]int8{-128, 127}), "int8[2](-128 127)"},
		{"int16", scatter.FromSlice([]int16{-32768}), "int16[1](-32768)"},
		{"int32", scatter.FromSlice([]int32{math.MinInt32}), "int32[1](-2147483648)"},
		{"float16", scatter.FromSlice([]scatter.Float16{0x3e00, 0x7bff, 0x7e00, 0xfc00}), "float16[4](1.5 65504.0 nan -inf)"},
		{"bfloat16", scatter.FromSlice([]scatter.BFloat16{0x3fc0, 0x7fc0}), "bfloat16[2](1.5 nan)"},
		{"zero-size", scatter.Tensor{Shape: []int{2, 0}, Data: []float32{}}, "float32[2 0]()"},
		{"transposed", scatter.Tensor{Shape: []int{2, 2}, Strides: []int{1, 2}, Data: []int32{1, 2, 3, 4}}, "int32[2 2](1 3 2 4)"},
		{"expanded", scatter.Tensor{Shape: []int{3}, Strides: []int{0}, Offset: 1, Data: []int32{1, 2}}, "int32[3](2 2 2)"},
		{"long/elided", scatter.FromSlice(long),
			"int64[30](0 1 2 3 4 5 6 7 8 9 10 11 ... 6 more ... 18 19 20 21 22 23 24 25 26 27 28 29)"},
		{"exactly-24", scatter.FromSlice(long[:24]),
			"int64[24](0 1 2 3 4 5 6 7 8 9 10 11 12 13 14 15 16 17 18 19 20 21 22 23)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.t.String(); got != tt.want {
				t.Errorf("String() = %q, want %q", got, tt.want)
			}
		})
	}
}

func TestTensorConstructors(t *testing.T) {
	t.Run("FromSlice/no-shape", func(t *testing.T) {
		x := scatter.FromSlice([]int32{1, 2, 3})
		if !reflect.DeepEqual(x.Shape, []int{3}) || x.DType() != scatter.DTInt32 || x.Dim() != 1 {
			t.Errorf("FromSlice = %+v", x)
		}
	})
	t.Run("FromSlice/shape-copied", func(t *testing.T) {
		shape := []int{2, 2}
		x := scatter.FromSlice([]int32{1, 2, 3, 4}, shape...)
		shape[0] = 9
		if x.Shape[0] != 2 {
			t.Error("FromSlice kept the caller's shape slice")
		}
	})
	t.Run("Scalar0D", func(t *testing.T) {
		x := scatter.Scalar0D(scatter.BFloat16(0x3f80))
		if x.Shape == nil || len(x.Shape) != 0 || x.NumEl() != 1 || x.DType() != scatter.DTBFloat16 || x.IsZero() {
			t.Errorf("Scalar0D = %+v", x)
		}
	})
	t.Run("IsZero", func(t *testing.T) {
		if !(scatter.Tensor{}).IsZero() {
			t.Error("the zero Tensor is not IsZero")
		}
		if (scatter.Tensor{Data: []float32{}}).IsZero() {
			t.Error("a tensor with data is IsZero")
		}
	})
	for _, dt := range scatter.DTypes {
		t.Run("Zeros/dtype="+dt.String(), func(t *testing.T) {
			x, err := scatter.Zeros(dt, 2, 0, 3)
			if err != nil || x.DType() != dt || scatter.DataLen(x.Data) != 0 || !reflect.DeepEqual(x.Shape, []int{2, 0, 3}) {
				t.Errorf("Zeros(%v, 2, 0, 3) = %+v, %v", dt, x, err)
			}
			x, err = scatter.Zeros(dt, 2, 3)
			if err != nil || scatter.DataLen(x.Data) != 6 || x.Validate() != nil {
				t.Errorf("Zeros(%v, 2, 3) = %+v, %v", dt, x, err)
			}
			for i := 0; i < 6; i++ {
				if v := scatter.Float64At(x.Data, i); v != 0 || math.Signbit(v) {
					t.Errorf("element %d = %v", i, v)
				}
			}
		})
	}
	for _, c := range []struct {
		name  string
		dt    scatter.DType
		shape []int
	}{
		{"invalid-dtype", scatter.DTInvalid, []int{2}},
		{"negative", scatter.DTFloat32, []int{-2}},
		{"overflow", scatter.DTFloat32, []int{1 << 40, 1 << 40}},
	} {
		t.Run("Zeros/"+c.name, func(t *testing.T) {
			_, err := scatter.Zeros(c.dt, c.shape...)
			if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
				t.Errorf("Zeros(%v, %v) error = %v, want invalid_argument", c.dt, c.shape, err)
			}
		})
	}
}

func TestNumElements(t *testing.T) {
	for _, c := range []struct {
		shape []int
		want  int
		code  scatter.Code
	}{
		{nil, 1, 0},
		{[]int{}, 1, 0},
		{[]int{3, 4}, 12, 0},
		{[]int{0, math.MaxInt}, 0, 0},
		{[]int{math.MaxInt, 0}, 0, 0},
		{[]int{math.MaxInt}, math.MaxInt, 0},
		{[]int{math.MaxInt, 1}, math.MaxInt, 0},
		{[]int{math.MaxInt/2 + 1, 2}, 0, scatter.ErrInvalidArgument},
		{[]int{1 << 32, 1 << 32}, 0, scatter.ErrInvalidArgument},
		{[]int{-1}, 0, scatter.ErrInvalidArgument},
		{[]int{0, -1}, 0, scatter.ErrInvalidArgument},
	} {
		t.Run(fmt.Sprintf("shape=%v", c.shape), func(t *testing.T) {
			n, err := scatter.NumElements(c.shape)
			if scatter.CodeOf(err) != c.code || (err == nil && n != c.want) {
				t.Errorf("NumElements(%v) = %d, %v; want %d, code %v", c.shape, n, err, c.want, c.code)
			}
		})
	}
}

func TestContiguousStrides(t *testing.T) {
	for _, c := range []struct {
		shape, want []int
	}{
		{[]int{}, []int{}},
		{[]int{5}, []int{1}},
		{[]int{2, 3, 4}, []int{12, 4, 1}},
		{[]int{2, 0, 4}, []int{4, 4, 1}},
	} {
		t.Run(fmt.Sprintf("shape=%v", c.shape), func(t *testing.T) {
			if got := scatter.ContiguousStrides(c.shape); !reflect.DeepEqual(got, c.want) {
				t.Errorf("ContiguousStrides(%v) = %v, want %v", c.shape, got, c.want)
			}
		})
	}
}

func TestIsContiguous(t *testing.T) {
	data := make([]float32, 24)
	for _, c := range []struct {
		shape, strides []int
		offset         int
		want           bool
	}{
		{[]int{2, 3}, nil, 0, true},
		{[]int{2, 3}, []int{3, 1}, 5, true},
		{[]int{}, []int{}, 3, true},
		{[]int{3, 2}, []int{1, 3}, 0, false},      // transposed
		{[]int{2, 3}, []int{0, 1}, 0, false},      // expanded
		{[]int{3}, []int{2}, 0, false},            // every other element
		{[]int{2, 1, 3}, []int{3, 7, 1}, 0, true}, // extent 1: any stride
		{[]int{1, 1}, []int{5, 9}, 2, true},       // one element
		{[]int{3, 0}, []int{1, 1}, 0, true},       // no elements
		{[]int{0, 3}, []int{0, 0}, 24, true},      // no elements, offset at the end
		{[]int{2, 2}, []int{3, 1}, 0, false},      // a gap after each row
	} {
		t.Run(fmt.Sprintf("shape=%v_strides=%v_offset=%d", c.shape, c.strides, c.offset), func(t *testing.T) {
			x := scatter.Tensor{Shape: c.shape, Strides: c.strides, Offset: c.offset, Data: data}
			if err := x.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := x.IsContiguous(); got != c.want {
				t.Fatalf("IsContiguous = %v, want %v", got, c.want)
			}
			if c.want { // then the elements are the data from the offset on
				pos := x.Positions()
				for i, p := range pos {
					if p != c.offset+i {
						t.Fatalf("contiguous, yet element %d is at %d", i, p)
					}
				}
			}
		})
	}
}
