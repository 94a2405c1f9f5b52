package headless

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"regexp"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/chromedp"

	"github.com/idnode/idnode/test/helpers/netns"
	"github.com/idnode/idnode/test/helpers/poll"
)

// waitForPage bounds a Navigate whose page never runs, so a failure takes this long rather
// than the whole session.
const waitForPage = 45 * time.Second

// TestNavigateLoadsAgainAPageANetworkChangeBroke runs the browser on a host of its own and
// changes that host's network while the page's script is connecting, as Docker does to the
// machine while other tests run. Chromium fails the connection with ERR_NETWORK_CHANGED and
// the page never runs; Navigate must see that and load the page again. A URL with a fragment
// (the console's #counters) is the case to watch: asked for again, the page that is already
// there would only scroll to it.
func TestNavigateLoadsAgainAPageANetworkChangeBroke(t *testing.T) {
	for _, fragment := range []string{"", "#counters"} {
		t.Run("fragment="+fragment, func(t *testing.T) { loadAgainAfterNetworkChange(t, fragment) })
	}
}

func loadAgainAfterNetworkChange(t *testing.T, fragment string) {
	n := netns.Start(t, "browser")
	script := serve(t, n.TestAddr(), "/app.js", "text/javascript", `document.body.insertAdjacentHTML("beforeend", '<p id="ran">ran</p>');`)
	page := serve(t, n.TestAddr(), "/", "text/html", `<!doctype html><title>t</title><body><script src="http://`+script.addr+`/app.js"></script>`)

	// The script's connection hangs: the browser's SYNs to its port are dropped and counted.
	_, port, _ := net.SplitHostPort(script.addr)
	inHost(t, n, "browser", "table inet held { chain out { type filter hook output priority 0; tcp dport "+port+" counter drop; }; }", "nft", "-f", "-")

	tab := New(t, chromedp.ModifyCmdFunc(func(cmd *exec.Cmd) {
		argv := n.Command("browser", cmd.Args...)
		cmd.Path, cmd.Args = argv[0], argv
	}))
	ctx, cancel := context.WithTimeout(tab, waitForPage)
	defer cancel()
	failed := make(chan string, 1)
	if err := chromedp.Listen(ctx, func(ev any) {
		if e, ok := ev.(*network.EventLoadingFailed); ok && e.Type == network.ResourceTypeScript {
			select {
			case failed <- e.ErrorText:
			default:
			}
		}
	}); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		done <- Navigate(ctx, "http://"+page.addr+"/"+fragment, chromedp.WaitVisible(chromedp.CSS("#ran")))
	}()
	poll.Until(t, "the browser connecting for the script", waitForPage, 50*time.Millisecond, func() error {
		if !dropped.MatchString(inHost(t, n, "browser", "", "nft", "list", "table", "inet", "held")) {
			return errors.New("no SYN to the script's port yet")
		}
		return nil
	})
	changeNetwork(t, n, "browser")
	select {
	case text := <-failed:
		t.Logf("the script's load failed: %s", text)
	case <-ctx.Done():
		t.Fatal("the browser did not fail the script's connection after the network changed")
	}
	inHost(t, n, "browser", "", "nft", "delete", "table", "inet", "held")
	if err := <-done; err != nil {
		t.Fatalf("Navigate after a network change broke the page's script: %v", err)
	}
	if got := script.loads.Load(); got != 1 {
		t.Fatalf("the script was served %d times; want 1, after the connection the change broke", got)
	}
}

// dropped matches an nft counter that counted a packet.
var dropped = regexp.MustCompile(`packets [1-9]`)

// served is a document a test serves, and how often it was served.
type served struct {
	addr  string
	loads atomic.Int32
}

func serve(t *testing.T, host, path, contentType, body string) *served {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	s := &served{addr: l.Addr().String()}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != path {
			http.NotFound(w, r)
			return
		}
		s.loads.Add(1)
		w.Header().Set("Content-Type", contentType)
		io.WriteString(w, body)
	})}
	go srv.Serve(l)
	t.Cleanup(func() { srv.Close() })
	return s
}

// inHost runs argv on host h with stdin and returns its output.
func inHost(t *testing.T, n *netns.Net, h, stdin string, argv ...string) string {
	t.Helper()
	full := n.Command(h, argv...)
	cmd := exec.Command(full[0], full[1:]...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v: %s", strings.Join(argv, " "), err, out)
	}
	return string(out)
}

// changeNetwork gives host h a new link, which Chromium's watch of the host's network reports
// as a change.
func changeNetwork(t *testing.T, n *netns.Net, h string) {
	t.Helper()
	inHost(t, n, h, "", "ip", "link", "add", "changed0", "type", "veth", "peer", "name", "changed1")
	inHost(t, n, h, "", "ip", "link", "set", "changed0", "up")
	inHost(t, n, h, "", "ip", "link", "set", "changed1", "up")
	inHost(t, n, h, "", "ip", "addr", "add", "192.0.2.1/24", "dev", "changed0")
}

// TestNavigateSaysWhatThePageReported checks that a page that never comes up fails Navigate
// with what went wrong in it: here an uncaught exception of its script.
func TestNavigateSaysWhatThePageReported(t *testing.T) {
	p := serve(t, "127.0.0.1", "/", "text/html", `<!doctype html><title>t</title><script>throw new Error("the page's own bug")</script>`)
	tab := New(t)
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	err := Navigate(ctx, "http://"+p.addr+"/", chromedp.WaitVisible(chromedp.CSS("#never")))
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the page's own bug") {
		t.Fatalf("Navigate to a page that throws: %v; want the deadline, with the page's exception", err)
	}
}

// TestNavigateNamesTheRequestsStillInFlight checks that a page waiting for an answer that
// never comes fails Navigate with that request named, its query left out.
func TestNavigateNamesTheRequestsStillInFlight(t *testing.T) {
	hung := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/hangs" {
			select {
			case <-hung:
			case <-r.Context().Done():
			}
			return
		}
		w.Header().Set("Content-Type", "text/html")
		io.WriteString(w, `<!doctype html><title>t</title><script>fetch("/hangs?key=not-for-the-log")</script>`)
	}))
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(hung) }) // before srv.Close, which waits for the handler
	tab := New(t)
	ctx, cancel := context.WithTimeout(tab, 5*time.Second)
	defer cancel()
	err := Navigate(ctx, srv.URL+"/", chromedp.WaitVisible(chromedp.CSS("#never")))
	if !errors.Is(err, context.DeadlineExceeded) || !inFlightHangs.MatchString(err.Error()) || strings.Contains(err.Error(), "not-for-the-log") {
		t.Fatalf("Navigate to a page whose call never answers: %v; want the deadline, naming GET /hangs without its query", err)
	}
	t.Log(err)
}

// inFlightHangs matches the hung request as Navigate's error names it.
var inFlightHangs = regexp.MustCompile(`requests still in flight: GET /hangs for [0-9.]+m?s\b`)
