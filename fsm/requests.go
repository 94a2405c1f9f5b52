package fsm

import raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"

const (
	requestKindIdentity = 1
	requestKindHiLo     = 2
	requestKindClaim    = 3
	requestKindWorker   = 4
	// requestKindHiLoReturn remembers a ReturnHiLo's answer (returned) under its own
	// request_id, with the return's last as first and its end as last.
	requestKindHiLoReturn = 5
	// requestKindRelease remembers a Release's answer: how many IDs it released, as count.
	requestKindRelease = 6

	// requestTTLMillis is how long an answer is kept for retries, by the proposers' clocks as
	// carried in the log. Retries come within seconds; ten minutes covers a client that waits
	// out a long partition.
	requestTTLMillis = 10 * 60 * 1000
	// maxRequests bounds the table's memory (~100 bytes an entry) whatever the request rate.
	maxRequests = 200_000
)

// requestTable remembers the answers to requests that carried a request_id, oldest first, so
// a retry gets its original values instead of burning new ones. Its clock is the highest
// proposed_at_ms seen in the log, so expiry is the same on every replica.
type requestTable struct {
	byID  map[string]*raftv1.RequestRecord
	queue []*raftv1.RequestRecord // insertion order; queue[head:] is live
	head  int
	nowMs int64
}

func newRequestTable() *requestTable {
	return &requestTable{byID: make(map[string]*raftv1.RequestRecord)}
}

// Request ids are per database: the same id in two databases names two requests.
func requestKey(database, id string) string {
	if name := recordName(DatabaseName(database)); name != "" {
		return name + "\x00" + id
	}
	return id // the default database's, as before databases
}

func (t *requestTable) lookup(database, id string) (*raftv1.RequestRecord, bool) {
	r, ok := t.byID[requestKey(database, id)]
	return r, ok
}

// answered is the record of the request that id answered in database when that was a request
// of kind about key: the retry of a request the table remembers. It is nil for no id or none
// remembered, and ErrRequestIDReused when id answered another request.
func (t *requestTable) answered(database, id string, kind int32, key string) (*raftv1.RequestRecord, error) {
	if id == "" {
		return nil, nil
	}
	rec, ok := t.lookup(database, id)
	switch {
	case !ok:
		return nil, nil
	case rec.GetKind() != kind || rec.GetKey() != key:
		return nil, ErrRequestIDReused
	}
	return rec, nil
}

// advanceClock moves the table's clock forward (never back: leaders' clocks differ) and
// drops expired answers.
func (t *requestTable) advanceClock(ms int64) {
	if ms > t.nowMs {
		t.nowMs = ms
	}
	for t.head < len(t.queue) && t.queue[t.head].GetRecordedAtMs() < t.nowMs-requestTTLMillis {
		t.evictOldest()
	}
}

// record remembers r, replacing an earlier record of its key. A record is never changed once
// recorded (a snapshot being written may hold it): a new one replaces it.
func (t *requestTable) record(r *raftv1.RequestRecord) {
	r.RecordedAtMs = t.nowMs
	t.byID[requestKey(r.GetDatabase(), r.GetRequestId())] = r
	t.queue = append(t.queue, r)
	for len(t.queue)-t.head > maxRequests {
		t.evictOldest()
	}
}

func (t *requestTable) evictOldest() {
	// A key recorded again since (a HiLo range returned, then granted anew) keeps its newer
	// record.
	if k := requestKey(t.queue[t.head].GetDatabase(), t.queue[t.head].GetRequestId()); t.byID[k] == t.queue[t.head] {
		delete(t.byID, k)
	}
	t.queue[t.head] = nil
	t.head++
	// Compact once the dead prefix is half the slice, so memory stays bounded.
	if t.head > len(t.queue)/2 {
		t.queue = append(t.queue[:0:0], t.queue[t.head:]...)
		t.head = 0
	}
}

// live returns the remembered answers, oldest first.
func (t *requestTable) live() []*raftv1.RequestRecord {
	return t.queue[t.head:]
}
