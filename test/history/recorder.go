// Package history records what clients of an idnode cluster were told — identities, seeds,
// claims, server-side IDs, GUIDs, HiLo ranges — with the times the calls were made and
// answered, and checks the record against DESIGN.md's promises: no ID is ever handed out
// twice (nor is an identity a claimed ID, nor is an ID won by two claims), identity counters
// are linearizable, and a node's etags only increase.
//
// A Recorder is safe for any number of goroutines. It is shared by the real-process e2e tests,
// the container chaos tests and in-process partition tests, so it knows nothing about gRPC:
// callers parse the answers (ParseIdentityID, ParseServerSideID help) and record numbers.
//
// Timestamps come from one monotonic clock per Recorder (time.Since its creation), so they
// order events across goroutines correctly and cannot jump when the wall clock does.
//
// An identity (or seed, or claim) operation is one logical request: when a client retries it with the
// same request_id, on the same node or another, it is still one operation, from its first
// call to its final answer. An operation whose final answer never came (deadline, UNAVAILABLE,
// a killed node) has an unknown outcome: the cluster may or may not have applied it, and the
// checkers accept both.
package history

import (
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// Outcome is what a client learnt about an operation.
type Outcome int

const (
	// Pending: called, not yet answered. The checkers treat it as Unknown.
	Pending Outcome = iota
	// Acknowledged: the client got the answer.
	Acknowledged
	// Unknown: the client gave up without an answer; it may or may not have been applied.
	Unknown
)

func (o Outcome) String() string {
	switch o {
	case Pending:
		return "pending"
	case Acknowledged:
		return "acknowledged"
	case Unknown:
		return "unknown"
	}
	return fmt.Sprintf("Outcome(%d)", int(o))
}

// Recorder collects a history. The zero value is not usable: see New.
type Recorder struct {
	base time.Time

	mu         sync.Mutex
	identities []*IdentityOp
	seeds      []*SeedOp
	claims     []*ClaimOp
	serverSide []ServerSideRecord
	guids      []string
	hilo       []HiLoRange
}

// New returns an empty Recorder whose clock starts now.
func New() *Recorder {
	return &Recorder{base: time.Now()}
}

// Now is the Recorder's monotonic clock: the time since New. Every timestamp in the history
// is on this clock.
func (r *Recorder) Now() time.Duration {
	return time.Since(r.base)
}

// IdentityOp is one logical identity request: count values of a prefix, possibly retried
// with the same request_id. Finish it with Done or Unknown; the first of those wins.
type IdentityOp struct {
	r *Recorder

	// Set at Begin and never changed.
	Seq    int    // order of Begin calls, from 0
	Prefix string // as the caller spelled it; counters compare case-insensitively
	Count  int64
	Call   time.Duration

	// Guarded by r.mu.
	ret         time.Duration
	first, last int64
	skipped     []int64
	outcome     Outcome
	attempts    int
}

// BeginIdentity records the first call of an identity operation asking for count (≥ 1)
// values of prefix (without the trailing "|").
func (r *Recorder) BeginIdentity(prefix string, count int64) *IdentityOp {
	call := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &IdentityOp{r: r, Seq: len(r.identities), Prefix: prefix, Count: count, Call: call, attempts: 1}
	r.identities = append(r.identities, op)
	return op
}

// Retry notes another attempt of the same operation (same request_id). It changes nothing
// the checkers look at; it is counted for the log.
func (op *IdentityOp) Retry() {
	op.r.mu.Lock()
	defer op.r.mu.Unlock()
	op.attempts++
}

// Done records the final answer, received now: values first … last except skipped, the
// claimed values the block passed over (ascending; see BeginClaim). The counter is at last
// afterwards.
func (op *IdentityOp) Done(first, last int64, skipped ...int64) {
	op.r.finish(&op.ret, &op.outcome, Acknowledged, func() {
		op.first, op.last, op.skipped = first, last, slices.Clone(skipped)
	})
}

// Unknown records that the client gave up: the cluster may or may not have used the values.
func (op *IdentityOp) Unknown() { op.r.finish(&op.ret, &op.outcome, Unknown, nil) }

// IdentityRecord is a finished identity operation timed by the caller, for AddIdentity.
type IdentityRecord struct {
	Prefix       string
	Count        int64
	Call, Return time.Duration // on this Recorder's clock (Now)
	Known        bool          // the answer was received; First, Last and Skipped are valid
	First, Last  int64
	Skipped      []int64 // claimed values in First … Last, not handed out (ascending)
}

// AddIdentity records an identity operation that the caller timed itself.
func (r *Recorder) AddIdentity(rec IdentityRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &IdentityOp{r: r, Seq: len(r.identities), Prefix: rec.Prefix, Count: rec.Count, Call: rec.Call,
		ret: rec.Return, attempts: 1, outcome: Unknown}
	if rec.Known {
		op.first, op.last, op.skipped, op.outcome = rec.First, rec.Last, slices.Clone(rec.Skipped), Acknowledged
	}
	r.identities = append(r.identities, op)
}

// SeedOp is one SeedIdentity request. Finish it with Done or Unknown.
type SeedOp struct {
	r *Recorder

	Seq   int
	Name  string
	Value int64
	Force bool
	Call  time.Duration

	ret     time.Duration
	result  int64
	outcome Outcome
}

// BeginSeed records the call of SeedIdentity(name, value, force).
func (r *Recorder) BeginSeed(name string, value int64, force bool) *SeedOp {
	call := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &SeedOp{r: r, Seq: len(r.seeds), Name: name, Value: value, Force: force, Call: call}
	r.seeds = append(r.seeds, op)
	return op
}

// Done records the answer: the counter's value after the seed.
func (op *SeedOp) Done(result int64) {
	op.r.finish(&op.ret, &op.outcome, Acknowledged, func() { op.result = result })
}

// Unknown records that the seed may or may not have been applied.
func (op *SeedOp) Unknown() { op.r.finish(&op.ret, &op.outcome, Unknown, nil) }

// SeedRecord is a finished SeedIdentity timed by the caller, for AddSeed.
type SeedRecord struct {
	Name         string
	Value        int64
	Force        bool
	Call, Return time.Duration // on this Recorder's clock (Now)
	Known        bool          // the answer was received; Result is valid
	Result       int64         // the counter's value after the seed, as answered
}

// AddSeed records a SeedIdentity that the caller timed itself.
func (r *Recorder) AddSeed(rec SeedRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	op := &SeedOp{r: r, Seq: len(r.seeds), Name: rec.Name, Value: rec.Value, Force: rec.Force, Call: rec.Call,
		ret: rec.Return, outcome: Unknown}
	if rec.Known {
		op.result, op.outcome = rec.Result, Acknowledged
	}
	r.seeds = append(r.seeds, op)
}

// finish records an operation's final answer, received now: the time in *ret, ended in
// *outcome, and the rest of the answer through set (nil when there is none), under r.mu. The
// first answer wins: an operation already finished keeps its own.
func (r *Recorder) finish(ret *time.Duration, outcome *Outcome, ended Outcome, set func()) {
	now := r.Now()
	r.mu.Lock()
	defer r.mu.Unlock()
	if *outcome != Pending {
		return
	}
	*ret, *outcome = now, ended
	if set != nil {
		set()
	}
}

// ServerSideRecord is one server-side ID as a client received it.
type ServerSideRecord struct {
	ID           string        // the whole ID, e.g. users/0000000000000000017-B
	Tag          string        // the node tag it ends with
	Etag         uint64        // its number
	Call, Return time.Duration // when the call that returned it was sent and answered
}

// ServerSideID records a server-side ID from a call sent at call (a value of Now) and
// answered now. A call with count > 1 records each of its IDs with the same call time.
func (r *Recorder) ServerSideID(call time.Duration, id, tag string, etag uint64) {
	r.AddServerSideID(ServerSideRecord{ID: id, Tag: tag, Etag: etag, Call: call, Return: r.Now()})
}

// AddServerSideID records a server-side ID that the caller timed itself.
func (r *Recorder) AddServerSideID(rec ServerSideRecord) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.serverSide = append(r.serverSide, rec)
}

