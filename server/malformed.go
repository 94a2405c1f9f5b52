package server

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/reason"
)

// A request that is not a protobuf message of its type (truncated, corrupt) is bad input:
// INVALID_ARGUMENT, as a caller must be told. grpc-go answers any error of the codec INTERNAL,
// before a handler or interceptor runs, and gives the codec no way to say otherwise. So
// lenientCodec hands the call an empty message and notes it here, and refuseUndecodable, the
// first interceptor after withReason on every server, refuses the call and forgets the note.

// undecodable maps a message the codec could not decode to why, until its call is refused;
// undecodableCount is how many it holds, so that the calls of well-formed messages, nearly all
// of them, skip the map.
var (
	undecodable      sync.Map // proto.Message → error
	undecodableCount atomic.Int64
)

func markUndecodable(m proto.Message, err error) {
	undecodableCount.Add(1)
	undecodable.Store(m, err)
}

// takeUndecodable returns why m could not be decoded, or nil, and forgets it. The codec marks
// a message before its call's interceptors run, so a count of 0 means no mark for m.
func takeUndecodable(m any) error {
	if undecodableCount.Load() == 0 {
		return nil
	}
	if err, ok := undecodable.LoadAndDelete(m); ok {
		undecodableCount.Add(-1)
		return err.(error)
	}
	return nil
}

func malformedRequest(m any, err error) error {
	name := "request"
	if pm, ok := m.(proto.Message); ok {
		name = string(pm.ProtoReflect().Descriptor().FullName())
	}
	return reason.Error(codes.InvalidArgument, reason.InvalidInput, fmt.Sprintf(
		"the request is not a valid %s protobuf message (truncated or corrupt: %v); send the whole message as your client library encodes it", name, err))
}

// refuseUndecodable is a unary interceptor: a request the codec could not decode is refused.
func refuseUndecodable(ctx context.Context, req any, _ *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := takeUndecodable(req); err != nil {
		return nil, malformedRequest(req, err)
	}
	return handler(ctx, req)
}

// refuseUndecodableStream refuses, for streaming calls, each message the codec could not decode.
func refuseUndecodableStream(srv any, ss grpc.ServerStream, _ *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	return handler(srv, decodedStream{ss})
}

type decodedStream struct{ grpc.ServerStream }

func (s decodedStream) RecvMsg(m any) error {
	if err := s.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if err := takeUndecodable(m); err != nil {
		return malformedRequest(m, err)
	}
	return nil
}
