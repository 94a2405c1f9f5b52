package main

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

func TestParseConfigRefuses(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string // part of the error
	}{
		{"unbounded", []string{}, "refusing an unbounded run"},
		{"unbounded etcd", []string{"--target", "etcd"}, "refusing an unbounded run"},
		{"past the cap", []string{"--duration", "11m"}, "--duration must be between 0 and 10m0s"},
		{"negative duration", []string{"--duration", "-1s"}, "--duration must be between"},
		{"negative ops", []string{"--ops", "-5"}, "--ops must not be negative"},
		{"unknown strategy", []string{"--duration", "1s", "--strategy", "fastest"}, `unknown strategy "fastest" for --target idnode`},
		{"etcd has no guid", []string{"--duration", "1s", "--target", "etcd", "--strategy", "guid"}, `unknown strategy "guid" for --target etcd`},
		{"idnode has no put", []string{"--duration", "1s", "--strategy", "put"}, `unknown strategy "put" for --target idnode`},
		{"unknown target", []string{"--duration", "1s", "--target", "mysql"}, "--target must be idnode, etcd or postgres"},
		{"postgres has no put", []string{"--duration", "1s", "--target", "postgres", "--strategy", "put"}, `unknown strategy "put" for --target postgres`},
		{"conns for postgres", []string{"--duration", "1s", "--target", "postgres", "--conns", "4"}, "--conns does not apply to --target postgres"},
		{"dsn for idnode", []string{"--duration", "1s", "--dsn", "postgres://127.0.0.1:5432/x"}, "--dsn is for --target postgres, not --target idnode"},
		{"nodes for postgres", []string{"--duration", "1s", "--target", "postgres", "--nodes", "127.0.0.1:1"}, "--nodes is for --target idnode, not --target postgres"},
		{"bad dsn", []string{"--duration", "1s", "--target", "postgres", "--dsn", "postgres://127.0.0.1:notaport/x"}, "--dsn: "},
		{"unknown via", []string{"--duration", "1s", "--via", "leader"}, `--via must be round-robin or go-client, got "leader"`},
		{"via on hilo-range", []string{"--duration", "1s", "--strategy", "hilo-range", "--via", "go-client"}, "--via applies to idnode identity, identity-batch, server-side and guid only, not idnode hilo-range"},
		{"via on etcd", []string{"--duration", "1s", "--target", "etcd", "--via", "round-robin"}, "--via applies to idnode"},
		{"identity-call round-robin", []string{"--duration", "1s", "--identity-call", "generate"}, "--identity-call applies to identity and identity-batch --via go-client only"},
		{"identity-call on guid", []string{"--duration", "1s", "--strategy", "guid", "--via", "go-client", "--identity-call", "generate"}, "--identity-call applies to identity and identity-batch --via go-client only"},
		{"unknown identity-call", []string{"--duration", "1s", "--via", "go-client", "--identity-call", "claim"}, `--identity-call must be next-identity or generate, got "claim"`},
		{"etcd-put on idnode", []string{"--duration", "1s", "--target", "idnode", "--strategy", "etcd-put"}, "runs against etcd"},
		{"count on identity", []string{"--duration", "1s", "--count", "5"}, "--count applies to identity-batch, server-side and claim only"},
		{"claim past the server's bound", []string{"--duration", "1s", "--strategy", "claim", "--count", "1001"}, "--count of claim must be between 1 and 1000"},
		{"claim-ids on identity", []string{"--duration", "1s", "--claim-ids", "numbers"}, "--claim-ids applies to the claim strategy only"},
		{"unknown claim-ids", []string{"--duration", "1s", "--strategy", "claim", "--claim-ids", "emails"}, `--claim-ids must be names or numbers, got "emails"`},
		{"claim on etcd", []string{"--duration", "1s", "--target", "etcd", "--strategy", "claim"}, `unknown strategy "claim" for --target etcd`},
		{"range-size on identity", []string{"--duration", "1s", "--range-size", "64"}, "--range-size applies to the hilo-range strategy only"},
		{"range-size on client-hilo", []string{"--duration", "1s", "--strategy", "client-hilo", "--range-size", "64"}, "--range-size applies to the hilo-range strategy only"},
		{"range-size below the policy", []string{"--duration", "1s", "--strategy", "hilo-range", "--range-size", "31"}, "--range-size must be between 32 and 1048576"},
		{"range-size above the policy", []string{"--duration", "1s", "--strategy", "hilo-range", "--range-size", "1048577"}, "--range-size must be between 32 and 1048576"},
		{"negative range-size", []string{"--duration", "1s", "--strategy", "hilo-range", "--range-size", "-32"}, "--range-size must be between"},
		{"count on hilo-range", []string{"--duration", "1s", "--strategy", "hilo-range", "--count", "64"}, "--count applies to identity-batch, server-side and claim only"},
		{"names on claim", []string{"--duration", "1s", "--strategy", "claim", "--names", "10"}, "--names applies to identity, identity-batch and hilo-range only"},
		{"names on etcd", []string{"--duration", "1s", "--target", "etcd", "--names", "10"}, "--names applies to identity, identity-batch and hilo-range only"},
		{"negative names", []string{"--duration", "1s", "--names", "-1"}, "--names must be between 0 and 10000000"},
		{"count too large", []string{"--duration", "1s", "--strategy", "server-side", "--count", "2000000"}, "--count must be between"},
		{"zero callers", []string{"--duration", "1s", "--concurrency", "0"}, "--concurrency must be between"},
		{"zero conns", []string{"--duration", "1s", "--conns", "0"}, "--conns must be between"},
		{"nodes for etcd", []string{"--duration", "1s", "--target", "etcd", "--nodes", "127.0.0.1:1"}, "--nodes is for --target idnode"},
		{"endpoints for idnode", []string{"--duration", "1s", "--endpoints", "127.0.0.1:1"}, "--endpoints is for --target etcd"},
		{"bad address", []string{"--duration", "1s", "--nodes", "localhost"}, `"localhost" is not host:port`},
		{"no address", []string{"--duration", "1s", "--nodes", " , "}, "--nodes: no addresses"},
		{"pipe in prefix", []string{"--duration", "1s", "--prefix", "a|b"}, "--prefix must be non-empty"},
		{"ramp on identity", []string{"--ramp", "1000:2000:1s"}, "--ramp applies to the client-hilo strategy only"},
		{"ramp with duration", []string{"--strategy", "client-hilo", "--ramp", "1000:2000:1s", "--duration", "1s"}, "leave out --duration and --ops"},
		{"ramp without step", []string{"--strategy", "client-hilo", "--ramp", "1000:2000"}, "--ramp must be FROM:TO:STEP"},
		{"ramp downwards", []string{"--strategy", "client-hilo", "--ramp", "2000:1000:1s"}, "want 1 <= FROM <= TO"},
		{"ramp step not a duration", []string{"--strategy", "client-hilo", "--ramp", "1000:2000:2"}, "STEP a duration"},
		{"ramp past the cap", []string{"--strategy", "client-hilo", "--ramp", "1:1000000:1m"}, "more than the 10m0s a run may"},
		{"region without node regions", []string{"--duration", "1s", "--via", "go-client", "--region", "a"}, "--region and --node-regions go together"},
		{"node regions without region", []string{"--duration", "1s", "--via", "go-client", "--node-regions", "127.0.0.1:7070=a"}, "--region and --node-regions go together"},
		{"region round-robin", []string{"--duration", "1s", "--region", "a", "--node-regions", "127.0.0.1:7070=a"}, "apply to runs through the Go client (--via go-client, client-hilo), not idnode identity via round-robin"},
		{"region on hilo-range", []string{"--duration", "1s", "--strategy", "hilo-range", "--region", "a", "--node-regions", "127.0.0.1:7070=a"}, "apply to runs through the Go client"},
		{"node region not a pair", []string{"--duration", "1s", "--via", "go-client", "--region", "a", "--node-regions", "127.0.0.1:7070"}, `--node-regions: "127.0.0.1:7070" is not ADDR=REGION`},
		{"node region empty", []string{"--duration", "1s", "--via", "go-client", "--region", "a", "--node-regions", "127.0.0.1:7070="}, "is not ADDR=REGION"},
		{"node region twice", []string{"--duration", "1s", "--via", "go-client", "--region", "a", "--node-regions", "127.0.0.1:7070=a,127.0.0.1:7070=b"}, "names 127.0.0.1:7070 twice"},
		{"stray argument", []string{"--duration", "1s", "extra"}, `unexpected argument "extra"`},
		{"unknown flag", []string{"--duration", "1s", "--turbo"}, "flag provided but not defined: -turbo"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := parseConfig(tc.args, &bytes.Buffer{})
			if err == nil {
				t.Fatalf("parseConfig(%q) = %+v, want an error containing %q", tc.args, cfg, tc.want)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("parseConfig(%q) error = %q, want it to contain %q", tc.args, err, tc.want)
			}
		})
	}
}

