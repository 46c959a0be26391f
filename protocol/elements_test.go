package protocol

import (
	"bytes"
	"encoding/base64"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/scatterconf/scatter"
)

// wholeDecode is the one-shot decoding that decodeElements does a chunk at
// a time: the bytes, or an error where the data is malformed or holds
// other than want bytes.
func wholeDecode(data string, want int) ([]byte, error) {
	raw := make([]byte, base64.StdEncoding.DecodedLen(len(data)))
	got, err := base64.StdEncoding.Strict().Decode(raw, []byte(data))
	if err == nil && got != want {
		err = fmt.Errorf("%d bytes, want %d", got, want)
	}
	return raw[:got], err
}

// TestDecodeElementsChunkBoundaries_AllDTypes decodes data of 0 to 3
// chunks, around each chunk boundary, intact and corrupted at and beside
// the boundaries, and compares with the one-shot decoding: the same
// elements, or an error exactly where the one-shot decoding fails (at the
// same input byte for a bad character).
func TestDecodeElementsChunkBoundaries_AllDTypes(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	chunkBytes := decodeChars / 4 * 3
	for _, dt := range scatter.DTypes {
		size := dt.Size()
		for _, nb := range []int{0, size, chunkBytes - size, chunkBytes, chunkBytes + size, 2*chunkBytes + 3*size, 3 * chunkBytes} {
			n := nb / size
			raw := make([]byte, n*size)
			for i := range raw {
				raw[i] = byte(rng.Uint32())
				if dt == scatter.DTBool {
					raw[i] &= 1
				}
			}
			data := base64.StdEncoding.EncodeToString(raw)
			variants := map[string]string{"intact": data}
			for _, at := range []int{decodeChars - 4, decodeChars - 1, decodeChars, decodeChars + 1, 2*decodeChars + 2, len(data) - 1} {
				if at >= 0 && at < len(data) {
					variants[fmt.Sprintf("bad char at %d", at)] = data[:at] + "!" + data[at+1:]
				}
			}
			if len(data) > decodeChars {
				// a valid ending ("AA==") that closes the first chunk
				variants["padding ending chunk 0"] = data[:decodeChars-4] + "AA==" + data[decodeChars:]
			}
			for name, v := range variants {
				want, werr := wholeDecode(v, n*size)
				got, err := decodeElements(dt, v, n)
				switch {
				case werr != nil && err == nil:
					t.Errorf("%v, %d bytes, %s: decoded, the one-shot decoding fails: %v", dt, nb, name, werr)
				case werr == nil && err != nil:
					t.Errorf("%v, %d bytes, %s: %v, the one-shot decoding succeeds", dt, nb, name, err)
				case err != nil:
					if scatter.CodeOf(err) != scatter.ErrInvalidArgument {
						t.Errorf("%v, %d bytes, %s: %v, want invalid_argument", dt, nb, name, err)
					}
					if strings.Contains(werr.Error(), "illegal base64") && !strings.Contains(err.Error(), werr.Error()) {
						t.Errorf("%v, %d bytes, %s: %v, the one-shot decoding says %v", dt, nb, name, err, werr)
					}
				default:
					if !bytes.Equal(tensorBytes(scatter.Tensor{Shape: []int{n}, Data: got}), want) {
						t.Errorf("%v, %d bytes, %s: elements differ from the one-shot decoding", dt, nb, name)
					}
				}
			}
		}
	}
}

// TestDecodeElementsBoolByte_SecondChunk names the element of a bad bool
// byte past the first chunk by its index in the whole tensor.
func TestDecodeElementsBoolByte_SecondChunk(t *testing.T) {
	n := decodeChars/4*3 + 10
	raw := make([]byte, n)
	raw[n-3] = 2
	_, err := decodeElements(scatter.DTBool, base64.StdEncoding.EncodeToString(raw), n)
	if want := fmt.Sprintf("bool element %d is the byte 2", n-3); err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("err %v, want %q", err, want)
	}
}
