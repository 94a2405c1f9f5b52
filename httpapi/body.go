package httpapi

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"os"

	"google.golang.org/grpc/codes"

	"github.com/idnode/idnode/reason"
)

// jsonOnly refuses (415) a request that carries a body, or is a POST, unless its Content-Type
// is application/json. A browser sends text/plain, form or multipart bodies from any web page
// without asking the server first (no CORS preflight); application/json it sends only after a
// preflight this node answers for --http-allowed-origins alone (issue 23, item 5).
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
