package npy

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/scatterconf/scatter"
)

const (
	// maxHeaderLen bounds the header Read accepts. numpy's own default
	// limit is 10000 bytes; every version 1.0 header fits.
	maxHeaderLen = 1 << 16
	// maxDims bounds the rank Read accepts (numpy 2's NPY_MAXDIMS).
	maxDims = 64
	// arrayAlign is the alignment of the data that np.save gives.
	arrayAlign = 64
	// growthAxisMaxDigits is the room np.save leaves for the first axis.
	growthAxisMaxDigits = 21
)

var magic = []byte("\x93NUMPY")

// bad returns the package's error: invalid_argument, "npy: ...".
func bad(format string, args ...any) *scatter.Error {
	return scatter.Errorf(scatter.ErrInvalidArgument, "npy: "+format, args...)
}

// Descr returns the .npy descr that Write uses for dt, or "" for an invalid
// dtype. bfloat16 is '<u2': its bit patterns.
func Descr(dt scatter.DType) string {
	switch dt {
	case scatter.DTBool:
		return "|b1"
	case scatter.DTUint8:
		return "|u1"
	case scatter.DTInt8:
		return "|i1"
	case scatter.DTInt16:
		return "<i2"
	case scatter.DTInt32:
		return "<i4"
	case scatter.DTInt64:
		return "<i8"
	case scatter.DTFloat16:
		return "<f2"
	case scatter.DTBFloat16:
		return "<u2"
	case scatter.DTFloat32:
		return "<f4"
	case scatter.DTFloat64:
		return "<f8"
	}
	return ""
}

// Write writes t (any valid view) as a C-order .npy file, as numpy's np.save
// would write the same array. An invalid t is the *scatter.Error of
// t.Validate, more than 64 dimensions an *scatter.Error with code
// ErrInvalidArgument; a failing w returns its error, wrapped.
func Write(w io.Writer, t scatter.Tensor) error {
	if err := t.Validate(); err != nil {
		return err
	}
	if t.Dim() > maxDims {
		return bad("%d dimensions, more than the %d a .npy file may have", t.Dim(), maxDims)
	}
	hdr := header(Descr(t.DType()), t.Shape)
	body := encode(t.Contiguous().Data)
	if _, err := w.Write(hdr); err != nil {
		return fmt.Errorf("npy: writing the header: %w", err)
	}
	if _, err := w.Write(body); err != nil {
		return fmt.Errorf("npy: writing the data: %w", err)
	}
	return nil
}

// header returns the magic string, version 1.0, header length and padded
// header dict that numpy 1.24 writes for an array of this descr and shape
// in C order. With at most maxDims dimensions the header is far below the
// 64 KiB that needs version 2.0.
func header(descr string, shape []int) []byte {
	var d strings.Builder
	fmt.Fprintf(&d, "{'descr': '%s', 'fortran_order': False, 'shape': %s, }", descr, shapeRepr(shape))
	if len(shape) > 0 {
		if n := growthAxisMaxDigits - len(strconv.Itoa(shape[0])); n > 0 {
			d.WriteString(strings.Repeat(" ", n))
		}
	}
	dict := d.String()
	hlen := len(dict) + 1 // with the final '\n'
	// numpy pads so that the data starts at a multiple of 64 bytes, after
	// the magic string, the version and the uint16 header length.
	pad := arrayAlign - (len(magic)+4+hlen)%arrayAlign
	out := make([]byte, 0, len(magic)+4+hlen+pad)
	out = append(out, magic...)
	out = append(out, 1, 0)
	out = binary.LittleEndian.AppendUint16(out, uint16(hlen+pad))
	out = append(out, dict...)
	out = append(out, bytes.Repeat([]byte{' '}, pad)...)
	return append(out, '\n')
}

// shapeRepr writes shape as Python's repr of a tuple of ints.
func shapeRepr(shape []int) string {
	switch len(shape) {
	case 0:
		return "()"
	case 1:
		return "(" + strconv.Itoa(shape[0]) + ",)"
	}
	s := make([]string, len(shape))
	for i, n := range shape {
		s[i] = strconv.Itoa(n)
	}
	return "(" + strings.Join(s, ", ") + ")"
}

