package reference

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
)

// Mismatch is an outcome that does not conform: the judge's answer to
// Check when it is not nil. Error renders it as a human report naming the
// call, the rule broken and up to ten offending elements with what was
// allowed.
type Mismatch struct {
	Op      scatter.Op
	Profile scatter.Profile
	Level   scatter.Level
	// Call is the call on one line: the operation, its tensors' dtypes and
	// shapes (with their values when small, and any strided layout), dim,
	// reduce and the other arguments.
	Call string
	// Reason says what is wrong, in a few words.
	Reason string
	// Err is the error the outcome returned, nil if it succeeded.
	Err error
	// Want is, for a call that must fail, the codes that conform at Level
	// (strict: PyTorch's only); nil for a call that must succeed.
	Want []scatter.Code
	// Elements lists the first offending elements (at most ten); Count is
	// how many there are in all (Out and Arg together).
	Elements []BadElement
	Count    int
}

// BadElement is one output element that does not conform.
type BadElement struct {
	Tensor  string // "out" or "arg"
	Index   []int  // its multi-index
	Got     string // the value returned
	Allowed string // what conforms: "exactly 3.5", "one of {1.0, 4.0}", "[2.9999998, 3.0000002]", ...
	// From lists what the element is reduced from, in the canonical
	// order: "self 0.0, src[0]=1.0, src[2]=-1e+08" (the first few, and
	// how many more; positions in the tensors as the call gave them);
	// "" for an element outside every group (untouched).
	From string
}

// String writes e as "out[1, 2]: got 3.5, allowed [2.9999998, 3.0000002]",
// followed by "\n    from: ..." when From is set.
func (e BadElement) String() string {
	s := e.Tensor + formatShape(e.Index) + ": got " + e.Got + ", allowed " + e.Allowed
	if e.From != "" {
		s += "\n    from: " + e.From
	}
	return s
}

// Error renders the multi-line report.
func (m *Mismatch) Error() string {
	var b strings.Builder
	op := string(m.Op)
	if op == "" {
		op = "call"
	}
	fmt.Fprintf(&b, "%s does not conform (%s, %s): %s", op, m.Profile, m.Level, m.Reason)
	if m.Call != "" {
		b.WriteString("\n  call: " + m.Call)
	}
	if m.Err != nil && len(m.Elements) == 0 {
		b.WriteString("\n  error: " + m.Err.Error())
	}
	for _, e := range m.Elements {
		b.WriteString("\n  " + e.String())
	}
	if more := m.Count - len(m.Elements); more > 0 {
		fmt.Fprintf(&b, "\n  ... and %d more", more)
	}
	return b.String()
}

