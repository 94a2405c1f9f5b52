package client

import (
	"errors"
	"fmt"
	"maps"
	mrand "math/rand/v2"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/idnode/idnode/reason"
)

// regionSkip is how long a node whose attempt failed goes to the end of a regional client's
// order after its first failure. A node that is down refuses at once, but each refusal is still
// an attempt, and the calls that follow should not pay it again while the node is down. Once it
// has passed, the node is tried in its place again, so a local node that came back takes its
// calls back within about a second.
const regionSkip = time.Second

// regionSkipMax caps the skip, which doubles each time the node fails again after its skip
// ended. A node that hangs rather than refuses (paused, or its network blackholed) costs a
// whole attempt timeout each time its skip ends, so a fixed second would be a latency spike a
// second for as long as it hangs; doubling makes those spikes rarer the longer it lasts. But a
// skipped node is tried first again only when its skip ends, so the skip is also how long
// calls keep crossing to other regions after the node is back: 30 s keeps that to half a
// minute while a node that never answers costs one attempt timeout every 30 s.
const regionSkipMax = 30 * time.Second

// WithRegion tells the client the region it runs in and the region of each of its nodes:
// nodeRegions maps addresses given to Dial to their region, and a node it leaves out counts as
// in another region. The calls any node answers (server-side, GUID and semantic IDs, HiLo
// ranges, which nodes grant from their own pools, Explain, Status) then start at a node of the
// client's region, spread over them, and go on to its other nodes before those of other
// regions, so they cross to another region only while none of the client's own answers. Calls
// for the leader (identities, series, claims, worker leases) still go to the leader the client
// learnt, wherever it is, and to the client's own region first while it knows none. Dial fails
// when no node is in region or nodeRegions names an address it was not given (docs/regions.md,
// "Clients that stay local").
func WithRegion(region string, nodeRegions map[string]string) Option {
	return func(o *options) error {
		if strings.TrimSpace(region) == "" {
			return errors.New("WithRegion: empty region")
		}
		for addr, r := range nodeRegions {
			if strings.TrimSpace(r) == "" {
				return fmt.Errorf("WithRegion: node %s has an empty region", addr)
			}
		}
		o.region, o.nodeRegions = region, maps.Clone(nodeRegions)
		return nil
	}
}

// regionOrder is the order in which a Client with a region (WithRegion) tries its nodes: its
// own region's first, then the others', each node within its skip (see failed) after those
// that are not.
type regionOrder struct {
	local, remote []int64 // node indexes, in the order given to Dial
	isLocal       []bool  // by node index
	// start is the local node that answered last, where the next call starts. A remote node
	// that answered never becomes it: the client goes back to its region as soon as it can.
	start atomic.Int64
	// remoteStart is where the turn of the remote nodes starts (a position in remote): a
	// random one spreads clients whose region is down over the other regions.
	remoteStart int
	// skipUntil and skipFor are, by node index, when the node's skip ends (UnixNano) and how
	// long that skip is; both are 0 once it answers. mu orders the failures that change them.
	skipUntil, skipFor []atomic.Int64
	mu                 sync.Mutex
	now                func() time.Time
}

// newRegionOrder checks a WithRegion configuration against the addresses given to Dial and
// orders them; inOrder (WithNodesInOrder) starts at the first local node instead of a random one.
func newRegionOrder(region string, nodeRegions map[string]string, addrs []string, inOrder bool) (*regionOrder, error) {
	for _, addr := range slices.Sorted(maps.Keys(nodeRegions)) {
		if !slices.Contains(addrs, addr) {
			return nil, fmt.Errorf("WithRegion: %s is not one of the client's nodes %v", addr, addrs)
		}
	}
	r := &regionOrder{
		isLocal:   make([]bool, len(addrs)),
		skipUntil: make([]atomic.Int64, len(addrs)),
		skipFor:   make([]atomic.Int64, len(addrs)),
		now:       time.Now,
	}
	for i, addr := range addrs {
		if nodeRegions[addr] == region {
			r.local = append(r.local, int64(i))
			r.isLocal[i] = true
		} else {
			r.remote = append(r.remote, int64(i))
		}
	}
	if len(r.local) == 0 {
		return nil, fmt.Errorf("WithRegion(%q): none of the client's nodes is in that region (node regions: %v)", region, nodeRegions)
	}
	r.start.Store(r.local[0])
	if !inOrder {
		r.start.Store(r.local[mrand.IntN(len(r.local))])
		if len(r.remote) > 0 {
			r.remoteStart = mrand.IntN(len(r.remote))
		}
	}
	return r, nil
}

// order is the nodes one call tries, in turn: first unless it is -1 (the leader, or the node
// that granted a HiLo range), then the local nodes from the one that answered last, then the
// remote ones; a node within its skip (see failed) comes after every node that is not.
func (r *regionOrder) order(first int64) []int64 {
	out := make([]int64, 0, len(r.isLocal))
	if first >= 0 {
		out = append(out, first)
	}
	var skipped []int64
	now := r.now().UnixNano()
	add := func(i int64) {
		switch {
		case i == first:
		case now < r.skipUntil[i].Load():
			skipped = append(skipped, i)
		default:
			out = append(out, i)
		}
	}
	from := slices.Index(r.local, r.start.Load())
	for k := range r.local {
		add(r.local[(from+k)%len(r.local)])
	}
	for k := range r.remote {
		add(r.remote[(r.remoteStart+k)%len(r.remote)])
	}
	return append(out, skipped...)
}

// answered notes that node i answered a call: it is no longer skipped, its next failure is
// skipped for regionSkip again, and when it is local the next call starts there.
func (r *regionOrder) answered(i int64) {
	if r.skipFor[i].Load() != 0 {
		r.mu.Lock()
		r.skipUntil[i].Store(0)
		r.skipFor[i].Store(0)
		r.mu.Unlock()
	}
	if r.isLocal[i] {
		r.start.Store(i)
	}
}

// nodeFailed reports whether a retryable failure was the node's own (see failed): it carries
// no idnode reason (the node could not be reached, or the attempt's own deadline passed), or
// a reason about the node alone (reason.AboutTheNode: busy, stopping, behind, its storage). A
// refusal with any other idnode reason (NO_QUORUM, OUTCOME_UNKNOWN …) is about the cluster,
// which any other node shares: skipping the node would only send the calls to other regions
// for as long as its skip lasts, long after the cluster has recovered.
func nodeFailed(err error) bool {
	r := reason.Of(err)
	return r == "" || reason.AboutTheNode(r)
}

// failed notes that an attempt on node i failed because of the node itself (see nodeFailed:
// down, timed out, busy): the next calls try it after the others for a while. That is
// regionSkip after its first failure, twice the last skip when it fails again after that skip
// ended, up to regionSkipMax; a failure within the skip (another call's attempt, or one that
// found every other node failing too) starts the same skip again.
func (r *regionOrder) failed(i int64) {
	now := r.now().UnixNano()
	r.mu.Lock()
	defer r.mu.Unlock()
	skip := r.skipFor[i].Load()
	switch {
	case skip == 0:
		skip = int64(regionSkip)
	case now >= r.skipUntil[i].Load():
		skip = min(2*skip, int64(regionSkipMax))
	}
	r.skipFor[i].Store(skip)
	r.skipUntil[i].Store(now + skip)
}
