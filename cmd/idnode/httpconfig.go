package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/idnode/idnode/internal/history"
	"github.com/idnode/idnode/node/httpapi"
)

// httpConfig is how the HTTP/JSON face bounds what a caller can hold and
// which web pages may call it (item 5). The defaults are far above what a normal client needs:
// a request of a few hundred bytes sent at once, a handful of keep-alive connections.
type httpConfig struct {
	allowedOrigins []string
	allowedHosts   []string
	maxBody        int64
	maxBodyMemory  int64
	readTimeout    time.Duration
	idleTimeout    time.Duration
	maxConns       int
	// historyInterval is how often the console's graphs take a sample (history.Recorder).
	historyInterval time.Duration

	originsFlag, hostsFlag, maxBodyFlag, maxBodyMemoryFlag string // as given, for finish
}

// HTTP defaults (docs/http-api.md, "HTTP limits").
const (
	defaultHTTPReadTimeout = 30 * time.Second
	defaultHTTPIdleTimeout = 2 * time.Minute
	defaultHTTPMaxConns    = 1024
	// A sample interval outside these is a mistake: under a second the graphs cover only
	// minutes, over a minute they blur an hour into a handful of points.
	minHistoryInterval = time.Second
	maxHistoryInterval = time.Minute
)

func (h *httpConfig) register(fs *flag.FlagSet) {
	fs.StringVar(&h.originsFlag, "http-allowed-origins", "", "comma-separated origins (https://ops.example.com) whose web pages may call the HTTP API; "+
		"a request with any other Origin header is refused (403); empty: no web page may")
	fs.StringVar(&h.hostsFlag, "http-allowed-hosts", "", "comma-separated host names (ids.example.com) clients reach the HTTP API by, besides IP addresses, localhost, "+
		"this machine's host name and the hosts of this node's addresses; a request whose Host names another is refused (403): it may be a web page on a rebound DNS name")
	fs.StringVar(&h.maxBodyFlag, "http-max-body", fmt.Sprintf("%dMiB", httpapi.DefaultMaxBodyBytes>>20), "largest HTTP request body (e.g. 1MiB): a larger one is refused (413) before it is read")
	fs.StringVar(&h.maxBodyMemoryFlag, "http-max-body-memory", fmt.Sprintf("%dMiB", httpapi.DefaultMaxBodyMemory>>20),
		"most bytes of HTTP request bodies held at once, at least --http-max-body: a request whose body would pass it is refused (503, retry)")
	fs.DurationVar(&h.readTimeout, "http-read-timeout", defaultHTTPReadTimeout, "time an HTTP client has to send a whole request, headers and body: a slower one is cut off")
	fs.DurationVar(&h.idleTimeout, "http-idle-timeout", defaultHTTPIdleTimeout, "how long an idle keep-alive HTTP connection stays open")
	fs.IntVar(&h.maxConns, "http-max-conns", defaultHTTPMaxConns, "most HTTP connections open at once; more wait for one to close")
	fs.DurationVar(&h.historyInterval, "console-sample-interval", history.DefaultInterval, fmt.Sprintf("how often the console's graphs take a sample, "+
		"between %v and %v; %d are kept, an hour at the default (docs/console.md)", minHistoryInterval, maxHistoryInterval, history.DefaultSamples))
}

func (h *httpConfig) finish() error {
	var err error
	if h.maxBody, err = parseByteSize(h.maxBodyFlag); err != nil || h.maxBody < 1 {
		return fmt.Errorf("--http-max-body must be a size of at least 1 byte, got %q", h.maxBodyFlag)
	}
	if h.maxBodyMemory, err = parseByteSize(h.maxBodyMemoryFlag); err != nil || h.maxBodyMemory < h.maxBody {
		return fmt.Errorf("--http-max-body-memory must be a size of at least --http-max-body (%d bytes), got %q", h.maxBody, h.maxBodyMemoryFlag)
	}
	if h.readTimeout <= 0 || h.idleTimeout <= 0 {
		return fmt.Errorf("--http-read-timeout and --http-idle-timeout must be positive, got %v and %v", h.readTimeout, h.idleTimeout)
	}
	if h.maxConns < 1 {
		return fmt.Errorf("--http-max-conns must be at least 1, got %d", h.maxConns)
	}
	if h.historyInterval < minHistoryInterval || h.historyInterval > maxHistoryInterval {
		return fmt.Errorf("--console-sample-interval must be between %v and %v, got %v", minHistoryInterval, maxHistoryInterval, h.historyInterval)
	}
	if h.allowedOrigins, err = httpapi.ParseOrigins(commaList(h.originsFlag)); err != nil {
		return fmt.Errorf("--http-allowed-origins: %w", err)
	}
	if h.allowedHosts, err = httpapi.ParseHosts(commaList(h.hostsFlag)); err != nil {
		return fmt.Errorf("--http-allowed-hosts: %w", err)
	}
	return nil
}

// hosts is what a request's Host may name besides IP addresses and localhost: the names in
// --http-allowed-hosts, this machine's host name and the host names among the node's
// addresses (those it serves on and is reached at).
func (h *httpConfig) hosts(addrs ...string) []string {
	names := append([]string(nil), h.allowedHosts...)
	if name, err := os.Hostname(); err == nil {
		addrs = append(addrs, name)
	}
	return append(names, httpapi.OwnHosts(addrs...)...)
}

// commaList is the non-empty, trimmed entries of a comma-separated flag.
func commaList(flag string) []string {
	var out []string
	for _, e := range strings.Split(flag, ",") {
		if e = strings.TrimSpace(e); e != "" {
			out = append(out, e)
		}
	}
	return out
}
