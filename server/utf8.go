package server

import (
	"context"
	"fmt"
	"unicode/utf8"

	"google.golang.org/grpc"
	"google.golang.org/grpc/encoding"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"

	"github.com/idnode/idnode/docid"
	forwardv1 "github.com/idnode/idnode/proto/idnode/forward/v1"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Bad UTF-8 in a request is bad input like any other: INVALID_ARGUMENT naming the rule and the
// field, and nothing changes. protobuf-go refuses invalid UTF-8 in a string field while
// decoding, and grpc-go turns every decoding error into INTERNAL before a handler or
// interceptor sees the call. So the server's codec decodes such a request leniently, keeping
// the bytes as they came, and checkUTF8, the first interceptor after auth, refuses it with the
// field named.

// lenientCodec is grpc's proto codec, except that a message that fails to decode is decoded
// again without the UTF-8 check on string fields. Everything else must still be well formed.
type lenientCodec struct {
	encoding.CodecV2
}

func newLenientCodec() lenientCodec {
	return lenientCodec{CodecV2: encoding.GetCodecV2("proto")}
}

func (c lenientCodec) Unmarshal(data mem.BufferSlice, v any) error {
	err := c.CodecV2.Unmarshal(data, v)
	m, ok := v.(proto.Message)
	if err == nil || !ok {
		return err
	}
	buf := data.Materialize()
	proto.Reset(m)
	if lerr := unmarshalKeepingStrings(buf, m.ProtoReflect()); lerr != nil {
		// Malformed beyond UTF-8 (truncated, corrupt): the original error says how. grpc-go
		// would answer a codec error INTERNAL, so the call goes on with an empty message and
		// the first interceptor refuses it (malformed.go).
		proto.Reset(m)
		markUndecodable(m, err)
	}
	return nil
}

// unmarshalKeepingStrings decodes b into m field by field: string fields (and strings inside
// nested messages) are set as they are, whatever their bytes; every other field goes through
// proto.Unmarshal.
func unmarshalKeepingStrings(b []byte, m protoreflect.Message) error {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return protowire.ParseError(n)
		}
		size := protowire.ConsumeFieldValue(num, typ, b[n:])
		if size < 0 {
			return protowire.ParseError(size)
		}
		field, value := b[:n+size], b[n:n+size]
		b = b[n+size:]
		fd := m.Descriptor().Fields().ByNumber(num)
		if fd == nil || typ != protowire.BytesType || fd.IsMap() ||
			(fd.Kind() != protoreflect.StringKind && fd.Kind() != protoreflect.MessageKind) {
			if err := (proto.UnmarshalOptions{Merge: true}).Unmarshal(field, m.Interface()); err != nil {
				return err
			}
			continue
		}
		raw, _ := protowire.ConsumeBytes(value)
		switch {
		case fd.Kind() == protoreflect.StringKind && fd.IsList():
			m.Mutable(fd).List().Append(protoreflect.ValueOfString(string(raw)))
		case fd.Kind() == protoreflect.StringKind:
			m.Set(fd, protoreflect.ValueOfString(string(raw)))
		case fd.IsList():
			list := m.Mutable(fd).List()
			elem := list.NewElement()
			if err := unmarshalKeepingStrings(raw, elem.Message()); err != nil {
				return err
			}
			list.Append(elem)
		default:
			if err := unmarshalKeepingStrings(raw, m.Mutable(fd).Message()); err != nil {
				return err
			}
		}
	}
	return nil
}

// checkUTF8 refuses a request with a string field that is not valid UTF-8. The servers run it
// as a step of unary or internalUnary (intercept.go); on its own it is the step's unit under
// test.
func (s *interceptors) checkUTF8(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	return checkedHandle(ctx, req, handler)
}

// checkStrings is checkUTF8's check: the hot requests' strings directly, the rest (and a hot
// one with a bad string, to name the field) by walking the message.
func checkStrings(req any) error {
	if stringsValid(req) {
		return nil
	}
	if m, ok := req.(proto.Message); ok {
		if err := validUTF8(m.ProtoReflect(), ""); err != nil {
			return toStatus(err)
		}
	}
	return nil
}

// stringsValid reports, without protobuf reflection, that every string field of one of the
// hot requests is UTF-8: Generate (3% of a node's CPU under server-side IDs) and a follower's
// relayed identities on the leader (4% of its CPU under round-robin identities, walking every
// increment). False for another type. TestStringsValidCoversEveryField keeps the lists whole.
func stringsValid(req any) bool {
	switch r := req.(type) {
	case *idnodev1.GenerateRequest:
		return utf8.ValidString(r.GetId()) && utf8.ValidString(r.GetRequestId()) &&
			utf8.ValidString(r.GetDatabase()) && utf8.ValidString(r.GetOwner())
	case *forwardv1.NextIdentitiesRequest:
		for _, inc := range r.GetIncrements() {
			if !utf8.ValidString(inc.GetName()) || !utf8.ValidString(inc.GetRequestId()) ||
				!utf8.ValidString(inc.GetDatabase()) {
				return false
			}
		}
		return true
	}
	return false
}

// validUTF8 walks every string of m, nested messages and lists included.
func validUTF8(m protoreflect.Message, path string) error {
	var err error
	m.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		name := path + string(fd.Name())
		switch {
		case fd.IsMap():
			return true
		case fd.IsList():
			list := v.List()
			for i := 0; i < list.Len() && err == nil; i++ {
				err = validValue(fd, list.Get(i), fmt.Sprintf("%s[%d]", name, i))
			}
		default:
			err = validValue(fd, v, name)
		}
		return err == nil
	})
	return err
}

func validValue(fd protoreflect.FieldDescriptor, v protoreflect.Value, name string) error {
	switch fd.Kind() {
	case protoreflect.StringKind:
		return docid.ValidateUTF8("field "+name, v.String())
	case protoreflect.MessageKind, protoreflect.GroupKind:
		return validUTF8(v.Message(), name+".")
	}
	return nil
}
