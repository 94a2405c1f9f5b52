package clients

import (
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/headless"
	"github.com/idnode/idnode/test/helpers/opensslcert"
	"github.com/idnode/idnode/test/helpers/poll"
)

// headroomFigure is what the Headroom panel shows in the element sel: its text, and whether
// it is marked past its alert's threshold (data-past, and the word "alert" beside it).
type headroomFigure struct {
	Text    string `json:"text"`
	Past    string `json:"past"`
	Flagged bool   `json:"flagged"`
}

func readFigure(tab context.Context, sel string) (headroomFigure, error) {
	f, err := chromedp.Run(tab, chromedp.Evaluate[headroomFigure](fmt.Sprintf(
		`(() => { const e = document.querySelector(%q);
		  return e ? { text: e.textContent, past: e.dataset.past || "", flagged: !!e.querySelector(".flag") }
		           : { text: "", past: "", flagged: false }; })()`, sel)))
	if err == nil && f.Past == "" {
		err = fmt.Errorf("%s is not shown as a figure yet", sel)
	}
	return f, err
}

// TestConsoleHeadroom opens the console of a node with TLS (openssl's two-day certificates)
// after it was made to move near its limits: a database whose two worker IDs (one worker bit)
// are both leased, a counter of the default database forced within 0.2 % of the int64 limit,
// a worker leased in the default database and a HiLo gap left there. The Headroom panel must
// show the figures Status gives, and mark in words exactly those past their alert's threshold:
// the workers of the small database, the counter, both certificates; not the default
// database's workers, the layouts' time bits or the clock. Its screenshot is
// docs/console-headroom.png.
func TestConsoleHeadroom(t *testing.T) {
	ca := opensslcert.New(t)
	cert, key := ca.Issue("A", "/CN=A/OU="+tlsconfig.NodeUnit, "extendedKeyUsage = serverAuth, clientAuth", "subjectAltName = IP:127.0.0.1, DNS:localhost")
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: e2etest.FreeAddr(t), Extra: []string{"--tls-cert", cert, "--tls-key", key, "--tls-ca", ca.Cert}})
	tc, err := tlsconfig.Client(ca.Cert, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(tc)
	e2etest.WaitServingOver(t, p, creds, e2etest.ServeTimeout)
	conn := e2etest.DialOver(t, p.GRPCAddr, creds)
	ids, admin := idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)

	if _, err := admin.CreateDatabase(e2etest.RPCCtx(t), &idnodev1.CreateDatabaseRequest{Name: "small"}); err != nil {
		t.Fatalf("CreateDatabase(small): %v", err)
	}
	for i := range 2 {
		if _, err := ids.AcquireWorker(e2etest.RPCCtx(t), &idnodev1.AcquireWorkerRequest{Database: "small", Holder: "console test",
			WorkerBits: 1, LeaseMs: 600_000, RequestId: fmt.Sprintf("headroom-small-%d", i)}); err != nil {
			t.Fatalf("AcquireWorker %d of small: %v", i, err)
		}
	}
	if _, err := ids.AcquireWorker(e2etest.RPCCtx(t), &idnodev1.AcquireWorkerRequest{Holder: "console test",
		WorkerBits: 10, LeaseMs: 600_000, RequestId: "headroom-default"}); err != nil {
		t.Fatalf("AcquireWorker of default: %v", err)
	}
	const near = math.MaxInt64 - 10_000_000_000_000_000 // 0.108 % of the range left
	if _, err := ids.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "invoices", Value: near, Force: true}); err != nil {
		t.Fatalf("SeedIdentity(invoices, force): %v", err)
	}
	// A range given back once a newer one was granted cannot be taken back: a gap.
	rng, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts"})
	if err != nil {
		t.Fatalf("NextHiLo: %v", err)
	}
	if _, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts", LastMax: rng.GetHigh()}); err != nil {
		t.Fatalf("NextHiLo: %v", err)
	}
	if ret, err := ids.ReturnHiLo(e2etest.RPCCtx(t), &idnodev1.ReturnHiLoRequest{Tag: "carts", End: rng.GetHigh(), Last: rng.GetLow(),
		GrantId: rng.GetGrantId(), RequestId: "headroom-return"}); err != nil || ret.GetReturned() {
		t.Fatalf("ReturnHiLo of a range no longer the newest = %v, %v; want returned false", ret, err)
	}

	st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	byName := map[string]*idnodev1.DatabaseHeadroom{}
	for _, d := range st.GetHeadroom().GetDatabases() {
		byName[d.GetDatabase()] = d
	}
	def, small := byName["default"], byName["small"]
	if def == nil || small == nil || def.GetLargestIdentity() != "invoices" || def.GetHiloAbandoned() == 0 || small.GetWorkersLeased() != 2 {
		t.Fatalf("Status headroom = %v; want default with invoices and a HiLo gap, small with 2 workers leased", st.GetHeadroom())
	}

	tab := headless.New(t, chromedp.Flag("ignore-certificate-errors", true))
	if err := headless.Navigate(tab, "https://"+p.Opts.HTTPAddr+"/ui/",
		chromedp.WaitVisible(chromedp.CSS(`#headroom-databases tr[data-database="small"]`))); err != nil {
		t.Fatalf("opening the console: %v", err)
	}
	row := func(db, class string) string {
		return fmt.Sprintf(`#headroom-databases tr[data-database=%q] td.%s`, db, class)
	}
	type want struct {
		sel  string
		past bool
		text string // a part of the figure's text
	}
	wants := []want{
		{row("default", "leased"), false, strconv.FormatInt(def.GetWorkersLeased(), 10)},
		{row("default", "available"), false, fmt.Sprintf("of %d", 1<<def.GetWorkerBits())},
		{row("default", "counter"), true, "identity invoices"},
		{row("default", "abandoned"), false, strconv.FormatUint(def.GetHiloAbandoned(), 10)},
		{row("small", "leased"), false, "2"},
		{row("small", "available"), true, "of 2"},
		{row("small", "counter"), false, "none used"},
		{"#headroom-certs li[data-kind=node]", true, "node: in "},
		{"#headroom-certs li[data-kind=ca]", true, "ca: in "},
		{"#headroom-time-default", false, fmt.Sprintf("%d.", int(st.GetHeadroom().GetNumericYearsLeft()["default"]))},
		{"#headroom-time-js-safe", false, " years"},
		{"#headroom-disk-free", false, "iB"},
		{"#headroom-clock", false, "+0.000 s"}, // a single node leads: its clock is the reference
	}
	poll.Until(t, "the Headroom panel to show Status's figures", consoleFailover, consolePoll, func() error {
		var problems []error
		for _, w := range wants {
			f, err := readFigure(tab, w.sel)
			switch {
			case err != nil:
				problems = append(problems, err)
			case !strings.Contains(f.Text, w.text):
				problems = append(problems, fmt.Errorf("%s shows %q; want %q in it", w.sel, f.Text, w.text))
			case f.Past != strconv.FormatBool(w.past) || f.Flagged != w.past:
				problems = append(problems, fmt.Errorf("%s (%q) is marked past %s, flagged in words %v; want %v", w.sel, f.Text, f.Past, f.Flagged, w.past))
			}
		}
		return errors.Join(problems...)
	})
	// The mark says in words which threshold was passed, with the number Status gave.
	f, err := readFigure(tab, row("default", "counter"))
	if want := fmt.Sprintf("alert: under %.3g %%", 100*st.GetHeadroom().GetThresholds().GetCounterHeadroomRatio()); err != nil || !strings.Contains(f.Text, want) {
		t.Errorf("the counter's mark reads %q (%v); want %q", f.Text, err, want)
	}

	png, err := chromedp.Run(tab, chromedp.Screenshot(chromedp.CSS("#headroom")))
	if err != nil {
		t.Fatalf("screenshot of the Headroom panel: %v", err)
	}
	path := filepath.Join(e2etest.Artefacts(t), "console-headroom.png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}