// encode returns the little-endian bytes of a contiguous element slice.
func encode(data any) []byte {
	switch d := data.(type) {
	case []bool:
		b := make([]byte, len(d))
		for i, v := range d {
			if v {
				b[i] = 1
			}
		}
		return b
	case []uint8:
		return append([]byte{}, d...)
	case []int8:
		b := make([]byte, len(d))
		for i, v := range d {
			b[i] = byte(v)
		}
		return b
	case []int16:
		b := make([]byte, 2*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
		return b
	case []int32:
		b := make([]byte, 4*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint32(b[4*i:], uint32(v))
		}
		return b
	case []int64:
		b := make([]byte, 8*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint64(b[8*i:], uint64(v))
		}
		return b
	case []scatter.Float16:
		b := make([]byte, 2*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
		return b
	case []scatter.BFloat16:
		b := make([]byte, 2*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint16(b[2*i:], uint16(v))
		}
		return b
	case []float32:
		b := make([]byte, 4*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(v))
		}
		return b
	case []float64:
		b := make([]byte, 8*len(d))
		for i, v := range d {
			binary.LittleEndian.PutUint64(b[8*i:], math.Float64bits(v))
		}
		return b
	}
	return nil
}

// Header is what a .npy header says about the array that follows it.
type Header struct {
	Descr   string // as written, e.g. "<f4"
	Fortran bool   // data in column-major order
	Shape   []int  // non-nil; [] for a 0-d array

	kind  byte // 'b', 'u', 'i' or 'f'
	size  int  // bytes per element
	order binary.ByteOrder
}

// DType returns the scatter dtype of the file's elements, or DTInvalid for a
// descr with none ('<u2': bfloat16 or float16 bit patterns, see ReadAs).
func (h Header) DType() scatter.DType {
	switch {
	case h.kind == 'b' && h.size == 1:
		return scatter.DTBool
	case h.kind == 'u' && h.size == 1:
		return scatter.DTUint8
	case h.kind == 'i' && h.size == 1:
		return scatter.DTInt8
	case h.kind == 'i' && h.size == 2:
		return scatter.DTInt16
	case h.kind == 'i' && h.size == 4:
		return scatter.DTInt32
	case h.kind == 'i' && h.size == 8:
		return scatter.DTInt64
	case h.kind == 'f' && h.size == 2:
		return scatter.DTFloat16
	case h.kind == 'f' && h.size == 4:
		return scatter.DTFloat32
	case h.kind == 'f' && h.size == 8:
		return scatter.DTFloat64
	}
	return scatter.DTInvalid
}

// Read reads a .npy file into a contiguous tensor of the dtype its descr
// names. A '<u2' file (bfloat16 bit patterns) needs ReadAs. Malformed input
// (bad magic or version, an oversized or unparsable header, an unknown or
// structured descr, a negative or overflowing shape, data shorter than the
// shape needs, a bool byte other than 0 or 1) is an *scatter.Error with code
// ErrInvalidArgument.
func Read(r io.Reader) (scatter.Tensor, error) {
	h, err := ReadHeader(r)
	if err != nil {
		return scatter.Tensor{}, err
	}
	dt := h.DType()
	if dt == scatter.DTInvalid {
		if h.kind == 'u' && h.size == 2 {
			return scatter.Tensor{}, bad("descr %q has no scatter dtype; a file of bfloat16 or float16 bit patterns is read with ReadAs", h.Descr)
		}
		return scatter.Tensor{}, bad("descr %q has no scatter dtype", h.Descr)
	}
	return readData(r, h, dt)
}

// ReadAs reads a .npy file into a contiguous tensor of dtype dt. The file's
// descr must be dt's, except that a file of 16-bit integers ('<u2', or '<i2'
// as torch's .view(torch.int16) gives) is reinterpreted as the bit patterns
// of a bfloat16 or float16 dt. Errors are Read's, and a descr that does not
// fit dt.
func ReadAs(r io.Reader, dt scatter.DType) (scatter.Tensor, error) {
	if !dt.Valid() {
		return scatter.Tensor{}, bad("invalid dtype %v", dt)
	}
	h, err := ReadHeader(r)
	if err != nil {
		return scatter.Tensor{}, err
	}
	bits16 := (h.kind == 'u' || h.kind == 'i') && h.size == 2
	if h.DType() != dt && !(bits16 && (dt == scatter.DTBFloat16 || dt == scatter.DTFloat16)) {
		return scatter.Tensor{}, bad("descr %q does not hold %v", h.Descr, dt)
	}
	return readData(r, h, dt)
}

// ReadHeader reads the magic string, version and header of a .npy file,
// leaving r at the first byte of the data.
func ReadHeader(r io.Reader) (Header, error) {
	var pre [10]byte
	if _, err := io.ReadFull(r, pre[:8]); err != nil {
		return Header{}, readErr("the magic string", err)
	}
	if !bytes.Equal(pre[:6], magic) {
		return Header{}, bad("not a .npy file: starts with %q", pre[:6])
	}
	major, minor := pre[6], pre[7]
	var hlen int
	switch {
	case major == 1 && minor == 0:
		if _, err := io.ReadFull(r, pre[8:10]); err != nil {
			return Header{}, readErr("the header length", err)
		}
		hlen = int(binary.LittleEndian.Uint16(pre[8:10]))
	case (major == 2 || major == 3) && minor == 0:
		var l [4]byte
		if _, err := io.ReadFull(r, l[:]); err != nil {
			return Header{}, readErr("the header length", err)
		}
		n := binary.LittleEndian.Uint32(l[:])
		if n > maxHeaderLen {
			return Header{}, bad("header of %d bytes is over the limit of %d", n, maxHeaderLen)
		}
		hlen = int(n)
	default:
		return Header{}, bad("unsupported format version %d.%d", major, minor)
	}
	buf := make([]byte, hlen)
	if _, err := io.ReadFull(r, buf); err != nil {
		return Header{}, readErr("the header", err)
	}
	return parseHeader(buf)
}

func readErr(what string, err error) *scatter.Error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return bad("truncated file: it ends in %s", what)
	}
	return bad("reading %s: %v", what, err)
}

