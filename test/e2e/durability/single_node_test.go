package durability

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"
	"google.golang.org/grpc/codes"
	reflectionpb "google.golang.org/grpc/reflection/grpc_reflection_v1"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

func TestSingleNodeTour(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)

	// GUID: a UUIDv7 in canonical lower-case form.
	g := e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: ""})
	u, err := uuid.Parse(g)
	if err != nil {
		t.Fatalf(`Generate("") = %q, not a UUID: %v`, g, err)
	}
	if u.Version() != 7 || u.String() != g {
		t.Fatalf(`Generate("") = %q: version %d, canonical %q; want a canonical UUIDv7`, g, u.Version(), u.String())
	}

	e2etest.ExpectGenerate(t, c, "users/", "users/0000000000000000001-A")
	e2etest.ExpectGenerate(t, c, "users|", "users/1")
	e2etest.ExpectGenerate(t, c, "users|", "users/2")
	e2etest.ExpectGenerate(t, c, "Users|", "Users/3")

	ni, err := c.NextIdentity(e2etest.RPCCtx(t), &idnodev1.NextIdentityRequest{Name: "invoices", Count: 3})
	if err != nil || ni.GetFirst() != 1 || ni.GetLast() != 3 {
		t.Fatalf("NextIdentity(invoices, 3) = %v, %v; want first 1, last 3", ni, err)
	}
	seed := func(value int64, force bool, want int64) {
		t.Helper()
		r, err := c.SeedIdentity(e2etest.RPCCtx(t), &idnodev1.SeedIdentityRequest{Name: "invoices", Value: value, Force: force})
		if err != nil || r.GetValue() != want {
			t.Fatalf("SeedIdentity(invoices, %d, force=%v) = %v, %v; want %d", value, force, r, err, want)
		}
	}
	seed(654, false, 654)
	seed(100, false, 654)
	e2etest.ExpectGenerate(t, c, "invoices|", "invoices/655")
	seed(10, true, 10)

	hl, err := c.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil {
		t.Fatalf("NextHiLo(orders): %v", err)
	}
	if hl.GetPrefix() != "orders/" || hl.GetLow() != 1 || hl.GetHigh() != 32 || hl.GetServerTag() != "A" {
		t.Fatalf("NextHiLo(orders) = %v; want prefix orders/, low 1, high 32, server_tag A", hl)
	}

	g4 := e2etest.Generate(t, c, &idnodev1.GenerateRequest{GuidVersion: idnodev1.GuidVersion_GUID_VERSION_V4})
	if u, err := uuid.Parse(g4); err != nil || u.Version() != 4 || u.String() != g4 {
		t.Fatalf("Generate(\"\", V4) = %q (%v); want a canonical version-4 UUID", g4, err)
	}

	// Server reflection, so grpcurl works with no proto files at hand.
	services := listServices(t, p.GRPCAddr)
	for _, want := range []string{"idnode.v1.IdService", "idnode.v1.ClusterService"} {
		if !slices.Contains(services, want) {
			t.Errorf("reflection lists %q, missing %s", services, want)
		}
	}
}

// listServices asks the server reflection service for every service name.
func listServices(t *testing.T, addr string) []string {
	t.Helper()
	ctx := e2etest.RPCCtx(t)
	stream, err := reflectionpb.NewServerReflectionClient(e2etest.DialConn(t, addr)).ServerReflectionInfo(ctx)
	if err != nil {
		t.Fatalf("reflection: %v", err)
	}
	if err := stream.Send(&reflectionpb.ServerReflectionRequest{
		MessageRequest: &reflectionpb.ServerReflectionRequest_ListServices{ListServices: "*"},
	}); err != nil {
		t.Fatalf("reflection send: %v", err)
	}
	resp, err := stream.Recv()
	if err != nil {
		t.Fatalf("reflection recv: %v", err)
	}
	_ = stream.CloseSend()
	var names []string
	for _, s := range resp.GetListServicesResponse().GetService() {
		names = append(names, s.GetName())
	}
	if len(names) == 0 {
		t.Fatalf("reflection answered %v, no services", resp)
	}
	return names
}

