package console

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/poll"
)

// callTimeout is how long the page waits for an answer: api.js's CALL_TIMEOUT_MS.
func callTimeout(t *testing.T) time.Duration {
	t.Helper()
	src, err := files.ReadFile("ui/api.js")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^export const CALL_TIMEOUT_MS = (\d+);`).FindSubmatch(src)
	if m == nil {
		t.Fatal("api.js declares no CALL_TIMEOUT_MS")
	}
	ms, err := strconv.Atoi(string(m[1]))
	if err != nil {
		t.Fatal(err)
	}
	return time.Duration(ms) * time.Millisecond
}

// TestAPageOutlivesACallThatNeverAnswers serves the console with a node's API that never
// answers who the caller is (WhoAmI), nor the counters page's first read. The page must read
// the counters without waiting for WhoAmI, say in its alert that the read did not answer once
// it has waited the bound, and read again and show the counters.
func TestAPageOutlivesACallThatNeverAnswers(t *testing.T) {
	t.Parallel()
	bound := callTimeout(t)
	var whoami, reads atomic.Int32
	hang := func(r *http.Request) { <-r.Context().Done() } // until the page gives up
	mux := http.NewServeMux()
	Register(mux)
	mux.HandleFunc("GET /v1/whoami", func(w http.ResponseWriter, r *http.Request) {
		whoami.Add(1)
		hang(r)
	})
	mux.HandleFunc("GET /v1/identities", func(w http.ResponseWriter, r *http.Request) {
		if reads.Add(1) == 1 {
			hang(r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"identities": [{"name": "orders", "value": "7"}]}`)
	})
	srv := httptest.NewServer(mux) // any other call is a 404, which the page reports and goes on
	t.Cleanup(srv.Close)

	tab := headless.New(t)
	if err := headless.Navigate(tab, srv.URL+Path+"#counters"); err != nil {
		t.Fatalf("opening the console: %v", err)
	}
	began := time.Now()
	poll.Until(t, "the counters page to read while who the caller is goes unanswered", bound/3, 50*time.Millisecond, func() error {
		if reads.Load() == 0 || whoami.Load() == 0 {
			return fmt.Errorf("%d whoami calls, %d reads of the counters", whoami.Load(), reads.Load())
		}
		return nil
	})
	said := fmt.Sprintf("/v1/identities did not answer within %d s; reading again.", bound/time.Second)
	poll.Until(t, "the page to say its read did not answer", bound+10*time.Second, 100*time.Millisecond, func() error {
		got, err := text(tab, "problem")
		if err == nil && got != said {
			err = fmt.Errorf("its alert says %q; want %q", got, said)
		}
		return err
	})
	if waited := time.Since(began); waited < bound-time.Second {
		t.Fatalf("the page gave up on its read after %v; its bound is %v", waited, bound)
	}
	poll.Until(t, "the page to read again and show the counter", 10*time.Second, 100*time.Millisecond, func() error {
		row, err := chromedp.Run(tab, chromedp.Evaluate[string](
			`[...document.querySelectorAll("#counter-table tbody tr")].map((r) => r.dataset.name + "=" + r.cells[1].textContent).join()`))
		if err == nil && row != "orders=7" {
			err = fmt.Errorf("its table shows %q", row)
		}
		if err == nil {
			if alert, _ := text(tab, "problem"); alert != "" {
				err = fmt.Errorf("its alert still says %q", alert)
			}
		}
		return err
	})
}

// text is the text of the page's element id as a person sees it: none while it is hidden.
func text(tab context.Context, id string) (string, error) {
	got, err := chromedp.Run(tab, chromedp.Evaluate[string](fmt.Sprintf(
		`(() => { const e = document.getElementById(%q); return e && !e.hidden ? e.textContent : ""; })()`, id)))
	if err != nil {
		return "", errors.Join(errors.New("reading #"+id), err)
	}
	return strings.TrimSpace(got), nil
}

// TestAStreamIsBoundedBySilenceNotByLength streams two answers to the console's stream (the
// journal's way to read): one sends a line every quarter of the bound, for longer than the
// bound in all, and must be read whole; the other sends a line and then nothing, and must be
// given up after the bound, in words, with the line it sent read.
func TestAStreamIsBoundedBySilenceNotByLength(t *testing.T) {
	t.Parallel()
	bound := callTimeout(t)
	const steadyLines = 6 // five quarters of the bound in all
	line := func(w http.ResponseWriter, n int) {
		fmt.Fprintf(w, "{\"result\": {\"n\": %d}}\n", n)
		w.(http.Flusher).Flush()
	}
	mux := http.NewServeMux()
	Register(mux)
	steadyTook := make(chan time.Duration, 1)
	mux.HandleFunc("GET /v1/steady", func(w http.ResponseWriter, r *http.Request) {
		began := time.Now()
		defer func() { steadyTook <- time.Since(began) }()
		tick := time.NewTicker(bound / 4) // the pace of the answer, which the test is about
		defer tick.Stop()
		for n := 1; n <= steadyLines; n++ {
			line(w, n)
			if n == steadyLines {
				return
			}
			select {
			case <-tick.C:
			case <-r.Context().Done():
				return
			}
		}
	})
	mux.HandleFunc("GET /v1/silent", func(w http.ResponseWriter, r *http.Request) {
		line(w, 1)
		<-r.Context().Done() // until the page gives up
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	tab := headless.New(t)
	if err := headless.Navigate(tab, srv.URL+Path); err != nil {
		t.Fatalf("opening the console: %v", err)
	}
	reading, cancel := context.WithTimeout(tab, 2*bound) // the old stream waited for ever
	defer cancel()
	got, err := chromedp.Run(reading, chromedp.Evaluate[[]string](`(async () => {
		const { stream } = await import(new URL("api.js", location.href));
		const read = async (path) => {
			const seen = [];
			try {
				await stream(path, {}, (r) => seen.push(r.n));
				return seen.join() + " read whole";
			} catch (err) {
				return seen.join() + " " + err.message;
			}
		};
		return Promise.all([read("/v1/steady"), read("/v1/silent")]);
	})()`, chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"1,2,3,4,5,6 read whole", fmt.Sprintf("1 /v1/silent sent nothing for %d s", bound/time.Second)}
	if !slices.Equal(got, want) {
		t.Fatalf("the streams read as %q; want %q", got, want)
	}
	if took := <-steadyTook; took <= bound {
		t.Fatalf("the steady stream took %v; the test needs it to take longer than the bound, %v", took, bound)
	}
}