func TestParseConfigAccepts(t *testing.T) {
	cfg, err := parseConfig([]string{"--ops", "100"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.limit() != maxDuration {
		t.Errorf("an --ops run is bounded by %v, want the %v cap", cfg.limit(), maxDuration)
	}
	if cfg.target != targetIdnode || cfg.strategy != stratIdentity || cfg.count != 1 || cfg.nodes[0] != "127.0.0.1:7070" {
		t.Errorf("defaults: %+v", cfg)
	}

	cfg, err = parseConfig([]string{"--duration", "10m", "--strategy", "identity-batch", "--nodes", "127.0.0.1:1, 127.0.0.1:2"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.count != 100 || cfg.idsPerOp() != 100 || len(cfg.nodes) != 2 || cfg.limit() != 10*time.Minute {
		t.Errorf("identity-batch: %+v", cfg)
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "server-side", "--count", "1000"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.idsPerOp() != 1000 || cfg.describe() != "idnode server-side via round-robin count=1000" {
		t.Errorf("server-side: %+v (%s)", cfg, cfg.describe())
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "claim"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.count != 1 || cfg.idsPerOp() != 1 || cfg.claimIDs != claimNames || cfg.describe() != "idnode claim count=1" {
		t.Errorf("claim: %+v (%s)", cfg, cfg.describe())
	}

	cfg, err = parseConfig([]string{"--ops", "1000", "--strategy", "claim", "--count", "1000", "--claim-ids", "numbers"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.idsPerOp() != 1000 || cfg.claimIDs != claimNumbers || cfg.describe() != "idnode claim count=1000 ids=numbers" {
		t.Errorf("claim numbers: %+v (%s)", cfg, cfg.describe())
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "hilo-range"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.rangeSize != 0 || cfg.describe() != "idnode hilo-range" {
		t.Errorf("hilo-range without a size: %+v (%s)", cfg, cfg.describe())
	}
	for _, size := range []int64{32, 1000, 1 << 20} {
		arg := strconv.FormatInt(size, 10)
		cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "hilo-range", "--range-size", arg}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		if cfg.rangeSize != size || cfg.describe() != "idnode hilo-range size="+arg {
			t.Errorf("hilo-range --range-size %d: %+v (%s)", size, cfg, cfg.describe())
		}
	}

	cfg, err = parseConfig([]string{"--ops", "1000", "--strategy", "hilo-range", "--names", "1000"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.names != 1000 || cfg.describe() != "idnode hilo-range names=1000" {
		t.Errorf("hilo-range --names 1000: %+v (%s)", cfg, cfg.describe())
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "etcd-put", "--endpoints", "http://127.0.0.1:2379"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.target != targetEtcd || cfg.strategy != stratPut || cfg.endpoints[0] != "http://127.0.0.1:2379" {
		t.Errorf("etcd-put: %+v", cfg)
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--target", "etcd"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.strategy != stratIdentity || cfg.describe() != "etcd identity (CAS counter)" || cfg.endpoints[0] != "127.0.0.1:2379" || cfg.via != "" {
		t.Errorf("etcd identity: %+v", cfg)
	}

	cfg, err = parseConfig([]string{"--duration", "1s", "--target", "postgres", "--dsn", "host=127.0.0.1 port=5433 user=bench password=secret dbname=ids"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.strategy != stratIdentity || cfg.describe() != "postgres identity (sequence nextval)" || !slices.Equal(cfg.endpoints, []string{"127.0.0.1:5433"}) || cfg.via != "" || cfg.conns != 16 {
		t.Errorf("postgres: %+v (%s); want the server's address, without the password, as its endpoint, and a connection per caller", cfg, cfg.describe())
	}

	cfg, err = parseConfig([]string{"--duration", "1s"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.via != viaRoundRobin || cfg.describe() != "idnode identity via round-robin" {
		t.Errorf("idnode identity by default: %+v (%s), want via round-robin", cfg, cfg.describe())
	}
	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "identity-batch", "--via", "go-client"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.via != viaGoClient || cfg.identityCall != identityCallNext || cfg.describe() != "idnode identity-batch via go-client count=100" {
		t.Errorf("identity-batch via go-client: %+v (%s)", cfg, cfg.describe())
	}
	cfg, err = parseConfig([]string{"--duration", "1s", "--via", "go-client", "--identity-call", "generate"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.identityCall != identityCallGenerate || cfg.describe() != "idnode identity via go-client call=generate" {
		t.Errorf("identity via go-client, --identity-call generate: %+v (%s)", cfg, cfg.describe())
	}
	cfg, err = parseConfig([]string{"--duration", "1s", "--strategy", "server-side", "--via", "go-client", "--nodes", "127.0.0.1:1,127.0.0.1:2",
		"--region", "b", "--node-regions", "127.0.0.1:1=a, 127.0.0.1:2=b"}, &bytes.Buffer{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]string{"127.0.0.1:1": "a", "127.0.0.1:2": "b"}; cfg.region != "b" || !maps.Equal(cfg.nodeRegions, want) ||
		cfg.describe() != "idnode server-side via go-client count=1 region=b" {
		t.Errorf("server-side via go-client in region b: %+v (%s)", cfg, cfg.describe())
	}
}

// The run's Go clients get --region: one that names a node not among --nodes fails to dial,
// before any load, with the client's reason.
func TestRunGivesTheGoClientItsRegion(t *testing.T) {
	var out, errOut bytes.Buffer
	addr := freeAddr(t)
	code := run(context.Background(), []string{"--nodes", addr, "--via", "go-client", "--region", "a", "--node-regions", "127.0.0.1:1=a",
		"--duration", "1m", "--progress=false"}, &out, &errOut)
	if code != 1 || !strings.Contains(errOut.String(), "127.0.0.1:1 is not one of the client's nodes") {
		t.Errorf("exit %d, stderr %q; want 1 and the client's refusal of --node-regions", code, errOut.String())
	}
}

func TestRunExitCodes(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := run(context.Background(), []string{"--strategy", "identity"}, &out, &errOut); code != 2 {
		t.Errorf("unbounded run: exit %d, want 2", code)
	}
	if !strings.Contains(errOut.String(), "idbench: refusing an unbounded run") {
		t.Errorf("unbounded run: stderr %q", errOut.String())
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"-h"}, &out, &errOut); code != 0 {
		t.Errorf("-h: exit %d, want 0", code)
	}
	for _, want := range []string{"Usage: idbench", "identity-batch", "-duration", "Txn(If ModRevision==rev)"} {
		if !strings.Contains(errOut.String(), want) {
			t.Errorf("-h output lacks %q:\n%s", want, errOut.String())
		}
	}
	errOut.Reset()
	if code := run(context.Background(), []string{"table"}, &out, &errOut); code != 2 {
		t.Errorf("table without files: exit %d, want 2", code)
	}
	for _, args := range [][]string{
		{"generator", "--duration", "2m"},
		{"generator", "--duration", "0s"},
		{"generator", "--nodes", "nowhere"},
	} {
		errOut.Reset()
		if code := run(context.Background(), args, &out, &errOut); code != 2 || !strings.HasPrefix(errOut.String(), "idbench generator: ") {
			t.Errorf("%q: exit %d, stderr %q; want 2 and the reason", args, code, errOut.String())
		}
	}
}

// Nothing listens on the address: the run fails within --connect-timeout, before any load.
func TestRunConnectFailureIsBounded(t *testing.T) {
	var out, errOut bytes.Buffer
	addr := freeAddr(t)
	begin := time.Now()
	code := run(context.Background(), []string{"--nodes", addr, "--duration", "1m", "--connect-timeout", "300ms", "--progress=false"}, &out, &errOut)
	if code != 1 {
		t.Errorf("exit %d, want 1 (stderr %q)", code, errOut.String())
	}
	if took := time.Since(begin); took > 5*time.Second {
		t.Errorf("took %v to give up, want about the 300ms connect timeout", took)
	}
	if !strings.Contains(errOut.String(), "connect to "+addr) {
		t.Errorf("stderr %q does not name the address", errOut.String())
	}
}

// The claim strategy's IDs: unique over the callers and calls of a run, in the form its
// --claim-ids names, and the same in every run.
func TestClaimIDs(t *testing.T) {
	for _, form := range []string{claimNames, claimNumbers} {
		cfg, err := parseConfig([]string{"--ops", "1", "--strategy", "claim", "--claim-ids", form, "--concurrency", "7", "--prefix", "users"}, &bytes.Buffer{})
		if err != nil {
			t.Fatal(err)
		}
		seen := map[string]string{}
		for caller := range cfg.concurrency {
			for seq := range int64(300) {
				id := claimID(cfg, caller, seq)
				at := fmt.Sprintf("caller %d seq %d", caller, seq)
				if prev, dup := seen[id]; dup {
					t.Fatalf("%s: %s and %s both claim %q", form, prev, at, id)
				}
				seen[id] = at
				if again := claimID(cfg, caller, seq); again != id {
					t.Fatalf("%s: %s is %q, then %q", form, at, id, again)
				}
				rest, ok := strings.CutPrefix(id, "users/")
				if !ok {
					t.Fatalf("%s: %s claims %q, not under users/", form, at, id)
				}
				switch form {
				case claimNames:
					if want := fmt.Sprintf("%d-%d", caller, seq); rest != want {
						t.Fatalf("names: %s claims %q, want users/%s", at, id, want)
					}
				case claimNumbers:
					n, err := strconv.ParseInt(rest, 10, 64)
					if err != nil || n < claimNumberBase || strconv.FormatInt(n, 10) != rest {
						t.Fatalf("numbers: %s claims %q, want users/<n> with n ≥ %d in canonical decimal", at, id, int64(claimNumberBase))
					}
				}
			}
		}
	}
}

// TestNameCycleTakesEachNameInTurn: with --names n the first n calls create n distinct
// counters, and later calls go round them again.
func TestNameCycleTakesEachNameInTurn(t *testing.T) {
	c := &nameCycle{prefix: "growth", n: 3}
	var got []string
	for range 5 {
		got = append(got, c.name())
	}
	if want := "growth-0 growth-1 growth-2 growth-0 growth-1"; strings.Join(got, " ") != want {
		t.Errorf("names = %q, want %q", strings.Join(got, " "), want)
	}
	if name := (&nameCycle{prefix: "bench"}).name(); name != "bench" {
		t.Errorf("without --names the name is %q, want the prefix", name)
	}
}
