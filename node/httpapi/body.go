package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"
	"sync"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/reason"
)

// jsonOnly refuses (415) a request that carries a body, or is a POST, unless its Content-Type
// is application/json. A browser sends text/plain, form or multipart bodies from any web page
// without asking the server first (no CORS preflight); application/json it sends only after a
// preflight this node answers for --http-allowed-origins alone.
func jsonOnly(w http.ResponseWriter, r *http.Request) bool {
	if r.Method != http.MethodPost && r.ContentLength == 0 {
		return true
	}
	ct := r.Header.Get("Content-Type")
	if mt, _, err := mime.ParseMediaType(ct); err == nil && mt == "application/json" {
		return true
	}
	refuse(w, http.StatusUnsupportedMediaType, codes.InvalidArgument, reason.InvalidInput,
		fmt.Sprintf("%s %s: the body must be JSON sent with Content-Type: application/json (got %q)", r.Method, r.URL.Path, ct))
	return false
}

// readBody reads the request's body whole, at most limit bytes, and puts it back for the
// gateway (which reads bodies whole anyway). A Content-Length above limit is answered 413
// before a byte of the body is read; a chunked body is cut off at limit and answered the same.
// A body that does not arrive within the server's read timeout is answered 408.
func readBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	tooLarge := func() {
		w.Header().Set("Connection", "close") // the rest of the body is not read
		refuse(w, http.StatusRequestEntityTooLarge, codes.ResourceExhausted, "",
			fmt.Sprintf("%s %s: the body is larger than this node takes (%d bytes, --http-max-body)", r.Method, r.URL.Path, limit))
	}
	if r.ContentLength > limit {
		tooLarge()
		return nil, false
	}
	if r.Body == nil || r.Body == http.NoBody {
		return nil, true
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	var big *http.MaxBytesError
	switch {
	case errors.As(err, &big):
		tooLarge()
		return nil, false
	case errors.Is(err, os.ErrDeadlineExceeded):
		w.Header().Set("Connection", "close")
		refuse(w, http.StatusRequestTimeout, codes.DeadlineExceeded, "",
			fmt.Sprintf("%s %s: the body did not arrive within the node's read timeout (--http-read-timeout)", r.Method, r.URL.Path))
		return nil, false
	case err != nil:
		refuse(w, http.StatusBadRequest, codes.InvalidArgument, reason.InvalidInput,
			fmt.Sprintf("%s %s: reading the body: %v", r.Method, r.URL.Path, err))
		return nil, false
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	return body, true
}

// bodyBudget bounds the bytes of request bodies held at once (Options.MaxBodyMemory), so many
// connections each sending a body up to the limit cannot add up to more memory than that.
type bodyBudget struct {
	mu   sync.Mutex
	free int64
}

// take reserves n bytes, or reports that they are not free now.
func (b *bodyBudget) take(n int64) bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	if n > b.free {
		return false
	}
	b.free -= n
	return true
}

func (b *bodyBudget) give(n int64) {
	b.mu.Lock()
	b.free += n
	b.mu.Unlock()
}

// reserveBody takes from budget what r's body may hold: its Content-Length, or limit for a
// chunked body. When that is not free it answers 503 (retry shortly) and reports false; else
// it returns what to give back when the request is over.
func reserveBody(w http.ResponseWriter, r *http.Request, budget *bodyBudget, limit int64) (int64, bool) {
	n := r.ContentLength
	switch {
	case n < 0:
		n = limit // chunked: it may hold up to the limit
	case n == 0 || n > limit:
		return 0, true // nothing to hold, or refused (413) by readBody before a byte is read
	}
	if budget.take(n) {
		return n, true
	}
	w.Header().Set("Retry-After", "1")
	refuse(w, http.StatusServiceUnavailable, codes.Unavailable, "",
		fmt.Sprintf("%s %s: this node is reading too many request bodies at once (--http-max-body-memory); retry shortly", r.Method, r.URL.Path))
	return 0, false
}
