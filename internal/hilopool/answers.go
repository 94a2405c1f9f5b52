package hilopool

import (
	"strings"
	"sync"
)

// maxPoolAnswers bounds the pool grants a node remembers by request_id (FIFO): retries come
// within seconds; ten thousand covers the busiest node's last minutes.
const maxPoolAnswers = 10_000

// Reply is an answer to a grant from a pool; High is the last number of its range.
type Reply interface{ GetHigh() int64 }

// Answers remembers this node's answers to NextHiLo calls it granted from its pool, by
// database and request_id, so a retry of a call whose answer was lost gets the same range,
// as the leader's request table does for ranges through the log. The node keeps a second one
// for the returns its pools took (AnswerFor), so a retried ReturnHiLo answers returned too. A retry on another node gets
// a new range: the first is a gap, never a duplicate. An answer whose range was given back
// (Forget) is not replayed: the returned numbers may be someone else's by then, so the retry
// gets a new range.
type Answers[R Reply] struct {
	reused   error // what a request_id used before for another request gets
	mu       sync.Mutex
	byKey    map[string]*poolAnswer[R]
	order    []*poolAnswer[R]         // oldest first
	granting map[string]chan struct{} // request keys whose grant is under way; closed when it ends
}

type poolAnswer[R Reply] struct {
	id   string // database + "\x00" + request_id
	what string // the folded tag, and after a NUL the detail AnswerFor was given, if any
	resp R
}

// requestOf is what a request_id answered, for a replay to match: key's folded tag, and detail.
func requestOf(key Key, detail string) string {
	if detail == "" {
		return strings.ToLower(key.Tag)
	}
	return strings.ToLower(key.Tag) + "\x00" + detail
}

// NewAnswers returns an empty cache whose Answer refuses a request_id used before for another
// tag with reused.
func NewAnswers[R Reply](reused error) *Answers[R] {
	return &Answers[R]{reused: reused, byKey: make(map[string]*poolAnswer[R]), granting: make(map[string]chan struct{})}
}

// answerKey names a request_id of a database.
func answerKey(database, requestID string) string { return database + "\x00" + requestID }

// Answer runs grant for key's request requestID unless it was answered before: then it returns
// that answer (the reused error when it was for another tag). One grant per request_id at a
// time: a retry arriving while the first attempt is granting waits for it and takes its answer.
// Grants for different request_ids run concurrently, so they share the pool's writes.
func (p *Answers[R]) Answer(key Key, requestID string, grant func() (R, bool, error)) (R, bool, error) {
	return p.AnswerFor(key, requestID, "", grant)
}

// AnswerFor is Answer for a request that its tag alone does not name, such as a return of a
// range: a replay must carry the same detail too, or it gets the reused error.
func (p *Answers[R]) AnswerFor(key Key, requestID, detail string, grant func() (R, bool, error)) (R, bool, error) {
	if requestID == "" {
		return grant()
	}
	id := answerKey(key.Database, requestID)
	what := requestOf(key, detail)
	p.mu.Lock()
	for {
		if a, ok := p.byKey[id]; ok {
			p.mu.Unlock()
			if a.what != what {
				var none R
				return none, false, p.reused
			}
			return a.resp, true, nil
		}
		under, busy := p.granting[id]
		if !busy {
			break
		}
		p.mu.Unlock()
		<-under
		p.mu.Lock()
	}
	done := make(chan struct{})
	p.granting[id] = done
	p.mu.Unlock()

	resp, ok, err := grant()

	p.mu.Lock()
	defer p.mu.Unlock()
	delete(p.granting, id)
	close(done)
	if err != nil || !ok {
		return resp, ok, err
	}
	a := &poolAnswer[R]{id: id, what: what, resp: resp}
	p.byKey[id] = a
	p.order = append(p.order, a)
	if len(p.order) > maxPoolAnswers {
		if old := p.order[0]; p.byKey[old.id] == old {
			delete(p.byKey, old.id)
		}
		p.order = p.order[1:]
	}
	return resp, true, nil
}

// Forget drops the answer remembered for requestID when it granted key's range ending at end:
// that range is being given back.
func (p *Answers[R]) Forget(key Key, requestID string, end int64) {
	id := answerKey(key.Database, requestID)
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.byKey[id]; ok && a.what == requestOf(key, "") && a.resp.GetHigh() == end {
		delete(p.byKey, id)
	}
}
