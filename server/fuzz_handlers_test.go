package server_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/proto"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Bounds on one fuzzed call. A call that needs longer than fuzzCallTimeout is stuck (a node
// answers every request within an election wait); one that allocates more than
// fuzzCallAllocation has let the caller size a buffer.
const (
	fuzzCallTimeout    = 5 * time.Second
	fuzzCallAllocation = 256 << 20
	fuzzStreamMessages = 64 // Backup chunks read before the fuzzer hangs up
)

// fuzzMethod is one RPC of the public services, called with whatever bytes the fuzzer made.
type fuzzMethod struct {
	name                       string // /package.Service/Method
	clientStream, serverStream bool
}

// fuzzMethods lists every method of the public services from their generated descriptors, so
// an RPC added later is fuzzed without touching this file.
func fuzzMethods() []fuzzMethod {
	var ms []fuzzMethod
	for _, sd := range []grpc.ServiceDesc{idnodev1.IdService_ServiceDesc, idnodev1.ClusterService_ServiceDesc} {
		for _, m := range sd.Methods {
			ms = append(ms, fuzzMethod{name: "/" + sd.ServiceName + "/" + m.MethodName})
		}
		for _, s := range sd.Streams {
			ms = append(ms, fuzzMethod{name: "/" + sd.ServiceName + "/" + s.StreamName, clientStream: s.ClientStreams, serverStream: s.ServerStreams})
		}
	}
	return ms
}

// rawCodec sends the fuzzer's bytes as the request message unchanged and keeps the answer's
// bytes, so the server's own decoding is what meets malformed input.
type rawCodec struct{}

func (rawCodec) Name() string { return "proto" }

func (rawCodec) Marshal(v any) ([]byte, error) {
	b, ok := v.(*[]byte)
	if !ok {
		return nil, fmt.Errorf("rawCodec marshals *[]byte, not %T", v)
	}
	return *b, nil
}

func (rawCodec) Unmarshal(data []byte, v any) error {
	b, ok := v.(*[]byte)
	if !ok {
		return fmt.Errorf("rawCodec unmarshals into *[]byte, not %T", v)
	}
	*b = append((*b)[:0], data...)
	return nil
}

