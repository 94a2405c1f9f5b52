package server

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"time"

	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// resolveTimeout bounds the name lookups of one AddNode.
const resolveTimeout = 2 * time.Second

// lookupHost resolves a host name (or IP literal) to its addresses.
type lookupHost func(ctx context.Context, host string) ([]netip.Addr, error)

// lookupNetIP is the default resolver's lookup, what Config.LookupHost defaults to.
func lookupNetIP(ctx context.Context, host string) ([]netip.Addr, error) {
	return net.DefaultResolver.LookupNetIP(ctx, "ip", host)
}

// endpoints is what a host:port reaches: one "ip port" string per address it resolves to. The
// two addresses "localhost" names, 127.0.0.1 and ::1, are one endpoint: a node listening on
// one is what a caller spelling the other reaches on the same machine.
func endpoints(ctx context.Context, lookup lookupHost, addr string) (map[string]bool, error) {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, err
	}
	ips, err := lookup(ctx, host)
	if err != nil {
		return nil, err
	}
	out := make(map[string]bool, len(ips))
	for _, ip := range ips {
		ip = ip.Unmap().WithZone("")
		key := ip.String()
		if ip == netip.IPv6Loopback() || ip == netip.AddrFrom4([4]byte{127, 0, 0, 1}) {
			key = "loopback"
		}
		out[key+" "+port] = true
	}
	return out, nil
}

// overlap reports whether a and b share an endpoint.
func overlap(a, b map[string]bool) bool {
	for k := range a {
		if b[k] {
			return true
		}
	}
	return false
}

// endpointHeld refuses an AddNode whose Raft or gRPC address reaches another registered
// node's endpoint under another spelling (a host name for its IP, localhost for 127.0.0.1):
// the FSM compares spellings only, since a replica must not depend on name lookups. The
// registering node itself (same tag, id or incarnation) is not another node. An address that
// does not resolve is left to the FSM's comparison: it proves nothing either way.
func (s *clusterService) endpointHeld(ctx context.Context, req *idnodev1.AddNodeRequest) error {
	ctx, cancel := context.WithTimeout(ctx, resolveTimeout)
	defer cancel()
	for _, a := range []struct {
		kind, addr string
		of         func(fsm.Node) string
	}{
		{"raft", req.GetRaftAddress(), func(n fsm.Node) string { return n.RaftAddress }},
		{"gRPC", req.GetGrpcAddress(), func(n fsm.Node) string { return n.GRPCAddress }},
	} {
		want, err := endpoints(ctx, s.cfg.LookupHost, a.addr)
		if err != nil {
			s.log.Info("AddNode: address does not resolve; compared by spelling only", "address", a.addr, "err", err)
			continue
		}
		for _, n := range s.node.FSM().Nodes() {
			held := a.of(n)
			if held == "" || held == a.addr || sameRegistrant(n, req) {
				continue // the FSM compares equal spellings itself
			}
			if have, err := endpoints(ctx, s.cfg.LookupHost, held); err == nil && overlap(want, have) {
				return fmt.Errorf("%w: node %s has %s address %s, which %s reaches too; give the new node an address of its own",
					fsm.ErrAddressInUse, n.Tag, a.kind, held, a.addr)
			}
		}
	}
	return nil
}

// sameRegistrant reports whether req registers n itself again (a retry, an address move).
func sameRegistrant(n fsm.Node, req *idnodev1.AddNodeRequest) bool {
	return (req.GetTag() != "" && req.GetTag() == n.Tag) ||
		(req.GetId() != "" && req.GetId() == n.ID) ||
		(req.GetIncarnation() != "" && req.GetIncarnation() == n.Incarnation)
}
