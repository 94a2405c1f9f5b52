//go:build linux

package apps

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/postgres"
)

// The majority loss's bounds.
const (
	// majorityHold is the shortest loss: past the survivor's wait for an election, after which
	// it refuses identities, and past a client's per-attempt timeout (3 s), so that every
	// call the applications had in flight to a dead node has moved on.
	majorityHold = 5 * time.Second
	// heldTooLong is how long an application's connection may sit idle inside a transaction
	// before the drill counts it as held while keys are awaited: far above the gap between two
	// statements of one batch, far below a wait for idnode (an attempt is bounded by 3 s).
	heldTooLong    = 250 * time.Millisecond
	activityPause  = 100 * time.Millisecond // between two reads of pg_stat_activity
	hiloTable      = "orders"               // the table keyed by HiLo, which the survivor's pool serves
	hiloTag        = "orders"               // its HiLo tag
	appNamePrefix  = "drill-"               // each application's application_name: drill-go, drill-python
	activityColumn = "application_name"
	newestAttempt  = 5 * time.Second // one NextHiLo of the client whose last range was the newest
	// minorityRows is the progress in hiloTable each application must make while the survivor
	// is alone: a batch from each worker. A worker takes the tables in turn, and on a minority
	// an identity or a numeric batch fails only when its batch timeout (30 s) ends, as the
	// client retries until then; so each worker reaches its HiLo batch within two of those,
	// inside progressWait, while progressRows would need three or four of its turns, which a
	// run whose workers met the loss at the start of a failing batch did not have (45 of 50).
	minorityRows = workers * batch
)

// majorityReport is what losing the majority did.
type majorityReport struct {
	survivor string
	killed   []string
	pool     int64 // the survivor's pool of hiloTag when the others were killed
	max      int64 // hiloTag's Max then: the end of the newest range the cluster had granted
	lost     time.Time
	held     time.Duration
	apps     map[string]appInCut
	granted  map[string]map[string]int // by language, the HiLo keys committed meanwhile by the tag of the node that granted their range

	mu        sync.Mutex
	newest    *idnodev1.NextHiLoResponse // the survivor's range for a client whose last_max was max
	newestErr error                      // the survivor's last refusal of that client
	reads     int                        // pg_stat_activity reads
	holdings  []string                   // connections seen idle in a transaction for over heldTooLong
}

// loseMajority kills the leader and the other node, leaving the one follower that holds a
// HiLo pool for orders alone: applications that took ranges through the leader for the whole
// drill so far must keep committing HiLo-keyed rows from the survivor's pool while identities
// and numeric leases are refused, and no application connection may sit in a transaction while
// its keys are awaited. Then both nodes come back, and every table moves again.
func (d *drill) loseMajority(pg *postgres.Server) *majorityReport {
	t := d.t
	t.Helper()
	leader := d.leader()
	r := &majorityReport{}
	r.survivor, r.pool, r.max = d.pooledFollower(leader)
	r.killed = d.c.Others(r.survivor)

	base := d.counts()
	before := map[*app]map[string]bool{}
	for _, a := range d.apps {
		before[a] = a.keysIn(hiloTable)
	}
	r.lost = time.Now()
	for _, tag := range r.killed {
		d.c.Node(tag).Kill9()
	}
	stop := make(chan struct{})
	var watching sync.WaitGroup
	watching.Go(func() { r.watchActivity(d, pg, stop) })
	watching.Go(func() { r.askAsNewest(d, stop) })
	// Stopped before the nodes come back, and on a failure before PostgreSQL stops with the
	// test's cleanup.
	stopWatching := sync.OnceFunc(func() {
		close(stop)
		watching.Wait()
	})
	defer stopWatching()
	poll.Until(t, fmt.Sprintf("node %s alone for %v, both applications committing %s rows from its pool", r.survivor, majorityHold, hiloTable),
		progressWait, 50*time.Millisecond, func() error {
			if held := time.Since(r.lost); held < majorityHold {
				return fmt.Errorf("alone for %v", held.Round(time.Millisecond))
			}
			r.mu.Lock()
			newest, refusal := r.newest, r.newestErr
			r.mu.Unlock()
			if newest == nil {
				return fmt.Errorf("node %s granted no range of %s to a client whose last_max is the tag's Max %d: %v", r.survivor, hiloTag, r.max, refusal)
			}
			return d.committedIn(base, hiloTable, minorityRows)
		})
	r.held = time.Since(r.lost)
	stopWatching()
	r.granted = map[string]map[string]int{}
	for _, a := range d.apps {
		r.granted[a.lang] = grantersOf(a.keysIn(hiloTable), before[a])
	}
	r.apps = map[string]appInCut{}
	for _, a := range d.apps {
		rows, stall, failed, first := a.during(r.lost, r.lost.Add(r.held))
		r.apps[a.lang] = appInCut{rows, stall, failed, first}
	}

	for _, tag := range r.killed {
		d.c.Node(tag).Restart()
	}
	d.c.WaitServing(r.killed...)
	d.leader()
	d.progress(fmt.Sprintf("nodes %s back", strings.Join(r.killed, ",")))
	if len(r.holdings) > 0 {
		t.Errorf("an application held a database connection inside a transaction while its keys were awaited (%d of %d reads), e.g. %s",
			len(r.holdings), r.reads, r.holdings[0])
	}
	return r
}

