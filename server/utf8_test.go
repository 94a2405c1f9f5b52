package server

import (
	"strings"
	"testing"

	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The lenient codec keeps invalid UTF-8 in strings nested in lists and messages, decodes every
// other field as protobuf does, and validUTF8 names the field; malformed input is noted.
func TestLenientCodecKeepsStringsForTheCheck(t *testing.T) {
	t.Parallel()
	node := func(tag string) []byte {
		b := protowire.AppendTag(nil, 1, protowire.BytesType)
		return protowire.AppendString(b, tag)
	}
	var b []byte
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, "A")
	b = protowire.AppendTag(b, 2, protowire.VarintType)
	b = protowire.AppendVarint(b, 7)
	for _, tag := range []string{"B", "C\xff"} {
		b = protowire.AppendTag(b, 4, protowire.BytesType)
		b = protowire.AppendBytes(b, node(tag))
	}

	var m idnodev1.StatusResponse
	if err := newLenientCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(b)}, &m); err != nil {
		t.Fatalf("lenient decode: %v", err)
	}
	if m.GetLeader() != "A" || m.GetTerm() != 7 || len(m.GetNodes()) != 2 || m.GetNodes()[1].GetTag() != "C\xff" {
		t.Fatalf("decoded %v", &m)
	}
	if err := validUTF8(m.ProtoReflect(), ""); err == nil || !strings.Contains(err.Error(), "field nodes[1].tag is not valid UTF-8") {
		t.Fatalf("validUTF8 = %v, want the field named", err)
	}

	// A truncated message decodes to an empty one, noted for refuseUndecodable (grpc-go would
	// answer the codec's error INTERNAL).
	malformed := append(append([]byte(nil), b...), 0x22, 0x05, 'x') // a length past the end
	if err := newLenientCodec().Unmarshal(mem.BufferSlice{mem.SliceBuffer(malformed)}, &m); err != nil {
		t.Fatalf("a truncated message: %v; want it noted, not an error", err)
	}
	if proto.Size(&m) != 0 {
		t.Fatalf("a truncated message decoded to %v; want an empty message", &m)
	}
	if err := takeUndecodable(&m); err == nil {
		t.Fatal("a truncated message was not noted as undecodable")
	}
	if err := takeUndecodable(&m); err != nil {
		t.Fatalf("the note outlived its first reading: %v", err)
	}
}
