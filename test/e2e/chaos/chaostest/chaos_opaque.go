package chaostest

// The chaos suite's opaque identities: a collection of the default database turned opaque on
// the fresh cluster (MakeOpaque), and clients issuing its identities (Generate "tickets|" and
// "Tickets|", counts 1 to 3, from homes on every node, retried with their request_id) beside
// the usual load, through the schedule's faults. What they were told is kept as answered, the
// forms only. Afterwards every form is read back to its counter value with Explain, called with
// the admin role, and the values go through the same checks as every identity history: no
// value twice, and the counter linearizable (porcupine), each block exactly the next values.
//
// Why Explain and not the key: the promise is that an operator reads a form back without ever
// holding the key (it is never sent to a client, contract point 2), so the test decodes the way
// an operator does, through a node, and that path is proven under the same run. Reading the key
// from an admin's backup would check the forms against an encoder of the test's own, the same
// package the node uses, and prove less about the node.

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

const (
	chaosOpaqueCollection = "tickets" // of the default database, made opaque by StartOpaque
	chaosOpaqueWorkers    = 6         // homes A, B, C, A, B, C; the odd ones spell the collection "Tickets"
	chaosProgressOpaque   = 200       // opaque identity operations acknowledged per load phase
	chaosExplainWorkers   = 6         // Explain calls in flight while the forms are read back
	chaosSeparator        = '/'       // the compose cluster's identity separator
)

// opaqueAnswer is one logical Generate of opaque identities and what its client was told.
type opaqueAnswer struct {
	prefix    string // as the client spelled it
	count     int64
	call, ret time.Duration // on the recorder's clock
	known     bool          // answered: forms holds count symbol strings
	forms     []string      // the symbols after the separator, as answered
}

// opaqueLoad is the opaque identity clients of a schedule (part of chaosLoad: started by
// StartOpaque, stopped with the rest by finish).
type opaqueLoad struct {
	rec   *history.Recorder // its clock times the calls; the decoded history is added to it
	acked atomic.Int64      // answered calls

	mu      sync.Mutex
	answers []opaqueAnswer
}

func (ol *opaqueLoad) record(a opaqueAnswer) {
	ol.mu.Lock()
	defer ol.mu.Unlock()
	ol.answers = append(ol.answers, a)
}

// StartOpaque turns chaosOpaqueCollection opaque (MakeOpaque as admin, through any node,
// repeated until answered: a repeat adds nothing) and adds its clients to the load.
func (r *ChaosRun) StartOpaque() {
	r.T.Helper()
	i := 0
	e2etest.Eventually(r.T, ChaosRecoverWait, "MakeOpaque "+chaosOpaqueCollection, func() error {
		tag := r.Cluster.nodes[i%len(r.Cluster.nodes)].Tag
		i++
		ctx, cancel := context.WithTimeout(context.Background(), chaosAttempt)
		defer cancel()
		st, err := r.c.admin[tag].MakeOpaque(ctx, &idnodev1.MakeOpaqueRequest{Collections: []string{chaosOpaqueCollection}})
		if err != nil {
			return fmt.Errorf("via %s: %w", tag, err)
		}
		if !slices.Contains(st.GetCollections(), chaosOpaqueCollection) || len(st.GetKeyFingerprint()) != 16 {
			r.T.Fatalf("MakeOpaque(%s) = %v: want the collection and a key fingerprint of 8 bytes in hex", chaosOpaqueCollection, st)
		}
		return nil
	})
	ld := r.Load
	ol := &opaqueLoad{rec: history.New()}
	ld.opaque = ol
	nodes := len(ld.c.cluster.nodes)
	for w := range chaosOpaqueWorkers {
		prefix := chaosOpaqueCollection
		if w%2 == 1 {
			prefix = "Tickets" // the same collection: names compare case-insensitively, and so does the tweak
		}
		ld.wg.Go(func() {
			for i := 0; i < chaosMaxOps && !ld.stopped(); i++ {
				err := ol.generate(ld.c, prefix, int64(1+(i+w)%3), w%nodes)
				switch {
				case err == nil:
					ol.acked.Add(1)
				case errors.Is(err, errChaosGaveUp):
					ld.gaveUp.Add(1)
				default:
					ld.fail(fmt.Errorf("opaque identity worker %d: %w", w, err))
				}
				if !ld.pause(chaosPace) {
					return
				}
			}
		})
	}
}

