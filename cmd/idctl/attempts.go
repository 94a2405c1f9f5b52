package main

import (
	"context"
	"errors"
	"io"
	"slices"
	"sync"

	"google.golang.org/grpc"
)

// attempts records the node and outcome of each attempt of the current call, through gRPC
// interceptors: the client reports only the last node's error, and idctl's messages name every
// node it tried and what each said.
type attempts struct {
	mu    sync.Mutex
	tried []attempt
}

type attempt struct {
	addr string
	err  error
}

func (a *attempts) reset() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tried = nil
}

func (a *attempts) list() []attempt {
	a.mu.Lock()
	defer a.mu.Unlock()
	return slices.Clone(a.tried)
}

// add records an attempt and returns its index, for a stream to fill in its error later.
func (a *attempts) add(addr string, err error) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tried = append(a.tried, attempt{addr, err})
	return len(a.tried) - 1
}

func (a *attempts) fail(i int, err error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if i < len(a.tried) { // not when reset in between
		a.tried[i].err = err
	}
}

func (a *attempts) dialOptions() []grpc.DialOption {
	unary := func(ctx context.Context, method string, req, reply any, cc *grpc.ClientConn, invoker grpc.UnaryInvoker, opts ...grpc.CallOption) error {
		err := invoker(ctx, method, req, reply, cc, opts...)
		a.add(cc.Target(), err)
		return err
	}
	stream := func(ctx context.Context, desc *grpc.StreamDesc, cc *grpc.ClientConn, method string, streamer grpc.Streamer, opts ...grpc.CallOption) (grpc.ClientStream, error) {
		cs, err := streamer(ctx, desc, cc, method, opts...)
		i := a.add(cc.Target(), err)
		if err != nil {
			return nil, err
		}
		return &recordedStream{ClientStream: cs, a: a, i: i}, nil
	}
	return []grpc.DialOption{grpc.WithChainUnaryInterceptor(unary), grpc.WithChainStreamInterceptor(stream)}
}

// recordedStream notes the error that ends a stream: it comes from RecvMsg (CloseAndRecv
// included).
type recordedStream struct {
	grpc.ClientStream
	a *attempts
	i int
}

func (s *recordedStream) RecvMsg(m any) error {
	err := s.ClientStream.RecvMsg(m)
	if err != nil && !errors.Is(err, io.EOF) {
		s.a.fail(s.i, err)
	}
	return err
}
