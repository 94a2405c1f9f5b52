package hostile

import (
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/mem"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// rawRequest is a request's wire bytes, sent as they are: a Go client cannot marshal invalid
// UTF-8 into a string field, other clients can.
type rawRequest []byte

// rawCodec sends a rawRequest as is and decodes answers as protobuf.
type rawCodec struct{}

func (rawCodec) Marshal(v any) (mem.BufferSlice, error) {
	return mem.BufferSlice{mem.SliceBuffer(v.(rawRequest))}, nil
}

func (rawCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return proto.Unmarshal(data.Materialize(), v.(proto.Message))
}

func (rawCodec) Name() string { return "proto" }

// wireStrings encodes string fields by number, invalid UTF-8 and all.
func wireStrings(fields map[protowire.Number]string) rawRequest {
	var b []byte
	for num := protowire.Number(1); num <= 16; num++ {
		if s, ok := fields[num]; ok {
			b = protowire.AppendTag(b, num, protowire.BytesType)
			b = protowire.AppendString(b, s)
		}
	}
	return b
}

// Invalid UTF-8 in any string field used to answer INTERNAL ("grpc: failed
// to unmarshal"); bad input must be INVALID_ARGUMENT naming the rule. Nothing moves either.
func TestInvalidUTF8IsInvalidArgument(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	conn := e2etest.DialConn(t, p.GRPCAddr)
	for _, tc := range []struct {
		method string
		req    rawRequest
		field  string
	}{
		{"/idnode.v1.IdService/Generate", wireStrings(map[protowire.Number]string{1: "ab\xffcd|"}), "field id"},
		{"/idnode.v1.IdService/Generate", wireStrings(map[protowire.Number]string{1: "users|", 3: "retry-\xfe"}), "field request_id"},
		{"/idnode.v1.IdService/NextIdentity", wireStrings(map[protowire.Number]string{1: "inv\xc3"}), "field name"},
		{"/idnode.v1.IdService/SeedIdentity", wireStrings(map[protowire.Number]string{1: "users\xff"}), "field name"},
	} {
		var resp idnodev1.GenerateResponse
		err := conn.Invoke(e2etest.RPCCtx(t), tc.method, tc.req, &resp, grpc.ForceCodecV2(rawCodec{}))
		st := status.Convert(err)
		if st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), tc.field+" is not valid UTF-8") || reason.Of(err) != reason.InvalidInput {
			t.Errorf("%s with invalid UTF-8 in %s: %v; want INVALID_ARGUMENT naming the field and rule", tc.method, tc.field, err)
		}
	}
	e2etest.ExpectGenerate(t, c, "users|", "users/1")
}

// The README's refusal example carries its reason, for clients to branch on.
func TestReadmeRefusalCarriesAReason(t *testing.T) {
	t.Parallel()
	_, c := e2etest.StartSingle(t)
	_, err := c.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: `a\b`})
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput {
		t.Errorf("Generate(a\\b) = %v, reason %q; want INVALID_ARGUMENT, %s", err, reason.Of(err), reason.InvalidInput)
	}
	_, err = c.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "x", Value: -5})
	if status.Code(err) != codes.InvalidArgument || reason.Of(err) != reason.InvalidInput {
		t.Errorf("SeedIdentity(x, -5) = %v, reason %q; want INVALID_ARGUMENT, %s", err, reason.Of(err), reason.InvalidInput)
	}
}

// An answer too large for the client's 4 MiB limit used to fail on the
// client after the counter had moved, burning every value. Now it is refused first.
func TestTooLargeAnswerIsRefusedBeforeAnythingMoves(t *testing.T) {
	t.Parallel()
	_, c := e2etest.StartSingle(t)
	long := strings.Repeat("p", 1000)
	for _, id := range []string{long + "|", long + "/"} {
		_, err := c.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: id, Count: 5000})
		if st := status.Convert(err); st.Code() != codes.InvalidArgument || !strings.Contains(st.Message(), "answer limit") || reason.Of(err) != reason.InvalidInput {
			t.Errorf("Generate(%q…, count 5000) = %v; want INVALID_ARGUMENT naming the answer limit", id[len(id)-3:], err)
		}
	}
	e2etest.ExpectGenerate(t, c, long+"|", long+"/1")
	e2etest.ExpectGenerate(t, c, long+"/", long+"/0000000000000000001-A")
	// A count whose answer fits is answered whole.
	resp, err := c.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Id: long + "|", Count: 3000})
	if err != nil || len(resp.GetIds()) != 3000 {
		t.Fatalf("Generate(long|, count 3000) = %d IDs, %v", len(resp.GetIds()), err)
	}
}
