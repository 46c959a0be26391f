package main

import (
	"testing"

	"github.com/scatterconf/scatter"
	"github.com/scatterconf/scatter/protocol"
	"github.com/scatterconf/scatter/workload"
)

// BenchmarkOracleAnswer times the oracle's answer to W1 scaled down by 10
// (a million contributions, a request line of 16.5 MB), and its
// parts: the protocol's decoding of the line, and the extension fields'
// (decodeExt, and json.Unmarshal of the whole line, which it replaced).
func BenchmarkOracleAnswer(b *testing.B) {
	wl := workload.MustGet(1, 10)
	line, err := protocol.EncodeCall(1, wl.Call)
	if err != nil {
		b.Fatal(err)
	}
	o := &oracle{allowed: true, allowedMax: defaultAllowedMax, profile: scatter.Torch2}
	b.Run("answer", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			o.answer(line)
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			protocol.DecodeRequest(line)
		}
	})
	b.Run("ext", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			decodeExt(line)
		}
	})
	b.Run("ext-unmarshal", func(b *testing.B) {
		b.SetBytes(int64(len(line)))
		for b.Loop() {
			unmarshalExt(line)
		}
	})
}
