package console

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/poll"
)

// TestWhoTheCallerIsIsAskedAgainAfterADroppedConnection serves the console with a node's API
// that drops the connection of every question of who the caller is (WhoAmI), as a node
// restarting or a connection reset under load does, until the page has said it could not
// ask. Then the node answers: the page must ask again by itself and show the caller's rights,
// not go on hiding every action until a person enters a credential again.
func TestWhoTheCallerIsIsAskedAgainAfterADroppedConnection(t *testing.T) {
	t.Parallel()
	var dropping atomic.Bool
	dropping.Store(true)
	mux := http.NewServeMux()
	Register(mux)
	mux.HandleFunc("GET /v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		if dropping.Load() {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				conn.Close()
			}
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"admin": "token"}`)
	})
	srv := httptest.NewServer(mux) // any other call is a 404, which the page reports and goes on
	t.Cleanup(srv.Close)

	tab := headless.New(t)
	if err := headless.Navigate(tab, srv.URL+Path+"#counters"); err != nil {
		t.Fatalf("opening the console: %v", err)
	}
	caller := func(want string) func() error {
		return func() error {
			got, err := text(tab, "caller")
			if err == nil && !strings.Contains(got, want) {
				err = fmt.Errorf("it says %q; want %q in it", got, want)
			}
			return err
		}
	}
	poll.Until(t, "the page to say it could not ask who the caller is", 30*time.Second, 50*time.Millisecond,
		caller("Could not ask the node who you are"))
	dropping.Store(false)
	poll.Until(t, "the page to ask again and say who the caller is", 30*time.Second, 50*time.Millisecond,
		caller("You are: admin (by token)."))
}