// generate is one logical Generate(prefix|, count) of opaque identities, one request_id, tried
// on the nodes from home (onNodes). The answer must be count forms of the prefix as spelled.
func (ol *opaqueLoad) generate(c *chaosClient, prefix string, count int64, home int) error {
	reqID := c.requestID()
	a := opaqueAnswer{prefix: prefix, count: count, call: ol.rec.Now()}
	err := c.onNodes(home, chaosOpBudget, func(ctx context.Context, tag string, _ int) error {
		resp, err := c.ids[tag].Generate(ctx, &idnodev1.GenerateRequest{Id: prefix + "|", Count: count, RequestId: reqID})
		if err == nil {
			a.forms, err = e2etest.OpaqueForms(resp.GetIds(), prefix, chaosSeparator, count)
		}
		return err
	})
	a.ret, a.known = ol.rec.Now(), err == nil
	ol.record(a)
	if err != nil {
		return fmt.Errorf("opaque identity %s| count %d: %w", prefix, count, err)
	}
	return nil
}

// opaqueCounts is the schedule's part of the line: forms received, those answered twice, those
// that did not read back, and the history's report over the values read back.
type opaqueCounts struct {
	forms, duplicateForms, undecoded int
	report                           history.Report
}

func (oc opaqueCounts) String() string {
	return fmt.Sprintf("opaque={forms=%d duplicate_forms=%d undecoded=%d identities=%d duplicates=%d linearizable=%v}",
		oc.forms, oc.duplicateForms, oc.undecoded, oc.report.Identities, oc.report.Duplicates, oc.report.Linearizable)
}

// verifyOpaque checks everything the opaque clients were told, after recovery with the clients
// stopped, and returns the problems found; it sets the schedule's note. No form may have been
// answered twice; each must read back, through Explain with the admin role, to a value; the
// values of every answer, as a block of the counter, must be linearizable with every other
// answer and hand out no value twice; the counter, as an admin lists it, holds them all; and the
// collection keeps refusing NextIdentity, whose values are the ones the forms hide.
func (r *ChaosRun) verifyOpaque() []string {
	ol := r.Load.opaque
	var problems []string
	fail := func(format string, args ...any) { problems = append(problems, fmt.Sprintf(format, args...)) }
	ol.mu.Lock()
	answers := slices.Clone(ol.answers)
	ol.mu.Unlock()

	var oc opaqueCounts
	owner := map[string]int{} // symbols → the answer that held them first
	for i, a := range answers {
		for _, f := range a.forms {
			oc.forms++
			if j, seen := owner[f]; seen {
				oc.duplicateForms++
				if oc.duplicateForms <= 5 {
					fail("form %s answered twice: to %s| count %d and to %s| count %d", f, answers[j].prefix, answers[j].count, a.prefix, a.count)
				}
				continue
			}
			owner[f] = i
		}
	}

	began := time.Now()
	values, errs := r.explainAll(slices.Collect(func(yield func(string) bool) {
		for f := range owner {
			if !yield(f) {
				return
			}
		}
	}))
	oc.undecoded = len(errs)
	for i, err := range errs {
		if i < 5 {
			fail("%v", err)
		}
	}
	r.T.Logf("opaque: %d forms read back through Explain in %v", len(values), time.Since(began).Round(10*time.Millisecond))

	for _, a := range answers {
		rec := history.IdentityRecord{Prefix: a.prefix, Count: a.count, Call: a.call, Return: a.ret}
		if a.known {
			rec.Known, rec.First, rec.Last, rec.Skipped = blockOf(a.forms, values)
			if !rec.Known {
				continue // a form that did not read back: named above, and the block cannot be checked
			}
		}
		ol.rec.AddIdentity(rec)
	}
	oc.report = ol.rec.CheckWith(history.CheckOptions{Timeout: chaosCheckTimeout})
	if err := oc.report.Err(); err != nil {
		fail("opaque identities, read back: %v", err)
	}
	r.Note = oc.String()

	// The counter holds every value handed out, and shows it to an admin.
	ctx, cancel := context.WithTimeout(context.Background(), ChaosRecoverWait)
	defer cancel()
	list, err := r.c.ids[r.live()[0]].ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{})
	if acked, ok := ol.rec.MaxIdentity(chaosOpaqueCollection); err != nil || !ok {
		fail("opaque collection %s: ListIdentities %v, any form read back: %v", chaosOpaqueCollection, err, ok)
	} else if got := e2etest.IdentityMap(list)[chaosOpaqueCollection]; acked > got {
		fail("opaque collection %s: the counter is %d after recovery, as an admin lists it, but value %d was handed out as a form: lost", chaosOpaqueCollection, got, acked)
	}
	_, err = r.c.ids[r.live()[0]].NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: chaosOpaqueCollection})
	if status.Code(err) != codes.FailedPrecondition || reason.Of(err) != reason.OpaqueCollection {
		fail("NextIdentity(%s) of the opaque collection: %v (reason %q), want FAILED_PRECONDITION reason %s", chaosOpaqueCollection, err, reason.Of(err), reason.OpaqueCollection)
	}
	if oc.report.Identities == 0 {
		fail("too little opaque load to check anything: %s", r.Note)
	}
	return problems
}

