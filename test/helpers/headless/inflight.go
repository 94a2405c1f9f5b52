package headless

import (
	"fmt"
	"maps"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/chromedp/cdproto/network"
)

// keptInFlight bounds the requests inFlight follows at once: a page that starts more without
// any ending is reported with how many were left out.
const keptInFlight = 64

// inFlight follows the requests a page has sent and that have neither finished nor failed, so
// that a page that never came up can say which answer it was still waiting for. The listener
// adds and removes them on the tab's reading goroutine while the test's goroutine reads them.
type inFlight struct {
	mu      sync.Mutex
	started map[network.RequestID]request
	left    int // requests not followed because keptInFlight were already
}

// request is one request in flight: what it asked for and when the test saw it leave.
type request struct {
	method, path string
	at           time.Time
}

func newInFlight() *inFlight {
	return &inFlight{started: map[network.RequestID]request{}}
}

// sent follows a request the page sent. A redirect sends its request again under the same id,
// which keeps its first time.
func (f *inFlight) sent(ev *network.EventRequestWillBeSent) {
	if ev.Request == nil {
		return
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	r, ok := f.started[ev.RequestID]
	if !ok {
		if len(f.started) >= keptInFlight {
			f.left++
			return
		}
		r.at = time.Now()
	}
	r.method, r.path = ev.Request.Method, pathOf(ev.Request.URL)
	f.started[ev.RequestID] = r
}

// over stops following a request that finished or failed.
func (f *inFlight) over(id network.RequestID) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.started, id)
}

// annotate adds to err the requests still in flight, the oldest first and at most
// keptProblems of them, each with how long it has waited.
func (f *inFlight) annotate(err error) error {
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.started) == 0 && f.left == 0 {
		return fmt.Errorf("%w; no request was in flight", err)
	}
	waiting := slices.SortedFunc(maps.Values(f.started), func(a, b request) int { return a.at.Compare(b.at) })
	now := time.Now()
	var say []string
	for _, r := range waiting[:min(len(waiting), keptProblems)] {
		say = append(say, fmt.Sprintf("%s %s for %v", r.method, r.path, now.Sub(r.at).Round(time.Millisecond)))
	}
	if more := len(waiting) - len(say) + f.left; more > 0 {
		say = append(say, fmt.Sprintf("and %d more", more))
	}
	return fmt.Errorf("%w; requests still in flight: %s", err, strings.Join(say, ", "))
}

// pathOf is the path of u, without its query (which may carry what is not the test log's),
// or only its scheme if it has no path (about:blank, data:…).
func pathOf(u string) string {
	p, err := url.Parse(u)
	switch {
	case err != nil:
		return "an unparsable URL"
	case p.Path != "":
		return p.Path
	}
	return p.Scheme + ":"
}