func TestBadInputIsRejectedAndChangesNothing(t *testing.T) {
	t.Parallel()
	_, c := e2etest.StartSingle(t)
	long := "users/" + strings.Repeat("x", 3000-len("users/"))
	const overMax = 100_001 // default --max-count is 100,000

	gen := func(id string, count int64) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := c.Generate(ctx, &idnodev1.GenerateRequest{Id: id, Count: count})
			return err
		}
	}
	next := func(name string, count int64) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := c.NextIdentity(ctx, &idnodev1.NextIdentityRequest{Name: name, Count: count})
			return err
		}
	}
	seed := func(name string, value int64) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := c.SeedIdentity(ctx, &idnodev1.SeedIdentityRequest{Name: name, Value: value})
			return err
		}
	}
	hilo := func(tag, sep string) func(context.Context) error {
		return func(ctx context.Context) error {
			_, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag, Separator: sep})
			return err
		}
	}
	cases := []struct {
		name string
		call func(context.Context) error
		want []string // each must appear in the message (case-insensitive)
	}{
		{"backslash", gen(`users\1`, 0), []string{"backslash", `users\\1`}},
		{"backslash in identity", gen(`us\ers|`, 0), []string{"backslash"}},
		{"control char", gen("users/a\x01b", 0), []string{"control", `\x01`}},
		{"control char in server-side prefix", gen("us\ters/", 0), []string{"control"}},
		{"3000-byte id", gen(long, 0), []string{"2025", "3000 bytes"}},
		{"3000-byte identity", gen(long+"|", 0), []string{"longer than"}},
		{"Generate count < 1", gen("users|", -1), []string{"count", "-1"}},
		{"Generate server-side count < 1", gen("users/", -5), []string{"count", "-5"}},
		{"NextIdentity count < 1", next("users", -1), []string{"count", "-1"}},
		{"Generate count over max", gen("users|", overMax), []string{"count", "100000"}},
		{"Generate server-side count over max", gen("users/", overMax), []string{"count", "100000"}},
		{"NextIdentity count over max", next("users", overMax), []string{"count", "100000"}},
		{"Generate empty identity name", gen("|", 0), []string{"empty"}},
		{"Generate empty server-side prefix", gen("/", 0), []string{"empty"}},
		{"NextIdentity empty name", next("", 0), []string{"empty"}},
		{"SeedIdentity empty name", seed("", 5), []string{"empty"}},
		{"SeedIdentity negative", seed("users", -1), []string{"negative", "-1"}},
		{"semantic id with count 2", gen("users/ayende", 2), []string{"count", "semantic"}},
		{"NextHiLo empty tag", hilo("", ""), []string{"empty"}},
		{"NextHiLo pipe separator", hilo("orders", "|"), []string{"separator", "|"}},
		{"NextHiLo two-char separator", hilo("orders", "--"), []string{"separator", "--"}},
	}
	for _, tc := range cases {
		err := tc.call(e2etest.RPCCtx(t))
		st, _ := status.FromError(err)
		if err == nil || st.Code() != codes.InvalidArgument {
			t.Errorf("%s: got %v, want InvalidArgument", tc.name, err)
			continue
		}
		msg := st.Message()
		if msg == "" {
			t.Errorf("%s: InvalidArgument with an empty message", tc.name)
		}
		for _, w := range tc.want {
			if !strings.Contains(strings.ToLower(msg), strings.ToLower(w)) {
				t.Errorf("%s: message %q does not mention %q", tc.name, msg, w)
			}
		}
		if len(msg) > 400 {
			t.Errorf("%s: message is %d bytes; a long value should be shortened: %q", tc.name, len(msg), msg)
		}
	}

	// Nothing changed: every counter starts where a fresh node starts.
	e2etest.ExpectGenerate(t, c, "users|", "users/1")
	e2etest.ExpectGenerate(t, c, "users/", "users/0000000000000000001-A")
	hl, err := c.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil || hl.GetLow() != 1 {
		t.Errorf("NextHiLo(orders) after rejected calls = %v, %v; want low 1", hl, err)
	}
	list, err := c.ListIdentities(e2etest.RPCCtx(t), &idnodev1.ListIdentitiesRequest{})
	if err != nil {
		t.Fatalf("ListIdentities: %v", err)
	}
	var got []string
	for _, id := range list.GetIdentities() {
		got = append(got, fmt.Sprintf("%s=%d", id.GetName(), id.GetValue()))
	}
	if want := []string{"users=1"}; !slices.Equal(got, want) || list.GetNextPageToken() != "" {
		t.Errorf("ListIdentities = %q (next page %q); want %q", got, list.GetNextPageToken(), want)
	}
}

// promises records every acknowledged answer of one load run, and counts the calls that got
// no answer (they may or may not have used a number).
type promises struct {
	mu               sync.Mutex
	identities       []int64    // users| values
	etags            []int64    // users/ etags
	ranges           [][2]int64 // HiLo [low, high]
	acks             int
	failedIdentities int // identity calls without an answer, this round
	enough           chan struct{}
	enoughAt         int
}

