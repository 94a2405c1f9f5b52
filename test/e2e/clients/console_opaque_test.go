package clients

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"google.golang.org/grpc/metadata"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/poll"
)

// The console's explain box shows what Explain answers the tab's credential: an opaque ID's
// value to the admin, only that it is opaque to anyone else; and the counters table shows an
// opaque counter's value as hidden to a caller without the admin role.
func TestConsoleExplainsOpaqueIDs(t *testing.T) {
	const token = "console-opaque-token"
	c := e2etest.StartClusterWith(t, func(string) e2etest.NodeOpts {
		return e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: []string{"--admin-token", token}}
	})
	admin := func() context.Context {
		return metadata.AppendToOutgoingContext(e2etest.RPCCtx(t), "authorization", "Bearer "+token)
	}
	leader := c.Leader()
	if _, err := c.Admin[leader].MakeOpaque(admin(), &idnodev1.MakeOpaqueRequest{Collections: []string{"orders"}}); err != nil {
		t.Fatalf("MakeOpaque: %v", err)
	}
	// Asked again with its request id after a refusal for want of a leader, as a client would.
	req := &idnodev1.GenerateRequest{Id: "orders|", Count: 4, RequestId: c.RequestID()}
	resp, err := e2etest.Retried(func(ctx context.Context) (*idnodev1.GenerateResponse, error) {
		return c.Ids[leader].Generate(metadata.AppendToOutgoingContext(ctx, "authorization", "Bearer "+token), req)
	})
	if err != nil {
		t.Fatal(err)
	}
	id := resp.GetIds()[3] // value 4
	via := c.Others(leader)[0]
	base := "http://" + c.Node(via).Opts.HTTPAddr + "/ui/"
	tab := headless.New(t)
	if err := headless.Navigate(tab, base, chromedp.WaitVisible(chromedp.CSS("#leader[data-leader]"))); err != nil {
		t.Fatalf("opening the console of %s: %v", via, err)
	}
	explained := func(who string, want, unwanted []string) {
		t.Helper()
		// The form is submitted as its button would, but not by a click at the button's place:
		// the counters table above it is drawn again once the node says who the caller is,
		// which can move the button between chromedp finding it and clicking there.
		if err := headless.Navigate(tab, base+"#counters", chromedp.WaitVisible(chromedp.CSS("#explain-id")),
			chromedp.SetValue(chromedp.CSS("#explain-id"), id),
			chromedp.Evaluate[chromedp.Void](`document.getElementById("explain").requestSubmit()`)); err != nil {
			t.Fatalf("explaining %s as %s: %v", id, who, err)
		}
		poll.Until(t, "the explain box to show "+id+" as "+who+" reads it", consoleFailover, consolePoll, func() error {
			got, err := chromedp.Run(tab, chromedp.Evaluate[string](
				`[...document.querySelectorAll("#explain-result div")].map((d) => d.children[0].textContent + "=" + d.children[1].textContent).join("; ")`))
			if err != nil {
				return err
			}
			for _, w := range want {
				if !strings.Contains(got, w) {
					return fmt.Errorf("it shows %q, without %q", got, w)
				}
			}
			for _, u := range unwanted {
				if strings.Contains(got, u) {
					return fmt.Errorf("it shows %q, with %q", got, u)
				}
			}
			return nil
		})
	}
	useCredential(t, tab, token, "admin (by token)")
	explained("the admin", []string{"Kind=identity", "Opaque=yes", "Number=4", "Prefix=orders/"}, nil)
	screenshot(t, tab, "console-explain-opaque-admin")

	if err := chromedp.Do(tab, chromedp.Click(chromedp.CSS("#forget"))); err != nil {
		t.Fatal(err)
	}
	explained("a caller without a credential", []string{"Kind=identity", "Opaque=yes", "admin only"}, []string{"Number="})
	poll.Until(t, "the counters table to hide the opaque value", consoleFailover, consolePoll, func() error {
		got, err := shownCounter(tab, "orders")
		if err == nil && got != "hidden (opaque)" {
			err = fmt.Errorf("it shows %q", got)
		}
		return err
	})
}
