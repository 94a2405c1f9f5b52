package ops

import (
	"fmt"
	"math"
	"testing"

	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/opensslcert"
)

// headroomSaturationCalls bounds the numeric calls made to saturate the minter's sequence:
// each mints headroomNumericCount IDs, 24 milliseconds' worth of sequence at once.
const (
	headroomSaturationCalls = 20
	headroomNumericCount    = 100_000
)

// TestHeadroomGaugesMove reads the headroom gauges of a real node (TLS with openssl's two-day
// certificates) before and after it leases a worker, saturates its numeric sequence and
// raises an identity counter and a HiLo Max, and leaves a HiLo gap, and checks Status says the
// same.
func TestHeadroomGaugesMove(t *testing.T) {
	t.Parallel()
	ca := opensslcert.New(t)
	cert, key := ca.Issue("A", "/CN=A/OU="+tlsconfig.NodeUnit, "extendedKeyUsage = serverAuth, clientAuth", "subjectAltName = IP:127.0.0.1, DNS:localhost")
	metricsAddr := e2etest.FreeAddr(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{Extra: []string{"--tls-cert", cert, "--tls-key", key, "--tls-ca", ca.Cert, "--metrics-addr", metricsAddr}})
	tc, err := tlsconfig.Client(ca.Cert, "", "", "")
	if err != nil {
		t.Fatal(err)
	}
	creds := credentials.NewTLS(tc)
	e2etest.WaitServingOver(t, p, creds, e2etest.ServeTimeout)
	conn := e2etest.DialOver(t, p.GRPCAddr, creds)
	ids, admin := idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)

	body := e2etest.Scrape(t, metricsAddr)
	const day = 86400.0
	for series, want := range map[string][2]float64{
		`idnode_numeric_time_left_years{layout="default"}`:                  {60, 70}, // 2095-09 less now
		`idnode_numeric_time_left_years{layout="js-safe"}`:                  {60, 70},
		`idnode_tls_expiry_seconds{kind="node"}`:                            {day, 2 * day}, // openssl's -days 2
		`idnode_tls_expiry_seconds{kind="ca"}`:                              {day, 2 * day},
		`idnode_counter_headroom_ratio{database="default",kind="identity"}`: {1, 1},
		`idnode_numeric_sequence_saturations_total{database="default"}`:     {0, 0},
		`idnode_hilo_abandoned_numbers_total{database="default"}`:           {0, 0},
		`idnode_data_dir_free_bytes`:                                        {1, math.Inf(1)},
	} {
		if got := e2etest.MetricValue(t, body, series); got < want[0] || got > want[1] {
			t.Errorf("before: %s = %v, want %v..%v", series, got, want[0], want[1])
		}
	}

	// A leased worker, and a sequence used up: the node mints 100,000 IDs a call, faster than
	// 4,096 a millisecond unless the machine is very busy; so a few calls do it.
	var saturations float64
	for i := 0; i < headroomSaturationCalls && saturations == 0; i++ {
		if _, err := ids.Generate(e2etest.RPCCtx(t), &idnodev1.GenerateRequest{Numeric: true, Count: headroomNumericCount}); err != nil {
			t.Fatalf("Generate numeric: %v", err)
		}
		saturations = e2etest.MetricValue(t, e2etest.Scrape(t, metricsAddr), `idnode_numeric_sequence_saturations_total{database="default"}`)
	}
	if saturations == 0 {
		t.Fatalf("%d calls of %d numeric IDs never used up a millisecond's sequence", headroomSaturationCalls, headroomNumericCount)
	}
	// A counter near the int64 limit, and a HiLo range.
	const big = math.MaxInt64 - 1_000_000
	if _, err := ids.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "Huge", Value: big}); err != nil {
		t.Fatalf("SeedIdentity: %v", err)
	}
	rng, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts"})
	if err != nil {
		t.Fatalf("NextHiLo: %v", err)
	}
	// A range given back once a newer one was granted cannot be taken back: its unused
	// numbers, all but its first, are a gap.
	if _, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "carts", LastMax: rng.GetHigh()}); err != nil {
		t.Fatalf("NextHiLo: %v", err)
	}
	ret, err := ids.ReturnHiLo(e2etest.RPCCtx(t), &idnodev1.ReturnHiLoRequest{Tag: "carts", End: rng.GetHigh(), Last: rng.GetLow(),
		GrantId: rng.GetGrantId(), RequestId: "headroom-return-1"})
	if err != nil || ret.GetReturned() {
		t.Fatalf("ReturnHiLo of a range no longer the newest = %v, %v; want returned false", ret, err)
	}
	abandoned := float64(rng.GetHigh() - rng.GetLow())

	body = e2etest.Scrape(t, metricsAddr)
	for series, want := range map[string][2]float64{
		`idnode_numeric_workers{database="default",state="leased"}`:         {1, 1},
		`idnode_numeric_workers{database="default",state="free"}`:           {0, 0},
		`idnode_numeric_workers{database="default",state="never_used"}`:     {1023, 1023},
		`idnode_counter_values_left{database="default",kind="identity"}`:    {1_000_000, 1_000_000},
		`idnode_counter_headroom_ratio{database="default",kind="identity"}`: {0, 0.01},
		`idnode_hilo_abandoned_numbers_total{database="default"}`:           {abandoned, abandoned},
		// The node's pool reserved numbers above the range: at least the range's High.
		`idnode_counter_values_left{database="default",kind="hilo"}`: {0, float64(math.MaxInt64 - rng.GetHigh())},
	} {
		if got := e2etest.MetricValue(t, body, series); got < want[0] || got > want[1] {
			t.Errorf("after: %s = %v, want %v..%v", series, got, want[0], want[1])
		}
	}

	st, err := admin.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{})
	if err != nil {
		t.Fatal(err)
	}
	h := st.GetHeadroom()
	if len(h.GetDatabases()) != 1 || len(h.GetCertificates()) != 2 {
		t.Fatalf("Status headroom = %v, want the default database and two certificates", h)
	}
	d := h.GetDatabases()[0]
	if got := fmt.Sprintf("%d %d %d %s %d %s", d.GetWorkerBits(), d.GetWorkersLeased(), d.GetWorkersNeverUsed(), d.GetLargestIdentity(), d.GetIdentityValuesLeft(), d.GetLargestHiloTag()); got != "10 1 1023 Huge 1000000 carts" ||
		d.GetSequenceSaturations() < uint64(saturations) || d.GetHiloAbandoned() != uint64(abandoned) {
		t.Errorf("Status headroom of default = %v; want 10 bits, 1 leased, 1023 never used, Huge 1000000 left, carts, at least %v saturations, %v abandoned", d, saturations, abandoned)
	}
}