// readData reads the elements that h describes and decodes them as dt,
// whose size must be h's.
func readData(r io.Reader, h Header, dt scatter.DType) (scatter.Tensor, error) {
	numel, err := scatter.NumElements(h.Shape) // the parser let no negative size through
	if err != nil {
		return scatter.Tensor{}, bad("shape %v has more elements than an int can count", h.Shape)
	}
	if numel > math.MaxInt/h.size {
		return scatter.Tensor{}, bad("shape %v of %d-byte elements has more bytes than an int can count", h.Shape, h.size)
	}
	want := numel * h.size
	// Read what is there, up to what the shape needs: a buffer that grows
	// with the data, never allocated from the claim alone.
	var buf bytes.Buffer
	n, err := io.CopyN(&buf, r, int64(want))
	if err != nil && !errors.Is(err, io.EOF) {
		return scatter.Tensor{}, bad("reading the data: %v", err)
	}
	if n < int64(want) {
		return scatter.Tensor{}, bad("truncated data: shape %v of %q needs %d bytes, the file has %d", h.Shape, h.Descr, want, n)
	}
	data, err := decode(buf.Bytes(), dt, h.order)
	if err != nil {
		return scatter.Tensor{}, err
	}
	t := scatter.Tensor{Shape: h.Shape, Data: data}
	if h.Fortran && len(h.Shape) > 1 && numel > 1 {
		// Column-major storage: the strides run the other way.
		st := make([]int, len(h.Shape))
		s := 1
		for d, n := range h.Shape {
			st[d] = s
			s *= n
		}
		t.Strides = st
		t = t.Contiguous()
	}
	return t, nil
}