// formatShape writes a shape or multi-index as "[2, 3]".
func formatShape(s []int) string {
	parts := make([]string, len(s))
	for i, x := range s {
		parts[i] = strconv.Itoa(x)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// codeList writes codes as "dim_out_of_range or shape_mismatch".
func codeList(cs []scatter.Code) string {
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = c.String()
	}
	return strings.Join(parts, " or ")
}

// errorName names an error by its code, or says it has none.
func errorName(err error) string {
	if c := scatter.CodeOf(err); c != 0 {
		return c.String() + " (" + err.Error() + ")"
	}
	return "without a code (" + err.Error() + ")"
}

// formatFloat writes a value of a float dtype: Python's spelling (nan,
// inf, 3.0), the shortest decimal that reads back as the same float32 for
// float32, and the bit pattern beside the value for the 16-bit types.
func formatFloat(dt scatter.DType, f float64) string {
	var s string
	switch {
	case math.IsNaN(f):
		s = "nan"
	case dt == scatter.DTFloat32 && !math.IsInf(f, 0):
		s = strconv.FormatFloat(f, 'g', -1, 32)
		if !strings.ContainsAny(s, ".en") {
			s += ".0"
		}
	default:
		s = scatter.Float(f).String()
	}
	if dt == scatter.DTFloat16 || dt == scatter.DTBFloat16 {
		s += fmt.Sprintf(" (0x%04x)", dtypeBits(dt, f))
	}
	return s
}

// formatElem writes an element of dtype dt.
func formatElem(dt scatter.DType, v elem) string {
	switch {
	case dt == scatter.DTBool:
		if v.i != 0 {
			return "True"
		}
		return "False"
	case !dt.IsFloat():
		return strconv.FormatInt(v.i, 10)
	case v.nan && dt.Size() == 2:
		return fmt.Sprintf("nan (0x%04x)", v.bits)
	case v.nan && dt == scatter.DTFloat32:
		return fmt.Sprintf("nan (0x%08x)", v.bits)
	case v.nan:
		return fmt.Sprintf("nan (0x%016x)", v.bits)
	}
	return formatFloat(dt, v.f)
}

// describeExact writes the single value v as what conforms.
func describeExact(dt scatter.DType, v elem, zeroSign bool) string {
	switch {
	case v.nan:
		return "nan (any payload)"
	case zeroSign && dt.IsFloat() && v.f == 0:
		return "0.0 or -0.0"
	}
	return "exactly " + formatElem(dt, v)
}

// describeAllow writes a conformant set.
func describeAllow(dt scatter.DType, a *allow) string {
	var s string
	if a.isRange {
		r := a.rng
		var parts []string
		if !r.empty {
			if r.lo == r.hi {
				v := r.lo
				if v == 0 && r.sign < 0 {
					v = math.Copysign(0, -1) // a zero whose sign bit is fixed: say which
				}
				parts = append(parts, describeExact(dt, floatElem(dt, v), r.sign == 0))
			} else {
				parts = append(parts, "["+formatFloat(dt, r.lo)+", "+formatFloat(dt, r.hi)+"]")
			}
		}
		if r.posInf && !(!r.empty && math.IsInf(r.hi, 1)) {
			parts = append(parts, "inf")
		}
		if r.negInf && !(!r.empty && math.IsInf(r.lo, -1)) {
			parts = append(parts, "-inf")
		}
		if r.nan {
			parts = append(parts, "nan")
		}
		if len(parts) == 0 {
			parts = append(parts, "nothing")
		}
		s = strings.Join(parts, " or ")
	} else {
		switch len(a.vals) {
		case 0:
			s = "nothing"
		case 1:
			s = describeExact(dt, a.vals[0], a.zeroSign)
		default:
			parts := make([]string, len(a.vals))
			for i, v := range a.vals {
				parts[i] = formatElem(dt, v)
			}
			s = "one of {" + strings.Join(parts, ", ") + "}"
		}
	}
	if a.note != "" {
		s += " (" + a.note + ")"
	}
	return s
}

// describeArgs writes the args that conform.
func describeArgs(args []int64, sentinel int64) string {
	parts := make([]string, len(args))
	for i, a := range args {
		parts[i] = strconv.FormatInt(a, 10)
		if a == sentinel {
			parts[i] += " (the sentinel)"
		}
	}
	if len(parts) == 1 {
		return "exactly " + parts[0]
	}
	return "one of {" + strings.Join(parts, ", ") + "}"
}

// DescribeCall writes a call on one line as op(name=tensor, ..., argument=value, ...),
// for reports: each tensor with its dtype, shape, layout and (when small)
// its values.
func DescribeCall(c scatter.Call) string {
	if c == nil {
		return ""
	}
	var args []string
	t := func(name string, x scatter.Tensor) {
		if !x.IsZero() {
			args = append(args, name+"="+describeTensor(x))
		}
	}
	kv := func(name string, v any) { args = append(args, fmt.Sprintf("%s=%v", name, v)) }
	optInt := func(name string, p *int) {
		if p != nil {
			kv(name, *p)
		}
	}
	reduce := func(r scatter.Reduce) {
		if r != scatter.ReduceNone {
			kv("reduce", strconv.Quote(r.Name()))
		}
	}
	includeSelf := func(exclude bool) {
		if exclude {
			kv("include_self", "False")
		} else {
			kv("include_self", "True")
		}
	}
	indices := func(idx []scatter.Tensor) {
		parts := make([]string, len(idx))
		for i, x := range idx {
			if x.IsZero() {
				parts[i] = "None"
			} else {
				parts[i] = describeTensor(x)
			}
		}
		args = append(args, "indices=["+strings.Join(parts, ", ")+"]")
	}
	switch c := c.(type) {
	case scatter.Scatter:
		t("self", c.Self)
		kv("dim", c.Dim)
		t("index", c.Index)
		t("src", c.Src)
		if c.Value != nil {
			kv("value", c.Value.String())
		}
		reduce(c.Reduce)
	case scatter.ScatterAdd:
		t("self", c.Self)
		kv("dim", c.Dim)
		t("index", c.Index)
		t("src", c.Src)
	case scatter.ScatterReduce:
		t("self", c.Self)
		kv("dim", c.Dim)
		t("index", c.Index)
		t("src", c.Src)
		reduce(c.Reduce)
		includeSelf(c.ExcludeSelf)
	case scatter.IndexReduce:
		t("self", c.Self)
		kv("dim", c.Dim)
		t("index", c.Index)
		t("source", c.Source)
		reduce(c.Reduce)
		includeSelf(c.ExcludeSelf)
	case scatter.Gather:
		t("input", c.Input)
		kv("dim", c.Dim)
		t("index", c.Index)
	case scatter.TorchScatterAdd:
		t("src", c.Src)
		t("index", c.Index)
		optInt("dim", c.Dim)
		t("out", c.Out)
		optInt("dim_size", c.DimSize)
		kv("fill_value", c.FillValue.String())
	case scatter.TorchScatter:
		t("src", c.Src)
		t("index", c.Index)
		optInt("dim", c.Dim)
		t("out", c.Out)
		optInt("dim_size", c.DimSize)
		reduce(c.Reduce)
	case scatter.TensorScatter:
		indices(c.Indices)
		kv("shape", formatShape(c.Shape))
		t("src", c.Src)
	case scatter.TensorGather:
		indices(c.Indices)
		t("src", c.Src)
	default:
		names := make([]string, 0)
		ts := c.Tensors()
		for n := range ts {
			names = append(names, n)
		}
		slices.Sort(names)
		for _, n := range names {
			t(n, ts[n])
		}
	}
	return string(c.Op()) + "(" + strings.Join(args, ", ") + ")"
}

// describeTensor writes a tensor's dtype and shape, its layout when not
// contiguous (and the backing length when the data holds more than the
// view), and its values when it has at most 16 elements, 16-bit floats
// with their bit patterns.
func describeTensor(t scatter.Tensor) string {
	if err := t.Validate(); err != nil {
		return "<invalid: " + err.Error() + ">"
	}
	dt := t.DType()
	s := dt.String() + formatShape(t.Shape)
	if t.Strides != nil && !slices.Equal(t.Strides, scatter.ContiguousStrides(t.Shape)) {
		s += " strides=" + formatShape(t.Strides)
	}
	if t.Offset != 0 {
		s += " offset=" + strconv.Itoa(t.Offset)
	}
	if n := scatter.DataLen(t.Data); n != t.NumEl() {
		s += " backing=" + strconv.Itoa(n)
	}
	if pos := t.Positions(); len(pos) <= 16 {
		parts := make([]string, len(pos))
		for i, p := range pos {
			parts[i] = scatter.FormatAt(t.Data, p)
			switch d := t.Data.(type) {
			case []scatter.Float16:
				parts[i] += fmt.Sprintf("/0x%04x", uint16(d[p]))
			case []scatter.BFloat16:
				parts[i] += fmt.Sprintf("/0x%04x", uint16(d[p]))
			}
		}
		s += "(" + strings.Join(parts, " ") + ")"
	}
	return s
}
