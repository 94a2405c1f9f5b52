package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/logbuf"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/prebuilt"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
)

// Every wait in these tests is bounded by one of these.
const (
	serveTimeout = 30 * time.Second
	stopTimeout  = 10 * time.Second
)

// freeAddr returns "127.0.0.1:port" for a port that was free a moment ago.
func freeAddr(t *testing.T) string { t.Helper(); return loopback.FreeAddr(t) }

// missingTool skips a test whose outside program is not installed, except in CI (CI=true),
// where .ci/run installs it: there a missing one is a broken CI machine, and a failure.
func missingTool(t *testing.T, why string) {
	t.Helper()
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s (CI=true: .ci/run installs it, so this is a failure)", why)
	}
	t.Skip(why)
}

// startProc starts a server process and stops it at cleanup (SIGTERM, then SIGKILL).
func startProc(t *testing.T, bin string, args ...string) *exec.Cmd {
	t.Helper()
	return startCmd(t, exec.Command(bin, args...))
}

// startCmd is startProc for a command prepared by the caller; a Dir or SysProcAttr it set is
// kept (a server started as another user needs both its own).
func startCmd(t *testing.T, cmd *exec.Cmd) *exec.Cmd {
	t.Helper()
	var logs logbuf.Buffer
	bin := cmd.Path
	if cmd.Dir == "" {
		cmd.Dir = t.TempDir()
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = sysProcAttr()
	}
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(stopTimeout):
			_ = cmd.Process.Kill()
			<-done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", filepath.Base(bin), logs.String())
		}
	})
	return cmd
}

// waitUntil calls ready until it succeeds or timeout passes.
func waitUntil(t *testing.T, what string, timeout time.Duration, ready func() error) {
	t.Helper()
	poll.Until(t, what, timeout, 100*time.Millisecond, ready)
}

// idbench runs the command in-process with --json and decodes its result.
func idbench(t *testing.T, args ...string) (*result, int, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code := run(context.Background(), append(args, "--json"), &out, &errOut)
	if out.Len() == 0 {
		return nil, code, errOut.String()
	}
	var res result
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatalf("idbench %q: output is not a JSON result: %v\n%s", args, err, out.String())
	}
	return &res, code, errOut.String()
}