// GUID records a GUID a client received.
func (r *Recorder) GUID(g string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.guids = append(r.guids, g)
}

// HiLoRange is a range of HiLo numbers granted to a client, [Low, High].
type HiLoRange struct {
	Tag       string // compares case-insensitively
	Low, High int64
}

// HiLoRange records a granted range [low, high] of tag.
func (r *Recorder) HiLoRange(tag string, low, high int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.hilo = append(r.hilo, HiLoRange{Tag: tag, Low: low, High: high})
}

// HiLoReturn records ReturnHiLo(tag, end, last): the client gives back last+1 … end of its
// range ending at end and will never use them. Record it before sending the call: from then on
// a node may grant those numbers again (with HiLo pools only the pool that granted the range
// takes them back; a return anywhere else changes nothing and they stay a gap), so a range
// granted afterwards may hold them without being a duplicate. Nothing here expects them to be
// granted again. The newest recorded range of tag ending at end is cut to [low, last]
// (dropped if last < low); whether the server accepted the return does not matter to the
// record. When another recorded range already holds some of the returned numbers, nothing is
// cut: they were granted twice while this client still held them, and the duplicate must stay
// visible to Check.
func (r *Recorder) HiLoReturn(tag string, end, last int64) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := fold(tag)
	for i := len(r.hilo) - 1; i >= 0; i-- {
		h := &r.hilo[i]
		if fold(h.Tag) != key || h.High != end {
			continue
		}
		if last >= h.High || r.heldElsewhere(i, max(last+1, h.Low), h.High) {
			return
		}
		if last < h.Low {
			r.hilo = slices.Delete(r.hilo, i, i+1)
		} else {
			h.High = last
		}
		return
	}
}