// FuzzHandlers sends arbitrary request bytes to every RPC of a real single-node server, one
// node for the whole run so that state a call leaves behind (a seeded counter, a claim, a
// database) meets the calls after it, as it would for a hostile caller. Each call must finish
// within fuzzCallTimeout, allocate at most fuzzCallAllocation, and never answer INTERNAL or
// UNKNOWN: bad input is INVALID_ARGUMENT or OUT_OF_RANGE, and a wrong state has a code of its own.
func FuzzHandlers(f *testing.F) {
	methods := fuzzMethods()
	index := make(map[string]uint8, len(methods))
	for i, m := range methods {
		index[m.name] = uint8(i)
	}
	add := func(method string, m proto.Message) {
		i, ok := index[method]
		if !ok {
			f.Fatalf("seed for unknown method %s", method)
		}
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatalf("marshal seed for %s: %v", method, err)
		}
		f.Add(i, b)
	}
	for i := range methods {
		f.Add(uint8(i), []byte(nil))
		f.Add(uint8(i), []byte{0x0a, 0x05, 'a'}) // a string field cut short: a truncated message
	}
	// The hostile-input repros, in the order an attacker sends them: a claim and a seed just below the
	// largest int64 that once sent the FSM's skip loop round for ever, a block that ends at it,
	// and a HiLo last_max that once left its tag refusing every later range.
	add("/idnode.v1.IdService/Claim", &idnodev1.ClaimRequest{Ids: []string{"p/5"}})
	add("/idnode.v1.IdService/SeedIdentity", &idnodev1.SeedIdentityRequest{Name: "p", Value: math.MaxInt64 - 1})
	add("/idnode.v1.IdService/Generate", &idnodev1.GenerateRequest{Id: "p|"})
	add("/idnode.v1.IdService/SeedIdentity", &idnodev1.SeedIdentityRequest{Name: "big", Value: math.MaxInt64 - 3})
	add("/idnode.v1.IdService/Generate", &idnodev1.GenerateRequest{Id: "big|", Count: 3})
	add("/idnode.v1.IdService/NextIdentity", &idnodev1.NextIdentityRequest{Name: "big", Count: math.MaxInt32})
	add("/idnode.v1.IdService/NextHiLo", &idnodev1.NextHiLoRequest{Tag: "orders", LastMax: math.MaxInt64 - 100})
	add("/idnode.v1.IdService/NextHiLo", &idnodev1.NextHiLoRequest{Tag: "orders", LastBatchSize: math.MaxInt64})
	add("/idnode.v1.IdService/ReturnHiLo", &idnodev1.ReturnHiLoRequest{Tag: "orders", End: math.MaxInt64, Last: math.MinInt64})
	add("/idnode.v1.IdService/SeedHiLo", &idnodev1.SeedHiLoRequest{Tag: "orders", Max: math.MaxInt64})
	add("/idnode.v1.IdService/ListIdentities", &idnodev1.ListIdentitiesRequest{PageSize: math.MaxInt32})
	add("/idnode.v1.IdService/GetClaims", &idnodev1.GetClaimsRequest{PageSize: math.MaxInt32})
	add("/idnode.v1.IdService/AcquireWorker", &idnodev1.AcquireWorkerRequest{WorkerBits: 10, LeaseMs: math.MaxInt64})
	add("/idnode.v1.IdService/RenewWorker", &idnodev1.RenewWorkerRequest{Worker: math.MaxUint32, Epoch: math.MaxUint64, LeaseMs: 1000})
	add("/idnode.v1.IdService/ReleaseOwner", &idnodev1.ReleaseOwnerRequest{Owner: "p"})
	add("/idnode.v1.IdService/ReleaseWorker", &idnodev1.ReleaseWorkerRequest{Worker: 0, Epoch: math.MaxUint64})
	add("/idnode.v1.IdService/Generate", &idnodev1.GenerateRequest{Numeric: true, Count: math.MaxInt64})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "9223372036854775807"})
	// Opaque IDs: a collection and the numeric IDs made opaque, forms asked for and read back,
	// the values refused, and strings under the collection that are no form of it.
	add("/idnode.v1.ClusterService/MakeOpaque", &idnodev1.MakeOpaqueRequest{Collections: []string{"orders"}})
	add("/idnode.v1.ClusterService/MakeOpaque", &idnodev1.MakeOpaqueRequest{Numeric: true})
	add("/idnode.v1.IdService/Generate", &idnodev1.GenerateRequest{Id: "orders|", Count: 3})
	add("/idnode.v1.IdService/NextIdentity", &idnodev1.NextIdentityRequest{Name: "ORDERS"})
	add("/idnode.v1.IdService/ListIdentities", &idnodev1.ListIdentitiesRequest{Prefix: "ord"})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "orders/KC6HECSWE6SX7"})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "orders/kc6hecswe6sx"})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "orders/KC6HECSWE6SXU"})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "ZZZZZZZZZZZZZ"})
	add("/idnode.v1.IdService/Explain", &idnodev1.ExplainRequest{Id: "orders/1", Database: "nowhere"})

	c := newTestCluster(f, 1)
	cc := c.Dial(f, c.Tags()[0])
	f.Fuzz(func(t *testing.T, method uint8, payload []byte) {
		m := methods[int(method)%len(methods)]
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		err := callRaw(cc, m, payload)
		runtime.ReadMemStats(&after)
		if grown := after.TotalAlloc - before.TotalAlloc; grown > fuzzCallAllocation {
			t.Errorf("%s with %d bytes allocated %d MiB (bound %d MiB)", m.name, len(payload), grown>>20, fuzzCallAllocation>>20)
		}
		switch status.Code(err) {
		case codes.Internal, codes.Unknown:
			t.Errorf("%s with %x: %v (bad input must get a code that says what is wrong)", m.name, payload, err)
		case codes.DeadlineExceeded:
			t.Errorf("%s with %x took longer than %v: %v", m.name, payload, fuzzCallTimeout, err)
		}
	})
}

// callRaw makes one call of m with payload as the request, reading a streamed answer to its
// end or fuzzStreamMessages, whichever comes first.
func callRaw(cc *grpc.ClientConn, m fuzzMethod, payload []byte) error {
	ctx, cancel := context.WithTimeout(context.Background(), fuzzCallTimeout)
	defer cancel()
	codec := grpc.ForceCodec(rawCodec{})
	if !m.clientStream && !m.serverStream {
		var reply []byte
		return cc.Invoke(ctx, m.name, &payload, &reply, codec)
	}
	desc := &grpc.StreamDesc{ClientStreams: m.clientStream, ServerStreams: m.serverStream}
	st, err := cc.NewStream(ctx, desc, m.name, codec)
	if err != nil {
		return err
	}
	if err := st.SendMsg(&payload); err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	if err := st.CloseSend(); err != nil {
		return err
	}
	for range fuzzStreamMessages {
		var reply []byte
		if err := st.RecvMsg(&reply); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
	return nil
}
