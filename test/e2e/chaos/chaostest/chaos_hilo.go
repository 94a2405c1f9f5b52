package chaostest

// The chaos suite and HiLo pools: every node grants HiLo ranges from its own pool,
// so a node cut off from its majority keeps granting for tags it served before, until the pool
// is used up, and refuses a tag it never served (its first pool needs a quorum). Ranges of
// different nodes come in no order; what must hold is that no number is ever granted twice.

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

const (
	// chaosMinorityHold is how long hilo-minority keeps a client asking the lone node for
	// ranges, per fault: at least 30 s of steady load.
	chaosMinorityHold = 30 * time.Second
	chaosPoolPace     = time.Second // between that client's calls: ~31 ranges per hold
	// chaosPoolRange is the size of that client's ranges: it tells the node its previous range
	// of 32 is chaosPoolAge old, which the range policy neither doubles (under 30 s) nor halves
	// (over 60 s), as nextRange does.
	chaosPoolRange = 32
	chaosPoolAge   = 45 * time.Second
	// chaosPoolFirst is the least a node's first pool of a tag holds when it is asked for
	// ranges of 32 (server.minPoolSize: six ranges would be only 192). Refills only add to it,
	// and a call takes at most chaosPoolRange numbers, so after n calls the pool still holds at
	// least chaosPoolFirst - n*chaosPoolRange: a refusal before that is a failure.
	chaosPoolFirst   = 1024
	chaosPoolWarm    = 2 // ranges per node of a phase's tag before the fault (with a quorum)
	chaosPoolReturns = 4 // every 4th range on the minority gives back its upper half
	chaosPoolShown   = 3 // problems of a hold quoted in the failure
	// chaosPoolRetries is how many times hold makes a call again, with its request_id, when
	// the answer did not come within chaosAttempt, as an application does: a node busy on a
	// loaded machine (every grant waits for the pools file's fsync) answers the retry from the
	// grant it made, or grants then. A node that answers none of the attempts fails the hold,
	// as does one that refuses.
	chaosPoolRetries = 2

	ChaosPoolTagPaused   = "receipts" // hilo-minority's tag while two nodes are paused
	ChaosPoolTagIsolated = "vouchers" // and while the leader is isolated
)

// errChaosBadRange: a node granted a range that breaks the contract (overlapping last_max,
// too large, not its own).
var errChaosBadRange = errors.New("bad HiLo range")

// PoolClient is an application asking one node at a time for ranges of one tag, of
// chaosPoolRange numbers, each off its previous one (last_max; below it only from a node cut
// off from its majority). Used by one goroutine.
type PoolClient struct {
	c       *chaosClient
	run     *ChaosRun
	node    string
	tag     string
	lastMax int64
	lastLow int64 // the previous range is lastLow..lastMax
	calls   int   // NextHiLo calls made, answered or not: each took at most chaosPoolRange numbers
}

// WarmPools has every node grant chaosPoolWarm ranges of tag, through a quorum, so that each
// has served it and holds its first pool; it returns a client per node.
func (r *ChaosRun) WarmPools(tag string) map[string]*PoolClient {
	r.T.Helper()
	out := map[string]*PoolClient{}
	for _, node := range r.Tags() {
		p := &PoolClient{c: r.c, run: r, node: node, tag: tag}
		for range chaosPoolWarm {
			e2etest.Eventually(r.T, ChaosRecoverWait, fmt.Sprintf("a range of %s from %s", tag, node), func() error {
				_, _, err := p.next()
				if errors.Is(err, errChaosBadRange) {
					r.T.Fatal(err)
				}
				return err
			})
		}
		out[node] = p
	}
	return out
}

// next asks the node for one range within chaosAttempt and records a range granted.
func (p *PoolClient) next() (*idnodev1.NextHiLoResponse, time.Duration, error) {
	resp, took, _, err := p.nextRetrying(0)
	return resp, took, err
}

// ask makes the call for the range requestID names (a new one, or one retried).
func (p *PoolClient) ask(requestID string) (*idnodev1.NextHiLoResponse, time.Duration, error) {
	req := &idnodev1.NextHiLoRequest{Tag: p.tag, LastBatchSize: chaosPoolRange, LastRangeAt: time.Now().Add(-chaosPoolAge).UnixMilli(),
		LastMax: p.lastMax, RequestId: requestID}
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
	resp, err := p.c.ids[p.node].NextHiLo(ctx, req)
	cancel()
	took := time.Since(begin)
	if err != nil {
		return nil, took, fmt.Errorf("NextHiLo(%s) via %s: %w", p.tag, p.node, err)
	}
	p.run.rec.HiLoRange(p.tag, resp.GetLow(), resp.GetHigh()) // whatever it is: Check compares it with every other
	if overlapsPrevious(resp, p.lastMax, p.lastMax-p.lastLow+1) || resp.GetHigh() < resp.GetLow() || resp.GetHigh()-resp.GetLow() >= chaosPoolRange || resp.GetPrefix() != p.tag+"/" {
		return nil, took, fmt.Errorf("%w: NextHiLo(%s, last_max %d, size %d) via %s = %v", errChaosBadRange, p.tag, p.lastMax, chaosPoolRange, p.node, resp)
	}
	p.lastLow, p.lastMax = resp.GetLow(), resp.GetHigh()
	return resp, took, nil
}