// TestE2EIdnode runs idbench for about a second against one real idnode node.
func TestE2EIdnode(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts idnode")
	}
	bin := prebuilt.Idnode.ForTest(t, "../..")
	addr := freeAddr(t)
	startProc(t, bin, "--data-dir", t.TempDir(), "--grpc-addr", addr, "--raft-addr", freeAddr(t), "--log-level", "warn")
	waitUntil(t, "idnode health", serveTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "health", "--addr", addr, "--timeout", "1s").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
		return nil
	})

	res, code, stderr := idbench(t, "--nodes", addr, "--strategy", "identity", "--concurrency", "8", "--duration", "1s", "--progress")
	if res == nil || code != 0 {
		t.Fatalf("identity: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	if res.Ops <= 0 || res.Errors != 0 || res.IDs != res.Ops || res.StoppedBy != "duration" {
		t.Errorf("identity: %d ops, %d IDs, %d errors %v, stopped by %q; want ops > 0, IDs == ops, no errors",
			res.Ops, res.IDs, res.Errors, res.ErrorsByCode, res.StoppedBy)
	}
	if res.LatencyMs.P50 <= 0 || res.LatencyMs.P99 < res.LatencyMs.P50 || res.LatencyMs.Max < res.LatencyMs.P999 {
		t.Errorf("identity latency %+v is not ordered", res.LatencyMs)
	}
	if !strings.Contains(stderr, "ops/s") {
		t.Errorf("no progress line on stderr:\n%s", stderr)
	}

	// The other strategies, briefly, by op count.
	for _, tc := range []struct {
		args   []string
		perOp  int64
		exceed bool // IDs per op vary (HiLo ranges): at least perOp
	}{
		{[]string{"--strategy", "identity-batch", "--count", "10"}, 10, false},
		{[]string{"--strategy", "identity", "--via", "go-client"}, 1, false},
		{[]string{"--strategy", "identity-batch", "--count", "10", "--via", "go-client"}, 10, false},
		{[]string{"--strategy", "identity", "--via", "go-client", "--identity-call", "generate"}, 1, false},
		{[]string{"--strategy", "identity-batch", "--count", "10", "--via", "go-client", "--identity-call", "generate"}, 10, false},
		{[]string{"--strategy", "server-side", "--count", "5", "--via", "go-client"}, 5, false},
		{[]string{"--strategy", "server-side", "--count", "5"}, 5, false},
		{[]string{"--strategy", "guid"}, 1, false},
		{[]string{"--strategy", "hilo-range"}, 32, true},
		{[]string{"--strategy", "hilo-range", "--range-size", "100", "--prefix", "sized"}, 100, false},
		{[]string{"--strategy", "client-hilo"}, 1, false},
		{[]string{"--strategy", "claim", "--count", "10", "--prefix", "e2e"}, 10, false},
		{[]string{"--strategy", "claim", "--count", "3", "--claim-ids", "numbers", "--prefix", "e2e"}, 3, false},
	} {
		args := append([]string{"--nodes", addr, "--concurrency", "4", "--conns", "2", "--ops", "40", "--progress=false"}, tc.args...)
		res, code, stderr := idbench(t, args...)
		if res == nil || code != 0 {
			t.Errorf("%q: exit %d, stderr:\n%s", tc.args, code, stderr)
			continue
		}
		if res.Ops != 40 || res.Errors != 0 || res.StoppedBy != "ops" {
			t.Errorf("%q: %d ops, %d errors %v, stopped by %q; want 40 ops, no errors, stopped by ops", tc.args, res.Ops, res.Errors, res.ErrorsByCode, res.StoppedBy)
		}
		if (!tc.exceed && res.IDs != 40*tc.perOp) || (tc.exceed && res.IDs < 40*tc.perOp) {
			t.Errorf("%q: %d IDs from %d ops, want %d per op", tc.args, res.IDs, res.Ops, tc.perOp)
		}
		if tc.args[1] == stratClientHiLo && (res.Unique == nil || res.Unique.Checked != 40 || res.Unique.Duplicates != 0) {
			t.Errorf("%q: uniqueness check %+v, want 40 IDs checked, no duplicates", tc.args, res.Unique)
		}
	}

	// idbench generator: one generator's own loop, its IDs checked for duplicates after it.
	var genOut, genErr bytes.Buffer
	if code := run(context.Background(), []string{"generator", "--nodes", addr, "--duration", "200ms", "--prefix", "gen"}, &genOut, &genErr); code != 0 {
		t.Fatalf("generator: exit %d, stderr:\n%s", code, genErr.String())
	}
	var gen generatorResult
	if err := json.Unmarshal(genOut.Bytes(), &gen); err != nil {
		t.Fatalf("generator: output is not its JSON result: %v\n%s", err, genOut.String())
	}
	if gen.Kind != "generator" || gen.IDs <= 0 || gen.IDsPerSec <= 0 || gen.Fetches <= 0 || gen.Checked != generatorChecked || gen.Duplicates != 0 {
		t.Errorf("generator: %+v; want IDs and fetches, %d checked, no duplicates", gen, generatorChecked)
	}

	// --names 40 --ops 40 creates 40 counters, each taken once, by either route.
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	for _, via := range []string{viaRoundRobin, viaGoClient} {
		prefix := "names-" + via
		res, code, stderr := idbench(t, "--nodes", addr, "--strategy", "identity", "--via", via, "--names", "40", "--ops", "40",
			"--concurrency", "4", "--prefix", prefix, "--progress=false")
		if res == nil || code != 0 || res.Errors != 0 {
			t.Fatalf("--names 40 via %s: exit %d, result %+v, stderr:\n%s", via, code, res, stderr)
		}
		ctx, cancel := context.WithTimeout(context.Background(), serveTimeout)
		list, err := idnodev1.NewIdServiceClient(cc).ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Prefix: prefix + "-"})
		cancel()
		if err != nil {
			t.Fatal(err)
		}
		if got := list.GetIdentities(); len(got) != 40 || slices.ContainsFunc(got, func(id *idnodev1.Identity) bool { return id.GetValue() != 1 }) {
			t.Errorf("--names 40 via %s left %d counters %v, want 40 at 1", via, len(got), got)
		}
	}
}