// decode returns the elements of b, of dtype dt, in byte order o.
func decode(b []byte, dt scatter.DType, o binary.ByteOrder) (any, error) {
	switch dt {
	case scatter.DTBool:
		d := make([]bool, len(b))
		for i, v := range b {
			switch v {
			case 0:
			case 1:
				d[i] = true
			default:
				return nil, bad("bool element %d is the byte %d, not 0 or 1", i, v)
			}
		}
		return d, nil
	case scatter.DTUint8:
		return append(make([]uint8, 0, len(b)), b...), nil
	case scatter.DTInt8:
		d := make([]int8, len(b))
		for i, v := range b {
			d[i] = int8(v)
		}
		return d, nil
	case scatter.DTInt16:
		d := make([]int16, len(b)/2)
		for i := range d {
			d[i] = int16(o.Uint16(b[2*i:]))
		}
		return d, nil
	case scatter.DTInt32:
		d := make([]int32, len(b)/4)
		for i := range d {
			d[i] = int32(o.Uint32(b[4*i:]))
		}
		return d, nil
	case scatter.DTInt64:
		d := make([]int64, len(b)/8)
		for i := range d {
			d[i] = int64(o.Uint64(b[8*i:]))
		}
		return d, nil
	case scatter.DTFloat16:
		d := make([]scatter.Float16, len(b)/2)
		for i := range d {
			d[i] = scatter.Float16(o.Uint16(b[2*i:]))
		}
		return d, nil
	case scatter.DTBFloat16:
		d := make([]scatter.BFloat16, len(b)/2)
		for i := range d {
			d[i] = scatter.BFloat16(o.Uint16(b[2*i:]))
		}
		return d, nil
	case scatter.DTFloat32:
		d := make([]float32, len(b)/4)
		for i := range d {
			d[i] = math.Float32frombits(o.Uint32(b[4*i:]))
		}
		return d, nil
	case scatter.DTFloat64:
		d := make([]float64, len(b)/8)
		for i := range d {
			d[i] = math.Float64frombits(o.Uint64(b[8*i:]))
		}
		return d, nil
	}
	return nil, bad("invalid dtype %v", dt)
}

// parseHeader parses the header dict: a Python literal with exactly the
// keys 'descr' (a string), 'fortran_order' (True or False) and 'shape' (a
// tuple of non-negative ints), in any order, then only whitespace.
func parseHeader(buf []byte) (Header, error) {
	p := &parser{s: buf}
	var h Header
	seen := map[string]bool{}
	p.space()
	if !p.eat('{') {
		return h, bad("header %q is not a dict", clip(buf))
	}
	for {
		p.space()
		if p.eat('}') {
			break
		}
		key, err := p.str()
		if err != nil {
			return h, err
		}
		if seen[key] {
			return h, bad("header key %q given twice", key)
		}
		seen[key] = true
		p.space()
		if !p.eat(':') {
			return h, bad("header: no ':' after key %q", key)
		}
		p.space()
		switch key {
		case "descr":
			if p.peek() == '[' {
				return h, bad("structured dtypes (a list descr) are not supported")
			}
			if h.Descr, err = p.str(); err != nil {
				return h, err
			}
		case "fortran_order":
			switch {
			case p.word("True"):
				h.Fortran = true
			case p.word("False"):
			default:
				return h, bad("header: 'fortran_order' is not True or False")
			}
		case "shape":
			if h.Shape, err = p.tuple(); err != nil {
				return h, err
			}
		default:
			return h, bad("header has the unknown key %q", key)
		}
		p.space()
		if p.eat('}') {
			break
		}
		if !p.eat(',') {
			return h, bad("header: no ',' or '}' after the value of %q", key)
		}
	}
	p.space()
	if p.i != len(p.s) {
		return h, bad("header has %q after the dict", clip(p.s[p.i:]))
	}
	for _, k := range []string{"descr", "fortran_order", "shape"} {
		if !seen[k] {
			return h, bad("header has no %q", k)
		}
	}
	var err error
	h.kind, h.size, h.order, err = parseDescr(h.Descr)
	return h, err
}