// giveBack returns the upper half of the newest range to the node that granted it: it goes
// back to that node's pool, without a quorum, and may be granted again.
func (p *PoolClient) giveBack(resp *idnodev1.NextHiLoResponse) error {
	keep := resp.GetLow() + (resp.GetHigh()-resp.GetLow())/2
	p.run.rec.HiLoReturn(p.tag, resp.GetHigh(), keep) // before the call: from now on another grant may hold them
	ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
	_, err := p.c.ids[p.node].ReturnHiLo(ctx, &idnodev1.ReturnHiLoRequest{Tag: p.tag, End: resp.GetHigh(), Last: keep, GrantId: resp.GetGrantId()})
	cancel()
	if err != nil {
		return fmt.Errorf("ReturnHiLo(%s, end %d, last %d) via %s, the node that granted it: %w", p.tag, resp.GetHigh(), keep, p.node, err)
	}
	p.lastMax = keep
	return nil
}

// nextRetrying is next, made again with the same request_id up to most times while the
// answer does not come within chaosAttempt; it returns the slowest attempt's time and how
// many times it retried.
func (p *PoolClient) nextRetrying(most int) (*idnodev1.NextHiLoResponse, time.Duration, int, error) {
	p.calls++
	id := p.c.requestID()
	var slowest time.Duration
	for retries := 0; ; retries++ {
		resp, took, err := p.ask(id)
		slowest = max(slowest, took)
		if retries == most || status.Code(err) != codes.DeadlineExceeded {
			return resp, slowest, retries, err
		}
	}
}

// holdResult is what a client on a minority node saw during one hold.
type holdResult struct {
	granted, refused, retried int
	slowest                   time.Duration
	problems                  []string
}

// hold asks the node for a range every chaosPoolPace for chaosMinorityHold (a bounded number
// of calls), until quit. Every range must come from the node itself; a refusal, or no answer
// to a call and its retries (nextRetrying), is a problem while the pool must still hold a
// range (chaosPoolFirst), and allowed once it may be used up.
func (p *PoolClient) hold(quit <-chan struct{}) holdResult {
	var res holdResult
	tick := time.NewTicker(chaosPoolPace) // the client's pace, not a wait for anything
	defer tick.Stop()
	begin := time.Now()
	for i := 0; i <= int(chaosMinorityHold/chaosPoolPace)+1; i++ {
		if i > 0 {
			select {
			case <-quit:
				return res
			case <-tick.C:
			}
		}
		covered := (p.calls+1)*chaosPoolRange <= chaosPoolFirst
		resp, took, retried, err := p.nextRetrying(chaosPoolRetries)
		res.retried += retried
		switch {
		case errors.Is(err, errChaosBadRange):
			res.problems = append(res.problems, err.Error())
		case err != nil:
			res.refused++
			if covered {
				res.problems = append(res.problems, fmt.Sprintf("%v after %d attempt(s) (slowest %v), %v into the fault, while its pool still held at least %d numbers",
					err, retried+1, took.Round(time.Millisecond), time.Since(begin).Round(time.Millisecond), chaosPoolFirst-(p.calls-1)*chaosPoolRange))
			}
		case resp.GetServerTag() != p.node:
			res.problems = append(res.problems, fmt.Sprintf("range [%d, %d] of %s via %s, cut off, was granted by %q", resp.GetLow(), resp.GetHigh(), p.tag, p.node, resp.GetServerTag()))
		default:
			res.granted++
			res.slowest = max(res.slowest, took)
			if res.granted%chaosPoolReturns == 0 {
				if err := p.giveBack(resp); err != nil {
					res.problems = append(res.problems, err.Error())
				}
			}
		}
		if time.Since(begin) >= chaosMinorityHold {
			break
		}
	}
	return res
}

// HoldMinority runs p.hold on p's node, cut off from its majority, while during runs on the
// test's goroutine (the minority checks, a load phase); it fails the test unless the node
// granted ranges and refused none its pool could still cover, and returns how many it granted.
func (r *ChaosRun) HoldMinority(p *PoolClient, during func()) int {
	r.T.Helper()
	var (
		wg   sync.WaitGroup
		once sync.Once
		res  holdResult
	)
	quit := make(chan struct{})
	// A schedule that fails in during stops the client before the history is checked.
	r.T.Cleanup(func() { once.Do(func() { close(quit) }); wg.Wait() })
	wg.Go(func() { res = p.hold(quit) })
	during()
	wg.Wait()
	r.T.Logf("node %s without a majority: %d ranges of %s granted from its pool in %v (slowest attempt %v, %d retried after %v), %d refused after %d calls",
		p.node, res.granted, p.tag, chaosMinorityHold, res.slowest.Round(time.Millisecond), res.retried, chaosAttempt, res.refused, p.calls)
	if res.granted == 0 {
		res.problems = append(res.problems, "no range granted")
	}
	if n := len(res.problems); n > 0 {
		shown := res.problems[:min(n, chaosPoolShown)]
		r.T.Fatalf("node %s without a majority, asked for %s, which it served before: %d problem(s): %s", p.node, p.tag, n, strings.Join(shown, "; "))
	}
	return res.granted
}

