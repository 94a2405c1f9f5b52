package sim

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/idnode/idnode/docid"
	"github.com/idnode/idnode/fsm"
	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
	"github.com/idnode/idnode/test/helpers/ledger"
)

// history is every answer the simulated clients were given, with when they asked and when
// they were answered. Its stamps index answers, which says what each answer was.
type history struct {
	start      time.Time
	mu         sync.Mutex
	answers    []string
	identities []identityAck
	grants     []*grantAck
	claims     []*claimHold
	leases     []leaseAck
	issues     []seriesAck
	// asked is when each series request was first asked; pending the issues left without an
	// answer when the load ended.
	asked     map[string]time.Time
	pending   []*raftv1.SeriesIssue
	fails     int
	highestOf map[string]int64 // the highest identity value answered, per name
}

type identityAck struct {
	name          string
	block         docid.IdentityBlock
	issued, acked time.Time
	stamp         int64
}

// grantAck is a HiLo range answered; the client keeps low..kept (kept < low: nothing).
type grantAck struct {
	tag             string
	low, high, kept int64
	stamp           int64
}

// claimHold is a claim answered, held from acked until the owner sent its release (zero:
// never).
type claimHold struct {
	id, owner        string
	acked, releasing time.Time
	stamp            int64
}

type leaseAck struct {
	lease fsm.WorkerLease
	stamp int64
}

func newHistory() *history {
	return &history{start: time.Now(), highestOf: map[string]int64{}, asked: map[string]time.Time{}}
}

// answered records what an answer was and returns its stamp. h.mu is held.
func (h *history) answered(format string, args ...any) int64 {
	h.answers = append(h.answers, fmt.Sprintf("%v ", time.Since(h.start))+fmt.Sprintf(format, args...))
	return int64(len(h.answers) - 1)
}

func (h *history) describe(stamp int64) string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.answers[stamp]
}

func (h *history) identity(name string, b docid.IdentityBlock, issued time.Time, who string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	stamp := h.answered("%s [%d, %d] to %s, asked at %v", name, b.First, b.Last, who, issued.Sub(h.start))
	h.identities = append(h.identities, identityAck{name, b, issued, time.Now(), stamp})
	h.highestOf[name] = max(h.highestOf[name], b.Last)
}

func (h *history) highest(name string) int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.highestOf[name]
}

func (h *history) grant(tag string, r fsm.HiLoRange, who string) *grantAck {
	h.mu.Lock()
	defer h.mu.Unlock()
	g := &grantAck{tag: tag, low: r.Low, high: r.High, kept: r.High, stamp: h.answered("%s [%d, %d] to %s", tag, r.Low, r.High, who)}
	h.grants = append(h.grants, g)
	return g
}

// returning records that the client gave up g's numbers above last.
func (h *history) returning(g *grantAck, last int64) {
	h.mu.Lock()
	defer h.mu.Unlock()
	g.kept = min(g.kept, last)
}

func (h *history) claimed(id, owner, who string) *claimHold {
	h.mu.Lock()
	defer h.mu.Unlock()
	c := &claimHold{id: id, owner: owner, acked: time.Now(), stamp: h.answered("claim of %s to %s", id, who)}
	h.claims = append(h.claims, c)
	return c
}

func (h *history) releasing(c *claimHold) {
	h.mu.Lock()
	defer h.mu.Unlock()
	c.releasing = time.Now()
}

func (h *history) lease(l fsm.WorkerLease, who string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	stamp := h.answered("worker %d epoch %d (%d, %d] to %s", l.Worker, l.Epoch, l.MinMs, l.MaxMs, who)
	h.leases = append(h.leases, leaseAck{l, stamp})
}

// asking records when a series request was first asked.
func (h *history) asking(requestID string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.asked[requestID] = time.Now()
}

func (h *history) issued(requestID string, e *raftv1.SeriesEntry, who string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	stamp := h.answered("%s number %d to request %s of %s, asked at %v", seriesName, e.GetNumber(), requestID, who, h.asked[requestID].Sub(h.start))
	h.issues = append(h.issues, seriesAck{requestID: requestID, number: e.GetNumber(), asked: h.asked[requestID], acked: time.Now(), stamp: stamp})
}

func (h *history) unanswered(is *raftv1.SeriesIssue) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending = append(h.pending, is)
}

func (h *history) takeUnanswered() []*raftv1.SeriesIssue {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := h.pending
	h.pending = nil
	return out
}

func (h *history) failed() {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.fails++
}

// finalState is what the cluster holds once every fault is over.
type finalState struct {
	identity func(name string) int64
	hiloMax  func(tag string) int64
	// journal is the series' journal, every entry.
	journal []*raftv1.SeriesEntry
}

// check lists every answer that breaks what idnode promises: a number handed out twice, a
// number handed out that the cluster lost, identities out of the order they were answered
// in, a claimed ID handed out as an identity or held by two owners, two holders of a worker
// minting in the same milliseconds, a series with a gap.
func (h *history) check(final finalState) []string {
	h.mu.Lock()
	identities, grants, claims, leases, issues := slices.Clone(h.identities), h.grants, h.claims, h.leases, slices.Clone(h.issues)
	h.mu.Unlock()
	var problems []string
	problems = append(problems, checkIdentities(identities, final, h.describe)...)
	problems = append(problems, checkGrants(grants, final, h.describe)...)
	problems = append(problems, checkClaims(claims, identities, h.describe)...)
	problems = append(problems, checkLeases(leases, h.describe)...)
	problems = append(problems, checkSeries(issues, final.journal, h.describe)...)
	return problems
}