// parseDescr parses a simple numpy type string: a byte order ('<', '>',
// '|'), a kind ('b', 'u', 'i', 'f') and a size in bytes.
func parseDescr(s string) (kind byte, size int, order binary.ByteOrder, err error) {
	if len(s) == 3 {
		kind, size = s[1], int(s[2]-'0')
		ok := false
		switch kind {
		case 'b':
			ok = size == 1
		case 'u', 'i':
			ok = size == 1 || size == 2 || size == 4 || size == 8
		case 'f':
			ok = size == 2 || size == 4 || size == 8
		}
		switch {
		case !ok:
		case s[0] == '<':
			return kind, size, binary.LittleEndian, nil
		case s[0] == '>':
			return kind, size, binary.BigEndian, nil
		case s[0] == '|' && size == 1:
			return kind, size, binary.LittleEndian, nil
		}
	}
	return 0, 0, nil, bad("unsupported descr %q", s)
}

func clip(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}

// parser reads a Python literal.
type parser struct {
	s []byte
	i int
}

func (p *parser) peek() byte {
	if p.i < len(p.s) {
		return p.s[p.i]
	}
	return 0
}

func (p *parser) eat(c byte) bool {
	if p.i < len(p.s) && p.s[p.i] == c {
		p.i++
		return true
	}
	return false
}

func (p *parser) space() {
	for p.i < len(p.s) && (p.s[p.i] == ' ' || p.s[p.i] == '\t' || p.s[p.i] == '\n' || p.s[p.i] == '\r') {
		p.i++
	}
}

// word consumes w if it comes next and is not followed by a name character.
func (p *parser) word(w string) bool {
	if !bytes.HasPrefix(p.s[p.i:], []byte(w)) {
		return false
	}
	if j := p.i + len(w); j < len(p.s) {
		if c := p.s[j]; c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			return false
		}
	}
	p.i += len(w)
	return true
}

// str reads a quoted string without escapes.
func (p *parser) str() (string, error) {
	q := p.peek()
	if q != '\'' && q != '"' {
		return "", bad("header: expected a string at byte %d", p.i)
	}
	end := bytes.IndexByte(p.s[p.i+1:], q)
	if end < 0 {
		return "", bad("header: unterminated string")
	}
	s := p.s[p.i+1 : p.i+1+end]
	if bytes.IndexByte(s, '\\') >= 0 || bytes.IndexByte(s, '\n') >= 0 {
		return "", bad("header: unsupported string %q", s)
	}
	p.i += end + 2
	return string(s), nil
}

// tuple reads a tuple of non-negative ints: (), (3,), (2, 3) or (2, 3,).
func (p *parser) tuple() ([]int, error) {
	if !p.eat('(') {
		return nil, bad("header: 'shape' is not a tuple")
	}
	shape := []int{}
	comma := false // a ',' after the last size
	for {
		p.space()
		if p.eat(')') {
			if len(shape) == 1 && !comma {
				return nil, bad("header: 'shape' (%d) is an int, not a tuple", shape[0])
			}
			return shape, nil
		}
		if len(shape) > 0 && !comma {
			return nil, bad("header: 'shape' is not a tuple of ints")
		}
		if len(shape) == maxDims {
			return nil, bad("header: 'shape' has more than %d dimensions", maxDims)
		}
		start := p.i
		for p.i < len(p.s) && p.s[p.i] >= '0' && p.s[p.i] <= '9' {
			p.i++
		}
		if p.i == start {
			if p.peek() == '-' {
				return nil, bad("header: 'shape' has a negative size")
			}
			return nil, bad("header: 'shape' is not a tuple of ints")
		}
		n, err := strconv.Atoi(string(p.s[start:p.i]))
		if err != nil {
			return nil, bad("header: size %q in 'shape' does not fit an int", p.s[start:p.i])
		}
		p.eat('L') // Python 2's long suffix, which numpy still accepts
		shape = append(shape, n)
		p.space()
		comma = p.eat(',')
	}
}