func (p *promises) ack(f func()) {
	p.mu.Lock()
	defer p.mu.Unlock()
	f()
	p.acks++
	if p.acks == p.enoughAt {
		close(p.enough)
	}
}

// parseEtag reads the number out of "users/0000000000000000042-A".
func parseEtag(id string) (int64, error) {
	num, ok := strings.CutPrefix(id, "users/")
	if !ok || !strings.HasSuffix(num, "-A") || len(num) != 19+2 {
		return 0, fmt.Errorf("server-side ID %q is not users/<19 digits>-A", id)
	}
	return strconv.ParseInt(num[:19], 10, 64)
}

func parseIdentity(id string) (int64, error) {
	num, ok := strings.CutPrefix(id, "users/")
	if !ok {
		return 0, fmt.Errorf("identity %q does not start with users/", id)
	}
	return strconv.ParseInt(num, 10, 64)
}

func TestKill9KeepsEveryPromise(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	const (
		rounds       = 3
		workers      = 6
		acksPerRound = 300 // kill once this many answers of the round are in
		maxCalls     = 100_000
	)
	var all promises // every acknowledged value over all rounds, probes included
	for round := 1; round <= rounds; round++ {
		rec := &promises{enough: make(chan struct{}), enoughAt: acksPerRound}
		// killed is set just before SIGKILL: errors after it may be the kill's doing. dead is
		// set once the process is gone: calls started after it never reached it.
		var killed, dead, stop atomic.Bool
		var wg sync.WaitGroup
		errs := make(chan error, workers)
		for w := range workers {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := 0; i < maxCalls && !stop.Load(); i++ {
					alive := !dead.Load()
					isIdentity, err := loadCall(c, rec, w, i)
					if err != nil && isIdentity && alive {
						rec.mu.Lock()
						rec.failedIdentities++
						rec.mu.Unlock()
					}
					if err != nil && !killed.Load() {
						errs <- fmt.Errorf("worker %d call %d before the kill: %w", w, i, err)
						return
					}
					if err != nil {
						return // the kill's doing; one unanswered call per worker at most
					}
				}
			}()
		}
		select {
		case <-rec.enough:
		case err := <-errs:
			stop.Store(true)
			wg.Wait()
			t.Fatalf("round %d: %v", round, err)
		case <-time.After(30 * time.Second):
			stop.Store(true)
			wg.Wait()
			t.Fatalf("round %d: not %d answers within 30s", round, acksPerRound)
		}
		killed.Store(true) // before the signal: any error seen after this may be the kill's
		p.Kill9()
		dead.Store(true)
		stop.Store(true)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("round %d: %v", round, err)
		}

		rec.mu.Lock()
		all.identities = append(all.identities, rec.identities...)
		all.etags = append(all.etags, rec.etags...)
		all.ranges = append(all.ranges, rec.ranges...)
		inFlight := rec.failedIdentities
		t.Logf("round %d: killed after %d answers (%d identities, %d etags, %d ranges); %d identity calls unanswered",
			round, rec.acks, len(rec.identities), len(rec.etags), len(rec.ranges), inFlight)
		rec.mu.Unlock()

		p.Restart()
		p.WaitServing(e2etest.ServeTimeout)

		maxIdentity := slices.Max(all.identities)
		id, err := parseIdentity(e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users|"}))
		if err != nil {
			t.Fatal(err)
		}
		if id <= maxIdentity {
			t.Errorf("round %d: next identity %d after restart, but %d was already acknowledged", round, id, maxIdentity)
		}
		if gap := id - maxIdentity - 1; gap > int64(inFlight) {
			t.Errorf("round %d: next identity %d skips %d values above the highest acknowledged %d; only %d calls were in flight",
				round, id, gap, maxIdentity, inFlight)
		}
		all.identities = append(all.identities, id)

		maxEtag := slices.Max(all.etags)
		e, err := parseEtag(e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users/"}))
		if err != nil {
			t.Fatal(err)
		}
		if e <= maxEtag {
			t.Errorf("round %d: next etag %d after restart, but %d was already acknowledged", round, e, maxEtag)
		}
		all.etags = append(all.etags, e)

		var maxHigh int64
		for _, r := range all.ranges {
			maxHigh = max(maxHigh, r[1])
		}
		hl, err := c.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
		if err != nil {
			t.Fatalf("round %d: NextHiLo after restart: %v", round, err)
		}
		if hl.GetLow() <= maxHigh || hl.GetHigh() < hl.GetLow() {
			t.Errorf("round %d: HiLo range [%d, %d] after restart, but ranges up to %d were already acknowledged",
				round, hl.GetLow(), hl.GetHigh(), maxHigh)
		}
		all.ranges = append(all.ranges, [2]int64{hl.GetLow(), hl.GetHigh()})
		if t.Failed() {
			return
		}
	}

	// No value was ever handed out twice, across every crash.
	for what, vals := range map[string][]int64{"identity": all.identities, "etag": all.etags} {
		seen := make(map[int64]bool, len(vals))
		for _, v := range vals {
			if seen[v] {
				t.Errorf("%s %d was acknowledged twice", what, v)
			}
			seen[v] = true
		}
	}
	slices.SortFunc(all.ranges, func(a, b [2]int64) int { return cmp.Compare(a[0], b[0]) })
	for i := 1; i < len(all.ranges); i++ {
		if all.ranges[i][0] <= all.ranges[i-1][1] {
			t.Errorf("HiLo ranges %v and %v overlap", all.ranges[i-1], all.ranges[i])
		}
	}
}

