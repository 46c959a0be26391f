// Package npy reads and writes scatter.Tensor values as NumPy .npy files,
// the array format of the fixtures.
//
// # What github.com/sbinet/npyio v0.6.0 supports, and why this package does not use it
//
// Read from its source (npy/reader.go, npy/writer.go) and tried on files
// that numpy 1.24 wrote:
//
//   - dtypes: bool ('|b1'), (u)int8..64, float32, float64, complex64/128
//     and strings. No float16: '<f2' fails with "no reflect.Type for
//     dtype=<f2". Big-endian descrs are honoured.
//   - zero-size dimensions and 0-d arrays read fine (shape () comes back as
//     a nil Header shape); but Write only writes what it can infer from a Go
//     value: a scalar as shape (), a slice as (len,), a gonum mat.Dense as
//     (rows, cols). No way to write an N-d or zero-size N-d shape.
//   - Fortran order is parsed into the Header and honoured only when reading
//     into a *mat.Dense; reading into a slice returns storage (column-major)
//     order silently.
//   - Write always emits version 2.0 with a header padded to neither 16 nor
//     64 bytes (numpy reads it, but the bytes differ from numpy's).
//   - Malformed input is not safe: the header length is trusted
//     (make([]byte, hdrLen) with up to 4 GiB from a version 2 file); a
//     header without '\n', keys in another order, a negative size or a
//     truncated header panic with slice bounds out of range; a shape whose
//     product is negative panics in make, a huge one is allocated up front;
//     truncated data is not an error at all (each element is read with one
//     unchecked r.Read, so a short file repeats its last element: [1 2 3 3]);
//     bool bytes other than 0 and 1 read as false.
//
// So this package implements the format itself (it is small: NEP 1 and
// numpy.lib.format), writing byte for byte what numpy 1.24's np.save writes,
// and uses npyio only in its tests, as an independent second reader and
// writer for the dtypes they share.
//
// # The format as written here
//
// Write produces version 1.0, C order, little-endian, with numpy's
// header: the dict {'descr': ..., 'fortran_order': False, 'shape': (...), }
// padded with spaces for the growth of the first axis (numpy's
// GROWTH_AXIS_MAX_DIGITS) and to a multiple of 64 bytes, then '\n'. The
// descrs are
//
//	bool '|b1'  uint8 '|u1'  int8 '|i1'  int16 '<i2'  int32 '<i4'  int64 '<i8'
//	float16 '<f2'  float32 '<f4'  float64 '<f8'  bfloat16 '<u2' (bit patterns)
//
// bfloat16 has no numpy dtype, so it is stored as its uint16 bit patterns
// and the dtype is recorded beside the file (a fixture's case.json does);
// ReadAs reads such a file back as bfloat16.
//
// Read accepts versions 1.0, 2.0 and 3.0, keys in any order, either byte
// order, and Fortran order (returned as a contiguous, row-major tensor). It
// never trusts a size it has not seen: the header is limited to 64 KiB, the
// shape to 64 dimensions whose product must fit an int, and the data is read
// as it arrives, so a file claiming more than it holds costs no more memory
// than it holds. Every rejection is a *scatter.Error with code
// ErrInvalidArgument; nothing panics.
package npy
