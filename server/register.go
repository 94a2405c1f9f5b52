package server

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// registerSelf makes sure the FSM's registry holds this node under its tag, with this data
// dir's incarnation, its current addresses and its separator, retrying until it does (through
// the leader, wherever that is). Server-side IDs wait for it; every node finds every other's
// gRPC address there. A cluster whose separator differs stops the node (Config.OnFatal).
func (s *Server) registerSelf(ctx context.Context) {
	backoff := 50 * time.Millisecond
	for {
		err := s.ensureRegistered(ctx)
		if err == nil {
			s.keepVersionRecorded(ctx)
			return
		}
		msg := err.Error()
		s.regProblem.Store(&msg)
		switch status.Code(err) {
		case codes.AlreadyExists:
			s.log.Error("the cluster refuses this node's tag; it will not issue server-side IDs", "tag", s.cfg.Tag, "err", err)
			return
		case codes.FailedPrecondition:
			s.fatal(err)
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
	if cv := s.node.FSM().ClusterVersion(); cv.Finalised > fsm.CurrentVersion {
		return status.Errorf(codes.FailedPrecondition, "the cluster is finalised at version %d and this build supports version %d: it would halt on the log; start this node with a build of version %d or newer",
			cv.Finalised, fsm.CurrentVersion, cv.Finalised)
	}
	if sep := s.node.FSM().Separator(); sep != "" && sep != string(s.cfg.Separator) {
		return toStatus(fmt.Errorf("%w: the cluster's is %q, this node's %q; start it with --separator %q",
			fsm.ErrSeparatorDiffers, sep, string(s.cfg.Separator), sep))
	}
	if !s.isRegistered() {
		ctx, cancel := context.WithTimeout(s.withOwnToken(ctx), 5*time.Second)
		defer cancel()
		// Registering keeps the suffrage this node has: a non-voter whose FSM has not caught up
		// after a restart must not make itself a voter by registering again (AddNode never
		// demotes, so a voter asking as a non-voter stays one).
		self, _ := s.self.member()
		_, err := s.cluster.AddNode(ctx, &idnodev1.AddNodeRequest{
			Tag: s.cfg.Tag, Id: s.node.ID(), RaftAddress: s.cfg.RaftAddress,
			GrpcAddress: s.cfg.GRPCAddress, Incarnation: s.cfg.State.Incarnation, Separator: string(s.cfg.Separator),
			NonVoter: !self.Voter, Version: fsm.CurrentVersion,
		})
		if err != nil {
			return err
		}
	}
	if st := s.cfg.State; !st.Registered || st.Separator != string(s.cfg.Separator) {
		// From now on a restart with another --separator is refused before it serves.
		st.Registered, st.Separator = true, string(s.cfg.Separator)
		if err := s.cfg.SaveState(st); err != nil {
			return err
		}
	}
	// Said once the node is registered, however it got there: a try whose answer was lost
	// (the leader stepped down after committing it) is found registered by the next.
	if !s.registered.Swap(true) {
		s.log.Info("registered in the cluster", "tag", s.cfg.Tag, "grpc", s.cfg.GRPCAddress)
	}
	return nil
}

// isRegistered reports whether the local FSM already shows this node as it is now, and the
// cluster's separator (registering sets it in a cluster made before it was recorded).
func (s *Server) isRegistered() bool {
	if s.node.FSM().Separator() == "" {
		return false
	}
	for _, n := range s.node.FSM().Nodes() {
		if n.Tag == s.cfg.Tag {
			return n.ID == s.node.ID() && n.Incarnation == s.cfg.State.Incarnation &&
				n.GRPCAddress == s.cfg.GRPCAddress && n.RaftAddress == s.cfg.RaftAddress
		}
	}
	return false
}

// fatal reports an error this node cannot serve past.
func (s *Server) fatal(err error) {
	s.log.Error("this node cannot serve in this cluster", "err", err)
	if s.cfg.OnFatal != nil {
		s.cfg.OnFatal(err)
	}
}

// registrationProblem says why this node is not registered, for error messages.
func (s *core) registrationProblem() string {
	if p := s.regProblem.Load(); p != nil {
		return *p
	}
	return "registration in progress; retry in a moment"
}