// loadCall makes call i of worker w: mostly identities and server-side IDs, a HiLo range now
// and then. An answer is recorded; an error is returned. isIdentity says whether the call was
// for an identity, the one kind whose unanswered calls bound the gap after a crash.
func loadCall(c idnodev1.IdServiceClient, rec *promises, w, i int) (isIdentity bool, err error) {
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	defer cancel()
	switch {
	case w == 0 && i%8 == 0:
		hl, err := c.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: "orders"})
		if err != nil {
			return false, err
		}
		if hl.GetLow() < 1 || hl.GetHigh() < hl.GetLow() {
			return false, fmt.Errorf("NextHiLo gave an empty range %v", hl)
		}
		rec.ack(func() { rec.ranges = append(rec.ranges, [2]int64{hl.GetLow(), hl.GetHigh()}) })
	case (w+i)%2 == 0:
		resp, err := c.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"})
		if err != nil {
			return true, err
		}
		v, err := parseIdentity(one(resp))
		if err != nil {
			return true, err
		}
		rec.ack(func() { rec.identities = append(rec.identities, v) })
		return true, nil
	default:
		resp, err := c.Generate(ctx, &idnodev1.GenerateRequest{Id: "users/"})
		if err != nil {
			return false, err
		}
		v, err := parseEtag(one(resp))
		if err != nil {
			return false, err
		}
		rec.ack(func() { rec.etags = append(rec.etags, v) })
	}
	return false, nil
}

func one(resp *idnodev1.GenerateResponse) string {
	if len(resp.GetIds()) != 1 {
		return fmt.Sprintf("%q", resp.GetIds())
	}
	return resp.GetIds()[0]
}

