package server

import (
	"context"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// registerSelf makes sure the FSM's registry holds this node under its tag, with this data
// dir's incarnation and its current addresses, retrying until it does (through the leader,
// wherever that is). Server-side IDs wait for it; every node finds every other's gRPC address
// there.
func (s *Server) registerSelf(ctx context.Context) {
	backoff := 50 * time.Millisecond
	for {
		err := s.ensureRegistered(ctx)
		if err == nil {
			return
		}
		msg := err.Error()
		s.regProblem.Store(&msg)
		if status.Code(err) == codes.AlreadyExists {
			s.log.Error("the cluster refuses this node's tag; it will not issue server-side IDs", "tag", s.cfg.Tag, "err", err)
			return
		}
		s.log.Debug("node registration pending", "err", err)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
		backoff = min(2*backoff, 2*time.Second)
	}
}

func (s *Server) ensureRegistered(ctx context.Context) error {
	if !s.isRegistered() {
		ctx, cancel := context.WithTimeout(s.withOwnToken(ctx), 5*time.Second)
		defer cancel()
		_, err := s.AddNode(ctx, &idnodev1.AddNodeRequest{
			Tag: s.cfg.Tag, Id: s.node.ID(), RaftAddress: s.cfg.RaftAddress,
			GrpcAddress: s.cfg.GRPCAddress, Incarnation: s.cfg.State.Incarnation,
		})
		if err != nil {
			return err
		}
		s.log.Info("registered in the cluster", "tag", s.cfg.Tag, "grpc", s.cfg.GRPCAddress)
	}
	if !s.cfg.State.Registered {
		st := s.cfg.State
		st.Registered = true
		if err := s.cfg.SaveState(st); err != nil {
			return err
		}
	}
	s.registered.Store(true)
	return nil
}

// isRegistered reports whether the local FSM already shows this node as it is now.
func (s *Server) isRegistered() bool {
	for _, n := range s.node.FSM().Nodes() {
		if n.Tag == s.cfg.Tag {
			return n.ID == s.node.ID() && n.Incarnation == s.cfg.State.Incarnation &&
				n.GRPCAddress == s.cfg.GRPCAddress && n.RaftAddress == s.cfg.RaftAddress
		}
	}
	return false
}

// registrationProblem says why this node is not registered, for error messages.
func (s *Server) registrationProblem() string {
	if p := s.regProblem.Load(); p != nil {
		return *p
	}
	return "registration in progress; retry in a moment"
}
