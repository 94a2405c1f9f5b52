// Package headless runs Debian's chromium without a display for the tests that look at a page
// the way a person would (the web console, a trace drawn as Jaeger draws one), driven with
// chromedp, and takes screenshots of it.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package headless

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// SessionTimeout bounds the whole browser session of one test.
const SessionTimeout = 2 * time.Minute

// names are the programs tried for a browser, Debian's first.
var names = []string{"chromium", "chromium-browser", "google-chrome"}

// Path is the browser the tests drive. Without one the test is skipped, but fails under
// CI=true: .ci/run installs Debian's chromium.
func Path(t testing.TB) string {
	t.Helper()
	for _, name := range names {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	msg := fmt.Sprintf("no headless browser (tried %v): apt-get install chromium", names)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
	return ""
}

// New starts a headless browser for the test, with extra options, and returns a tab's
// context, bounded by SessionTimeout. As root in a container the browser's own sandbox cannot
// start, so it runs without (the pages are the test's own).
func New(t testing.TB, extra ...chromedp.ExecAllocatorOption) context.Context {
	t.Helper()
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(Path(t)),
		chromedp.NoSandbox,
		chromedp.WindowSize(1280, 800),
		chromedp.Flag("disable-dev-shm-usage", true),
	)
	opts = append(opts, extra...)
	ctx, cancelTimeout := context.WithTimeout(context.Background(), SessionTimeout)
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(ctx, opts...)
	tab, cancelTab := chromedp.NewContext(allocCtx)
	t.Cleanup(func() { cancelTab(); cancelAlloc(); cancelTimeout() })
	if err := chromedp.Do(tab); err != nil {
		t.Fatalf("starting the browser: %v", err)
	}
	return tab
}

// Screenshot writes the whole page in tab to path as a PNG.
func Screenshot(t testing.TB, tab context.Context, path string) {
	t.Helper()
	png, err := chromedp.Run(tab, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("screenshot %s: %v", path, err)
	}
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