func TestCleanShutdownAndBadFlags(t *testing.T) {
	t.Parallel()
	t.Run("SIGTERM", func(t *testing.T) {
		t.Parallel()
		p, c := e2etest.StartSingle(t)
		e2etest.ExpectGenerate(t, c, "users|", "users/1")
		e2etest.ExpectGenerate(t, c, "users|", "users/2")
		e1, err := parseEtag(e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users/"}))
		if err != nil {
			t.Fatal(err)
		}
		hl, err := c.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
		if err != nil || hl.GetHigh() != 32 {
			t.Fatalf("NextHiLo(orders) = %v, %v; want high 32", hl, err)
		}

		took := p.Stop() // fails unless the exit is 0 within stopTimeout (10 s)
		t.Logf("SIGTERM: clean exit after %v", took)
		p.Restart()
		p.WaitServing(e2etest.ServeTimeout)

		e2etest.ExpectGenerate(t, c, "users|", "users/3")
		e2, err := parseEtag(e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users/"}))
		if err != nil {
			t.Fatal(err)
		}
		if e2 <= e1 {
			t.Errorf("etag %d after a clean restart, %d before it", e2, e1)
		}
		hl, err = c.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
		if err != nil || hl.GetLow() != 33 {
			t.Errorf("NextHiLo(orders) after a clean restart = %v, %v; want low 33", hl, err)
		}
		list, err := c.ListIdentities(e2etest.RPCCtx(t), &idnodev1.ListIdentitiesRequest{})
		if err != nil || len(list.GetIdentities()) != 1 || list.GetIdentities()[0].GetValue() != 3 {
			t.Errorf("ListIdentities after a clean restart = %v, %v; want users=3", list, err)
		}
	})

	t.Run("bad flags", func(t *testing.T) {
		t.Parallel()
		bin := e2etest.BuildIdnode(t)
		notADir := filepath.Join(t.TempDir(), "plain-file")
		if err := os.WriteFile(notADir, []byte("not a directory\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		cases := []struct {
			name    string
			args    []string
			mention string
		}{
			{"lower-case tag", []string{"--tag", "abc"}, "tag"},
			{"pipe separator", []string{"--separator", "|"}, "separator"},
			{"unknown flag", []string{"--bogus"}, "bogus"},
			{"data dir is a file", []string{"--data-dir", notADir}, notADir},
			{"reserved tag", []string{"--tag", "RAFT"}, "tag"},
			{"zero max count", []string{"--max-count", "0"}, "max-count"},
			{"stray argument", []string{"serve"}, "serve"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				t.Parallel()
				ctx, cancel := context.WithTimeout(context.Background(), e2etest.StopTimeout)
				defer cancel()
				// Free addresses, so a flag that wrongly passes cannot collide with anything.
				args := append([]string{"--grpc-addr", e2etest.FreeAddr(t), "--raft-addr", e2etest.FreeAddr(t),
					"--data-dir", filepath.Join(t.TempDir(), "data")}, tc.args...)
				cmd := exec.CommandContext(ctx, bin, args...)
				cmd.Dir = t.TempDir()
				cmd.Env = nodeenv.Clean()
				var stdout, stderr strings.Builder
				cmd.Stdout, cmd.Stderr = &stdout, &stderr
				err := cmd.Run()
				var exit *exec.ExitError
				if !errors.As(err, &exit) || exit.ExitCode() <= 0 {
					t.Fatalf("idnode %q: %v, want a non-zero exit status (stderr %q)", tc.args, err, stderr.String())
				}
				lines := strings.Split(strings.TrimSuffix(stderr.String(), "\n"), "\n")
				if len(lines) != 1 || !strings.HasPrefix(lines[0], "idnode: ") {
					t.Errorf("idnode %q: stderr %q, want exactly one line starting with \"idnode: \"", tc.args, stderr.String())
				}
				if !strings.Contains(stderr.String(), tc.mention) {
					t.Errorf("idnode %q: stderr %q does not mention %q", tc.args, stderr.String(), tc.mention)
				}
				if stdout.Len() != 0 {
					t.Errorf("idnode %q: wrote %q to stdout", tc.args, stdout.String())
				}
			})
		}
	})
}

func TestNoFlagsDefaults(t *testing.T) {
	// Not parallel with anything that could take the default ports: the others use free ports.
	for _, addr := range []string{"127.0.0.1:7070", "127.0.0.1:7100", "127.0.0.1:7080"} { // gRPC, Raft and HTTP defaults
		l, err := net.Listen("tcp", addr)
		if err != nil {
			t.Skipf("default port %s is taken on this machine (%v); cannot test the no-flag defaults", addr, err)
		}
		if err := l.Close(); err != nil {
			t.Fatal(err)
		}
	}
	wd := t.TempDir()
	p := e2etest.StartNode(t, e2etest.NodeOpts{RawArgs: []string{}, Dir: wd, GRPCAddr: "127.0.0.1:7070"})
	p.WaitServing(e2etest.ServeTimeout)
	ids, cl := e2etest.Dial(t, p.GRPCAddr)
	e2etest.ExpectGenerate(t, ids, "users/", "users/0000000000000000001-A")
	// The README's curl one-liner: users/1 over HTTP, from a node started with no flags.
	if code, got := e2etest.HTTPDo(t, "POST", "http://localhost:7080/v1/ids", `{"id":"users|"}`); code != 200 || fmt.Sprint(got["ids"]) != "[users/1]" {
		t.Errorf(`curl -s localhost:7080/v1/ids -H 'Content-Type: application/json' -d '{"id":"users|"}' = %d %v, want {"ids":["users/1"]}`, code, got)
	}
	e2etest.ExpectGenerate(t, ids, "users|", "users/2")
	st, err := cl.Status(e2etest.RPCCtx(t), &idnodev1.StatusRequest{Consistent: true})
	if err != nil || st.GetSelf() != "A" || st.GetLeader() != "A" {
		t.Errorf("Status = %v, %v; want self A leading", st, err)
	}
	for _, rel := range []string{"idnode-data", filepath.Join("idnode-data", "raft"), filepath.Join("idnode-data", "etag")} {
		if _, err := os.Stat(filepath.Join(wd, rel)); err != nil {
			t.Errorf("no ./%s in the working directory: %v", rel, err)
		}
	}
	if fi, err := os.Stat(filepath.Join(wd, "idnode-data")); err == nil && !fi.IsDir() {
		t.Errorf("./idnode-data is not a directory")
	}
	p.Stop()
}