// pooledFollower is the follower whose pool of hiloTag holds the most numbers, as the leader
// lists it: the node that can serve HiLo ranges alone; with its pool's size and the tag's Max.
func (d *drill) pooledFollower(leader string) (best string, most, tagMax int64) {
	t := d.t
	t.Helper()
	// A pool is reserved by its node's first grant and sized by the grants since the node
	// started. After the leader kills, both applications' generators may live on the leader
	// alone, so a client of each follower takes one range first, as an application connected
	// to that node would have: each follower then has a pool, whatever the applications did.
	served := map[string]bool{}
	poll.Until(t, "a follower holding a HiLo pool of "+hiloTag, progressWait, 50*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
		defer cancel()
		for _, f := range d.c.Others(leader) {
			if served[f] {
				continue
			}
			if _, err := d.c.Ids[f].NextHiLo(ctx, &idnodev1.NextHiLoRequest{
				Tag: hiloTag, LastBatchSize: 32, RequestId: d.c.RequestID(),
			}); err != nil {
				return fmt.Errorf("follower %s granted no range of %s: %w", f, hiloTag, err)
			}
			served[f] = true
		}
		resp, err := d.c.Ids[leader].ListHiLo(ctx, &idnodev1.ListHiLoRequest{})
		if err != nil {
			return err
		}
		for _, tag := range resp.GetTags() {
			if tag.GetTag() != hiloTag {
				continue
			}
			tagMax = tag.GetMax()
			for _, p := range tag.GetPools() {
				if p.GetNode() != leader && p.GetAnswered() && p.GetRemaining() > most {
					best, most = p.GetNode(), p.GetRemaining()
				}
			}
			if best == "" {
				return fmt.Errorf("no follower has numbers of %s in its pool: %v", hiloTag, tag.GetPools())
			}
			return nil
		}
		return fmt.Errorf("the leader lists no HiLo tag %s", hiloTag)
	})
	return best, most, tagMax
}

// askAsNewest asks the survivor, until it grants one or stop, for a range of hiloTag as a
// client whose last range was the newest the cluster granted: its last_max is the tag's Max,
// above every number of the survivor's pool, which was reserved before. That is every
// application that took its ranges through the leader; the applications' own generators may
// still be living on a range they took before the loss, so this client is the one that must
// be served from the pool now.
func (r *majorityReport) askAsNewest(d *drill, stop <-chan struct{}) {
	for {
		ctx, cancel := context.WithTimeout(context.Background(), newestAttempt)
		resp, err := d.c.Ids[r.survivor].NextHiLo(ctx, &idnodev1.NextHiLoRequest{
			Tag: hiloTag, LastBatchSize: 32, LastMax: r.max, RequestId: d.c.RequestID(),
		})
		cancel()
		r.mu.Lock()
		r.newest, r.newestErr = resp, err
		r.mu.Unlock()
		if err == nil {
			return
		}
		select {
		case <-stop:
			return
		case <-time.After(activityPause):
		}
	}
}