func checkIdentities(acks []identityAck, final finalState, describe func(int64) string) []string {
	var problems []string
	byName := map[string][]identityAck{}
	for _, a := range acks {
		byName[a.name] = append(byName[a.name], a)
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		acks := byName[name]
		l := ledger.New(describe)
		end := final.identity(name)
		for _, a := range acks {
			l.Identity(a.block.First, a.block.Last, a.stamp)
			if a.block.Last > end {
				problems = append(problems, fmt.Sprintf("lost: %s, but the counter ended at %d", describe(a.stamp), end))
			}
		}
		problems = append(problems, l.Repeats()...)
		// An answer given before a call was made must be below that call's answer.
		slices.SortFunc(acks, func(a, b identityAck) int { return a.acked.Compare(b.acked) })
		byIssue := slices.Clone(acks)
		slices.SortFunc(byIssue, func(a, b identityAck) int { return a.issued.Compare(b.issued) })
		var before identityAck
		k := 0
		for _, b := range byIssue {
			for ; k < len(acks) && acks[k].acked.Before(b.issued); k++ {
				if acks[k].block.Last > before.block.Last {
					before = acks[k]
				}
			}
			if k > 0 && b.block.First <= before.block.Last {
				problems = append(problems, fmt.Sprintf("out of order: %s, after %s was answered", describe(b.stamp), describe(before.stamp)))
			}
		}
	}
	return problems
}

func checkGrants(grants []*grantAck, final finalState, describe func(int64) string) []string {
	var problems []string
	byTag := map[string]*ledger.Ledger{}
	for _, g := range grants {
		if g.kept < g.low {
			continue
		}
		if byTag[g.tag] == nil {
			byTag[g.tag] = ledger.New(describe)
		}
		byTag[g.tag].HiLo(g.low, g.kept, g.stamp)
		if end := final.hiloMax(g.tag); g.kept > end {
			problems = append(problems, fmt.Sprintf("lost: %s, kept up to %d, but Max ended at %d", describe(g.stamp), g.kept, end))
		}
	}
	for _, tag := range slices.Sorted(maps.Keys(byTag)) {
		problems = append(problems, byTag[tag].Repeats()...)
	}
	return problems
}

func checkClaims(claims []*claimHold, identities []identityAck, describe func(int64) string) []string {
	var problems []string
	byID := map[string][]*claimHold{}
	for _, c := range claims {
		byID[c.id] = append(byID[c.id], c)
	}
	holds := func(c *claimHold, at time.Time) bool {
		return !at.Before(c.acked) && (c.releasing.IsZero() || at.Before(c.releasing))
	}
	for _, id := range slices.Sorted(maps.Keys(byID)) {
		cs := byID[id]
		for i, a := range cs {
			for _, b := range cs[i+1:] {
				if a.owner != b.owner && (holds(a, b.acked) || holds(b, a.acked)) {
					problems = append(problems, fmt.Sprintf("claimed twice: %s while %s held", describe(b.stamp), describe(a.stamp)))
				}
			}
		}
	}
	// An ID claimed and never released is never an identity value.
	for _, a := range identities {
		for v := range a.block.All() {
			for _, c := range byID[fmt.Sprintf("%s/%d", a.name, v)] {
				if c.releasing.IsZero() {
					problems = append(problems, fmt.Sprintf("claimed ID handed out: %s, but %s", describe(a.stamp), describe(c.stamp)))
				}
			}
		}
	}
	return problems
}

// checkLeases: a worker's later epoch mints strictly above MinMs, so each epoch's MinMs must
// be at or above every MaxMs an earlier epoch was answered.
func checkLeases(leases []leaseAck, describe func(int64) string) []string {
	var problems []string
	byWorker := map[uint32][]leaseAck{}
	for _, l := range leases {
		byWorker[l.lease.Worker] = append(byWorker[l.lease.Worker], l)
	}
	for _, w := range slices.Sorted(maps.Keys(byWorker)) {
		ls := byWorker[w]
		slices.SortStableFunc(ls, func(a, b leaseAck) int { return cmp.Compare(a.lease.Epoch, b.lease.Epoch) })
		var highest leaseAck // the highest MaxMs of the epochs before the current one
		var epochHighest leaseAck
		for i, l := range ls {
			if i > 0 && l.lease.Epoch != ls[i-1].lease.Epoch {
				if epochHighest.lease.MaxMs > highest.lease.MaxMs {
					highest = epochHighest
				}
				epochHighest = leaseAck{}
			}
			if i > 0 && l.lease.Epoch == ls[i-1].lease.Epoch && l.lease.Holder != ls[i-1].lease.Holder {
				problems = append(problems, fmt.Sprintf("one epoch, two holders: %s and %s", describe(ls[i-1].stamp), describe(l.stamp)))
			}
			if highest.lease.Epoch != 0 && l.lease.MinMs < highest.lease.MaxMs {
				problems = append(problems, fmt.Sprintf("worker time shared: %s, after %s", describe(l.stamp), describe(highest.stamp)))
			}
			if l.lease.MaxMs > epochHighest.lease.MaxMs {
				epochHighest = l
			}
		}
	}
	return problems
}

// summary is one line on what the clients were answered.
func (h *history) summary() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return fmt.Sprintf("%d identity blocks, %d HiLo ranges, %d claims, %d worker leases, %d series numbers answered; %d calls unanswered",
		len(h.identities), len(h.grants), len(h.claims), len(h.leases), len(h.issues), h.fails)
}
