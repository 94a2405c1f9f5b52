package headless

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"

	"github.com/chromedp/cdproto/network"
	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// navigateAttempts bounds how often Navigate loads a page that a network change broke.
const navigateAttempts = 3

// errNetworkChanged marks a load that Chromium aborted because the machine's network changed.
var errNetworkChanged = errors.New("a load was aborted by a network change")

// Navigate opens url in tab, then runs then. Docker adds and removes network interfaces while
// other tests run, and Chromium then aborts the loads in flight with ERR_NETWORK_CHANGED,
// loopback ones included: the page itself, and Navigate fails, or one of its scripts or style
// sheets, and the page loads but never runs, so then would wait until the session ends. Either
// is loaded again, up to navigateAttempts times, from about:blank: asked for again while the
// broken page is there, a URL with a fragment (the console's #counters) would only scroll it
// to the fragment, and the page would stay broken. Any other failure is returned with what the
// page reported meanwhile (failed loads, uncaught exceptions) and the requests it still waited
// for, so a page that never came up says why: a call its server never answered is named.
func Navigate(tab context.Context, url string, then ...chromedp.Action[chromedp.Void]) error {
	var err, broke error // broke: the last load a network change broke, which a later failure names
	for attempt := range navigateAttempts {
		if attempt > 0 {
			broke = err
			if blank := chromedp.Do(tab, chromedp.Navigate("about:blank")); blank != nil {
				return fmt.Errorf("%w; leaving the broken page for about:blank: %v", broke, blank)
			}
		}
		err = navigateOnce(tab, url, then)
		switch {
		case errors.Is(err, errNetworkChanged):
			continue
		case err != nil && broke != nil:
			return fmt.Errorf("%w (load %d of the page; before it, %v)", err, attempt+1, broke)
		}
		return err
	}
	return err
}

// navigateOnce loads url and runs then, stopping as soon as a load of the page's own parts
// fails with ERR_NETWORK_CHANGED.
func navigateOnce(tab context.Context, url string, then []chromedp.Action[chromedp.Void]) error {
	ctx, cancel := context.WithCancelCause(tab)
	defer cancel(nil)
	var seen pageProblems
	pending := newInFlight()
	if err := chromedp.Listen(ctx, func(ev any) {
		switch ev := ev.(type) {
		case *network.EventRequestWillBeSent:
			pending.sent(ev)
		case *network.EventLoadingFinished:
			pending.over(ev.RequestID)
		case *network.EventLoadingFailed:
			pending.over(ev.RequestID)
			seen.add(fmt.Sprintf("a %s load failed: %s", ev.Type, ev.ErrorText))
			if partOfPage(ev.Type) && strings.Contains(ev.ErrorText, "ERR_NETWORK_CHANGED") {
				cancel(fmt.Errorf("%w: a %s load failed with %s", errNetworkChanged, ev.Type, ev.ErrorText))
			}
		case *runtime.EventExceptionThrown:
			if d := ev.ExceptionDetails; d != nil {
				seen.add(fmt.Sprintf("uncaught at %s:%d: %s", d.URL, d.LineNumber+1, exceptionText(d)))
			}
		}
	}); err != nil {
		return err
	}
	err := chromedp.Do(ctx, chromedp.Navigate(url))
	if err == nil {
		err = chromedp.Do(ctx, then...)
	}
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errNetworkChanged):
		return cause
	case err != nil && strings.Contains(err.Error(), "ERR_NETWORK_CHANGED"):
		return fmt.Errorf("%w: %v", errNetworkChanged, err)
	case err != nil:
		return pending.annotate(seen.annotate(err))
	}
	return nil
}

// partOfPage reports whether a load of this type is one the page needs to run at all. A
// failed fetch of the page's own code is its to report and retry.
func partOfPage(t network.ResourceType) bool {
	return t == network.ResourceTypeDocument || t == network.ResourceTypeScript || t == network.ResourceTypeStylesheet
}

func exceptionText(d *runtime.ExceptionDetails) string {
	if d.Exception != nil && d.Exception.Description != "" {
		return d.Exception.Description
	}
	return d.Text
}

// pageProblems keeps the first few problems a page reported. The listener adds them on the
// tab's reading goroutine while the test's goroutine reads them.
type pageProblems struct {
	mu    sync.Mutex
	first []string
}

const keptProblems = 8

func (p *pageProblems) add(problem string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.first) < keptProblems {
		p.first = append(p.first, problem)
	}
}

func (p *pageProblems) annotate(err error) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if len(p.first) == 0 {
		return fmt.Errorf("%w (the page reported no failed load and no uncaught exception)", err)
	}
	return fmt.Errorf("%w; the page reported: %s", err, strings.Join(p.first, "; "))
}