// grantersOf counts the keys of now that are not in before by the tag they end with (orders/17-C:
// C), the node that granted their range.
func grantersOf(now, before map[string]bool) map[string]int {
	by := map[string]int{}
	for id := range now {
		if !before[id] {
			by[id[strings.LastIndexByte(id, '-')+1:]]++
		}
	}
	return by
}

// committedIn is nil once each application has committed rows more rows in table than
// base says; an application that exited fails the test.
func (d *drill) committedIn(base map[*app]map[string]int, table string, rows int) error {
	for _, a := range d.apps {
		select {
		case <-a.exit:
			d.t.Fatalf("the %s application exited during the drill: %v", a.lang, a.err)
		default:
		}
		if n := a.rowsIn(table) - base[a][table]; n < rows {
			return fmt.Errorf("the %s application committed %d rows in %s since then; want %d", a.lang, n, table, rows)
		}
	}
	return nil
}

// watchActivity reads pg_stat_activity until stop and notes every application connection that
// has been idle inside a transaction for over heldTooLong: a transaction held open while the
// application waits for something that is not the database, here its keys.
func (r *majorityReport) watchActivity(d *drill, pg *postgres.Server, stop <-chan struct{}) {
	query := fmt.Sprintf(`SELECT %s, pid, round(extract(epoch FROM now() - state_change) * 1000)
FROM pg_stat_activity WHERE %s LIKE '%s%%' AND state = 'idle in transaction'
AND now() - state_change > interval '%d milliseconds'`, activityColumn, activityColumn, appNamePrefix, heldTooLong.Milliseconds())
	for {
		ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
		out, err := pg.Psql(ctx, query)
		cancel()
		r.mu.Lock()
		r.reads++
		if err != nil {
			d.t.Errorf("reading pg_stat_activity: %v", err)
		}
		for _, row := range strings.Split(strings.TrimSpace(out), "\n") {
			if f := strings.Split(row, "|"); len(f) == 3 {
				r.holdings = append(r.holdings, fmt.Sprintf("%s (pid %s) idle in a transaction for %s ms", f[0], f[1], f[2]))
			}
		}
		r.mu.Unlock()
		select {
		case <-stop:
			return
		case <-time.After(activityPause):
		}
	}
}

// log prints the figures.
func (r *majorityReport) log(d *drill) {
	t := d.t
	t.Helper()
	t.Logf("majority loss: nodes %s killed, node %s alone for %.1f s with %d numbers of %s in its pool",
		strings.Join(r.killed, ","), r.survivor, r.held.Seconds(), r.pool, hiloTag)
	t.Logf("majority loss: a client whose last_max was the tag's Max %d got %d..%d from node %s",
		r.max, r.newest.GetLow(), r.newest.GetHigh(), r.newest.GetServerTag())
	for _, lang := range slices.Sorted(maps.Keys(r.apps)) {
		in := r.apps[lang]
		t.Logf("majority loss: the %s application committed %d rows meanwhile (%s keys by the node that granted their range: %v), longest wait between two commits %d ms, failed batches %v",
			lang, in.rows, hiloTable, r.granted[lang], in.stall.Milliseconds(), in.failed)
		for _, class := range slices.Sorted(maps.Keys(in.first)) {
			t.Logf("majority loss: the %s application's first %s failure: %.300s", lang, class, in.first[class])
		}
	}
	t.Logf("majority loss: pg_stat_activity read %d times, an application's connection idle in a transaction for over %v in %d of them",
		r.reads, heldTooLong, len(r.holdings))
}