// heldElsewhere reports whether a recorded range of the same tag other than r.hilo[i] holds a
// number of low … high. r.mu is held.
func (r *Recorder) heldElsewhere(i int, low, high int64) bool {
	key := fold(r.hilo[i].Tag)
	for j, h := range r.hilo {
		if j != i && fold(h.Tag) == key && h.Low <= high && low <= h.High {
			return true
		}
	}
	return false
}

// MaxIdentity is the highest acknowledged identity value of prefix (case-insensitive), and
// whether there is any. Seeds do not count: only values handed out.
func (r *Recorder) MaxIdentity(prefix string) (int64, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	key := fold(prefix)
	var best int64
	found := false
	for _, op := range r.identities {
		if op.outcome == Acknowledged && fold(op.Prefix) == key && (!found || op.last > best) {
			best, found = op.last, true
		}
	}
	return best, found
}

// MaxHiLo is the highest number of any recorded range of tag (case-insensitive), or 0. With
// HiLo pools it need not be in the newest range: nodes grant from pools at different heights.
func (r *Recorder) MaxHiLo(tag string) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best int64
	for _, h := range r.hilo {
		if fold(h.Tag) == fold(tag) {
			best = max(best, h.High)
		}
	}
	return best
}

// HiLoTags lists the tags of the recorded ranges, case-folded, sorted, each once.
func (r *Recorder) HiLoTags() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	var tags []string
	for _, h := range r.hilo {
		if key := fold(h.Tag); !slices.Contains(tags, key) {
			tags = append(tags, key)
		}
	}
	slices.Sort(tags)
	return tags
}

// MaxEtag is the highest recorded etag of node tag, or 0.
func (r *Recorder) MaxEtag(tag string) uint64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	var best uint64
	for _, s := range r.serverSide {
		if s.Tag == tag {
			best = max(best, s.Etag)
		}
	}
	return best
}

// Acknowledged counts the identity operations answered so far (a cheap progress probe for
// tests waiting for load to build up).
func (r *Recorder) Acknowledged() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, op := range r.identities {
		if op.outcome == Acknowledged {
			n++
		}
	}
	return n
}

// identitySnapshot is an IdentityOp's fields, copied under the lock; or a SeedOp's or a
// ClaimOp's, which act on the same counter.
type identitySnapshot struct {
	seq         int
	prefix      string
	count       int64
	call, ret   time.Duration
	first, last int64
	skipped     []int64 // never modified once recorded, so shared with the op
	outcome     Outcome
	attempts    int
	seed        bool // a SeedIdentity, not an increment
	seedValue   int64
	seedForce   bool
	seedResult  int64
	claim       bool    // a Claim, not an increment
	claimValues []int64 // ascending, distinct; shared with the op, which never changes them
	claimOwner  string
	claimWon    bool
}

// increment reports whether op hands out values (not a seed or a claim).
func (op identitySnapshot) increment() bool { return !op.seed && !op.claim }

// snapshot copies everything under the lock, so the checkers run without it.
type snapshot struct {
	identities []identitySnapshot // increments and seeds
	serverSide []ServerSideRecord
	guids      []string
	hilo       []HiLoRange
}

func (r *Recorder) snapshot() snapshot {
	r.mu.Lock()
	defer r.mu.Unlock()
	var s snapshot
	for _, op := range r.identities {
		s.identities = append(s.identities, identitySnapshot{
			seq: op.Seq, prefix: op.Prefix, count: op.Count, call: op.Call, ret: op.ret,
			first: op.first, last: op.last, skipped: op.skipped, outcome: op.outcome, attempts: op.attempts,
		})
	}
	for _, op := range r.seeds {
		s.identities = append(s.identities, identitySnapshot{
			seq: op.Seq, prefix: op.Name, call: op.Call, ret: op.ret, outcome: op.outcome,
			seed: true, seedValue: op.Value, seedForce: op.Force, seedResult: op.result,
		})
	}
	for _, op := range r.claims {
		s.identities = append(s.identities, identitySnapshot{
			seq: op.Seq, prefix: op.Prefix, call: op.Call, ret: op.ret, outcome: op.outcome,
			claim: true, claimValues: op.Values, claimOwner: op.Owner, claimWon: op.won,
		})
	}
	s.serverSide = slices.Clone(r.serverSide)
	s.guids = slices.Clone(r.guids)
	s.hilo = slices.Clone(r.hilo)
	return s
}

// fold is how the FSM compares identity prefixes and HiLo tags (fsm.foldKey).
func fold(s string) string { return strings.ToLower(s) }