// hiloWithoutMajority checks HiLo on node tag, cut off from its majority: a tag it never
// served is refused UNAVAILABLE (its first pool needs a quorum); the load's tag is granted by
// the node itself, from its pool, or refused UNAVAILABLE (no pool for it yet, or used up). A
// granted range is recorded, so the history checks it against every other. Both answers must
// come within chaosRefusalLimit. It returns what happened, for the log.
func (r *ChaosRun) hiloWithoutMajority(tag string) (string, error) {
	fresh := "never-" + r.c.requestID()
	_, freshTook, err := r.hiloProbe(tag, fresh)
	if err == nil {
		return "", fmt.Errorf("node %s, without a majority, granted a range of %s, a tag it never served", tag, fresh)
	}
	if status.Code(err) != codes.Unavailable {
		return "", fmt.Errorf("node %s, without a majority, refused a tag it never served after %v with %v; want UNAVAILABLE", tag, freshTook, err)
	}
	h, took, err := r.hiloProbe(tag, chaosHiLoTag)
	var served string
	switch {
	case err == nil && h.GetServerTag() != tag:
		return "", fmt.Errorf("node %s, without a majority, answered NextHiLo(%s) with a range granted by %q", tag, chaosHiLoTag, h.GetServerTag())
	case err == nil:
		served = fmt.Sprintf("granted [%d, %d] from its pool", h.GetLow(), h.GetHigh())
	case status.Code(err) == codes.Unavailable:
		served = "refused (no pool for it, or used up)"
	default:
		return "", fmt.Errorf("node %s, without a majority, refused NextHiLo(%s) after %v with %v; want a range from its pool or UNAVAILABLE", tag, chaosHiLoTag, took, err)
	}
	if freshTook > chaosRefusalLimit || took > chaosRefusalLimit {
		return "", fmt.Errorf("node %s, without a majority, took %v to refuse a tag it never served and %v to answer for %s; want at most %v",
			tag, freshTook, took, chaosHiLoTag, chaosRefusalLimit)
	}
	return fmt.Sprintf("a HiLo tag it never served refused in %d ms, %s %s in %d ms", freshTook.Milliseconds(), chaosHiLoTag, served, took.Milliseconds()), nil
}

// hiloProbe is one NextHiLo of hilo tag asked of node tag only; a range granted is recorded.
func (r *ChaosRun) hiloProbe(tag, hilo string) (*idnodev1.NextHiLoResponse, time.Duration, error) {
	begin := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), chaosProbeDeadline)
	h, err := r.c.ids[tag].NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: hilo, RequestId: r.c.requestID()})
	cancel()
	if err == nil {
		r.rec.HiLoRange(hilo, h.GetLow(), h.GetHigh())
	}
	return h, time.Since(begin), err
}

// verifyHiLo checks HiLo on the healed cluster: every live node grants a range of the load's
// tag (from its pool; the history checks it against every range before), and each tag's Max
// is at or above every number ever granted. Pools are reserved below Max, so a Max that went
// back would let a later reservation hand out those numbers again. Max is read with SeedHiLo
// at 0, which never lowers it and answers it, through the leader.
func (r *ChaosRun) verifyHiLo() error {
	var errs []error
	for _, tag := range r.live() {
		if _, err := r.c.nextHiLo(r.rec, chaosHiLoTag, &hiloState{}, r.Cluster.index(tag), ChaosRecoverWait); err != nil {
			errs = append(errs, fmt.Errorf("NextHiLo via %s after recovery: %w", tag, err))
		}
	}
	for _, hilo := range r.rec.HiLoTags() {
		tagMax, err := r.hiloMax(hilo)
		switch granted := r.rec.MaxHiLo(hilo); {
		case err != nil:
			errs = append(errs, fmt.Errorf("reading HiLo Max of %s after recovery: %w", hilo, err))
		case tagMax < granted:
			errs = append(errs, fmt.Errorf("HiLo Max of %s is %d after recovery, but %d was granted: lost", hilo, tagMax, granted))
		}
	}
	return errors.Join(errs...)
}

// hiloMax is the cluster's Max of HiLo tag hilo, read with SeedHiLo at 0, which never lowers
// it and answers it, through the leader.
func (r *ChaosRun) hiloMax(hilo string) (int64, error) {
	var resp *idnodev1.SeedHiLoResponse
	err := r.c.onNodes(0, ChaosRecoverWait, func(ctx context.Context, via string, _ int) (err error) {
		resp, err = r.c.ids[via].SeedHiLo(ctx, &idnodev1.SeedHiLoRequest{Tag: hilo})
		return err
	})
	return resp.GetMax(), err
}
