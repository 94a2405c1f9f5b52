package server

import (
	"context"
	"strconv"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// probeTimeout bounds the health probe that decides a node's "reachable" in Status.
const probeTimeout = 300 * time.Millisecond

// healthProbe asks another node's health service on its internal port what the node says of
// itself in the answer's header (withFactsOnProbe): Status's reachability, the leader's commit
// index for a node catching up, the leader's clock, the leader's build. It needs only the
// connections to other nodes.
type healthProbe struct {
	conns nodeConns
}

// nodeConns is how a node reaches another's internal server: the forwarder's connections.
type nodeConns interface {
	Conn(addr string) (*grpc.ClientConn, error)
}

// answers fills in whether the node ns answers at its Raft address, and what it says of
// itself: its version, indexes, storage fault, clock offset from the leader, and whether its
// join did not finish.
func (p healthProbe) answers(ctx context.Context, ns *idnodev1.NodeStatus) {
	header, err := p.header(ctx, ns.RaftAddress)
	// Any answer counts, a refusal too: a node that has just started may not know the cluster
	// secret yet, and the probed node then refuses the probe, but it is reachable.
	switch status.Code(err) {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		return
	}
	ns.Reachable = true
	first := func(key string) string {
		if v := header.Get(key); len(v) > 0 {
			return v[0]
		}
		return ""
	}
	ns.Version, ns.StorageFault = first(versionHeader), first(storageFaultHeader)
	ns.JoinUnfinished = first(joinHeader) == joinUnfinishedValue
	ns.AppliedIndex, _ = strconv.ParseUint(first(appliedIndexHeader), 10, 64)
	ns.CommitIndex, _ = strconv.ParseUint(first(commitIndexHeader), 10, 64)
	if v, err := strconv.ParseUint(first(supportedVersionHeader), 10, 32); err == nil {
		ns.SupportedVersion = uint32(v)
	}
	if v, err := strconv.ParseInt(first(clockOffsetHeader), 10, 64); err == nil {
		ns.ClockOffsetSeconds, ns.ClockOffsetMeasured = time.Duration(v).Seconds(), true
	}
}

// header asks the health service of the node at addr (its Raft address), within
// probeTimeout, and returns the header of its answer.
func (p healthProbe) header(ctx context.Context, addr string) (metadata.MD, error) {
	cc, err := p.conns.Conn(addr)
	if err != nil {
		return nil, status.Error(codes.Unavailable, err.Error())
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	var header metadata.MD
	_, err = healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{Service: HealthLocal}, grpc.Header(&header))
	return header, err
}