// TestE2EClaim checks what the claim strategy leaves behind — the IDs it names, claimed — and
// that a second run on the same prefix finds them taken and counts the refusals as errors.
func TestE2EClaim(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts idnode")
	}
	bin := prebuilt.Idnode.ForTest(t, "../..")
	addr := freeAddr(t)
	startProc(t, bin, "--data-dir", t.TempDir(), "--grpc-addr", addr, "--raft-addr", freeAddr(t), "--log-level", "warn")
	waitUntil(t, "idnode health", serveTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), 3*time.Second)
		defer cancel()
		out, err := exec.CommandContext(ctx, bin, "health", "--addr", addr, "--timeout", "1s").CombinedOutput()
		if err != nil {
			return fmt.Errorf("%v: %s", err, bytes.TrimSpace(out))
		}
		return nil
	})

	// One caller, so which IDs the run claims is known: seq 0 to 59.
	args := []string{"--nodes", addr, "--strategy", "claim", "--count", "5", "--concurrency", "1", "--ops", "12", "--progress=false", "--prefix", "twice"}
	res, code, stderr := idbench(t, args...)
	if res == nil || code != 0 || res.Ops != 12 || res.IDs != 60 || res.Errors != 0 || res.ClaimIDs != claimNames {
		t.Fatalf("claim: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	cfg, err := parseConfig(args, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	cc, err := grpc.NewClient("passthrough:///"+addr, grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	ids := idnodev1.NewIdServiceClient(cc)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	first, last, next := claimID(cfg, 0, 0), claimID(cfg, 0, 59), claimID(cfg, 0, 60)
	got, err := ids.GetClaims(ctx, &idnodev1.GetClaimsRequest{Ids: []string{first, last, next}})
	if err != nil {
		t.Fatal(err)
	}
	var claimed []string
	for _, c := range got.GetClaims() {
		claimed = append(claimed, c.GetId())
	}
	if want := []string{first, last}; !slices.Equal(claimed, want) {
		t.Errorf("GetClaims(%q, %q, %q) = %q, want %q", first, last, next, claimed, want)
	}
	page, err := ids.GetClaims(ctx, &idnodev1.GetClaimsRequest{Prefix: "twice/", PageSize: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.GetClaims()) != 60 {
		t.Errorf("%d claims under twice/, want the 60 the run reported", len(page.GetClaims()))
	}

	// Again: every call is refused (ALREADY_EXISTS), counted as an error, and the run says so.
	res, code, stderr = idbench(t, args...)
	if res == nil || code != 1 || res.Ops != 0 || res.Errors == 0 || res.ErrorsByCode["AlreadyExists"] != res.Errors {
		t.Fatalf("claim again: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
}

// TestE2EEtcd runs the etcd counter and Puts against a one-member etcd, when etcd is
// installed (bench/compare.sh installs it).
func TestE2EEtcd(t *testing.T) {
	if testing.Short() {
		t.Skip("starts etcd")
	}
	bin, err := exec.LookPath("etcd")
	if err != nil {
		missingTool(t, "etcd is not installed (apt-get install etcd-server)")
	}
	client, peer := "http://"+freeAddr(t), "http://"+freeAddr(t)
	startProc(t, bin, "--name", "t", "--data-dir", filepath.Join(t.TempDir(), "etcd"),
		"--listen-client-urls", client, "--advertise-client-urls", client,
		"--listen-peer-urls", peer, "--initial-advertise-peer-urls", peer, "--initial-cluster", "t="+peer,
		"--logger", "zap", "--log-outputs", "stderr", "--log-level", "warn")
	waitUntil(t, "etcd", serveTimeout, func() error {
		c, err := clientv3.New(clientv3.Config{Endpoints: []string{client}, DialTimeout: time.Second, Logger: zap.NewNop()})
		if err != nil {
			return err
		}
		defer c.Close()
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		_, err = c.Put(ctx, "idbench-test/ready", "1")
		return err
	})

	res, code, stderr := idbench(t, "--target", "etcd", "--endpoints", client, "--concurrency", "8", "--duration", "1s", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 {
		t.Fatalf("etcd CAS: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	c := res.CAS
	if c == nil || !c.Verified || res.Ops <= 0 || res.Errors != 0 || c.Successes != res.Ops || c.CounterStart != 0 || c.CounterEnd != res.Ops {
		t.Fatalf("etcd CAS: %d ops, %d errors, check %+v; want a verified counter 0→ops", res.Ops, res.Errors, c)
	}
	if c.Attempts != c.Successes+c.Conflicts {
		t.Errorf("etcd CAS: %d attempts != %d successes + %d conflicts", c.Attempts, c.Successes, c.Conflicts)
	}
	// Again on the same key: the check counts from where the counter stood.
	first := c.CounterEnd
	res, code, stderr = idbench(t, "--target", "etcd", "--endpoints", client, "--concurrency", "4", "--ops", "30", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 || res.CAS == nil || !res.CAS.Verified || res.CAS.CounterStart != first || res.CAS.CounterEnd != first+30 {
		t.Fatalf("etcd CAS again: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}

	res, code, stderr = idbench(t, "--strategy", "etcd-put", "--endpoints", client, "--concurrency", "8", "--ops", "200", "--progress=false")
	if res == nil || code != 0 || res.Ops != 200 || res.Errors != 0 || res.CAS != nil {
		t.Fatalf("etcd put: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
}
