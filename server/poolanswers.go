package server

import (
	"strings"
	"sync"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/hilopool"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// maxPoolAnswers bounds the pool grants a node remembers by request_id (FIFO): retries come
// within seconds; ten thousand covers the busiest node's last minutes.
const maxPoolAnswers = 10_000

// poolAnswers remembers this node's answers to NextHiLo calls it granted from its pool, by
// database and request_id, so a retry of a call whose answer was lost gets the same range,
// as the leader's request table does for ranges through the log. A retry on another node gets
// a new range: the first is a gap, never a duplicate.
type poolAnswers struct {
	mu    sync.Mutex // held across lookup, grant and record: one grant per request_id
	byKey map[string]poolAnswer
	order []string
}

type poolAnswer struct {
	tag  string // folded
	resp *idnodev1.NextHiLoResponse
}

func newPoolAnswers() *poolAnswers {
	return &poolAnswers{byKey: make(map[string]poolAnswer)}
}

// answer runs grant for req unless req's request_id was answered before: then it returns that
// answer (ErrRequestIDReused when it was for another tag).
func (p *poolAnswers) answer(key hilopool.Key, req *idnodev1.NextHiLoRequest, grant func() (*idnodev1.NextHiLoResponse, bool, error)) (*idnodev1.NextHiLoResponse, bool, error) {
	if req.GetRequestId() == "" {
		return grant()
	}
	id := key.Database + "\x00" + req.GetRequestId()
	tag := strings.ToLower(key.Tag)
	p.mu.Lock()
	defer p.mu.Unlock()
	if a, ok := p.byKey[id]; ok {
		if a.tag != tag {
			return nil, false, toStatus(fsm.ErrRequestIDReused)
		}
		return a.resp, true, nil
	}
	resp, ok, err := grant()
	if err != nil || !ok {
		return resp, ok, err
	}
	p.byKey[id] = poolAnswer{tag: tag, resp: resp}
	p.order = append(p.order, id)
	if len(p.order) > maxPoolAnswers {
		delete(p.byKey, p.order[0])
		p.order = p.order[1:]
	}
	return resp, true, nil
}