// explainAll reads every form (its symbols) back to its value through Explain as admin, spread
// over the live nodes, chaosExplainWorkers at a time, each retried on the next node on
// UNAVAILABLE or a deadline (onNodes). It returns the values read and an error per form that
// did not read back.
func (r *ChaosRun) explainAll(forms []string) (map[string]int64, []error) {
	var (
		mu     sync.Mutex
		values = make(map[string]int64, len(forms))
		errs   []error
		next   atomic.Int64
		wg     sync.WaitGroup
	)
	for w := range chaosExplainWorkers {
		wg.Go(func() {
			for {
				i := int(next.Add(1)) - 1
				if i >= len(forms) {
					return
				}
				id := chaosOpaqueCollection + string(chaosSeparator) + forms[i]
				var v int64
				err := r.c.onNodes(w+i, chaosOpBudget, func(ctx context.Context, tag string, _ int) (err error) {
					v, err = e2etest.ExplainOpaque(ctx, r.c.ids[tag], "", id)
					return err
				})
				mu.Lock()
				if err != nil {
					errs = append(errs, err)
				} else {
					values[forms[i]] = v
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return values, errs
}

// blockOf is an answer's forms as a block of the counter: its lowest and highest value and the
// values between them it does not hold (which the checks take for claimed values, and so refuse
// here, where nothing is claimed). ok is false when a form did not read back.
func blockOf(forms []string, values map[string]int64) (ok bool, first, last int64, skipped []int64) {
	vs := make([]int64, 0, len(forms))
	for _, f := range forms {
		v, found := values[f]
		if !found {
			return false, 0, 0, nil
		}
		vs = append(vs, v)
	}
	slices.Sort(vs)
	vs = slices.Compact(vs)
	first, last = vs[0], vs[len(vs)-1]
	for v, i := first, 0; v <= last && len(skipped) <= len(forms); v++ {
		if i < len(vs) && vs[i] == v {
			i++
			continue
		}
		skipped = append(skipped, v)
	}
	return true, first, last, skipped
}

// opaqueAcked is the opaque calls answered so far, for a load phase's counts.
func (ld *chaosLoad) opaqueAcked() int64 {
	if ld.opaque == nil {
		return 0
	}
	return ld.opaque.acked.Load()
}
