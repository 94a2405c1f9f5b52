package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/cluster"
)

func mustParse(t *testing.T, args []string, env map[string]string) *config {
	t.Helper()
	c, err := parseConfig(args, environ(env), io.Discard)
	if err != nil {
		t.Fatalf("parseConfig(%q, %v): %v", args, env, err)
	}
	return c
}

func TestDefaultsAreASingleNodeCluster(t *testing.T) {
	c := mustParse(t, nil, nil)
	if err := c.placeSelf(); err != nil {
		t.Fatal(err)
	}
	if c.tag != "A" || c.dataDir != "./idnode-data" || c.grpcAddr != "127.0.0.1:7070" || c.grpcAdvertise != "127.0.0.1:7070" ||
		c.raftAdvertise != c.raftAddr || len(c.peers) != 0 || c.separator != '/' {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestEnvironmentFillsWhatFlagsDoNotSay(t *testing.T) {
	c := mustParse(t, []string{"--tag", "B"}, map[string]string{
		"IDNODE_TAG": "C", "IDNODE_DATA_DIR": "/var/lib/idnode", "IDNODE_SEPARATOR": "-",
	})
	if c.tag != "B" || c.dataDir != "/var/lib/idnode" || c.separator != '-' || !c.tagSet {
		t.Fatalf("flag must win over env, env must fill the rest: %+v", c)
	}
}

func TestPeersGiveTheAdvertisedRaftAddress(t *testing.T) {
	peers := "A=raft-a:7000,B=raft-b:7000,C=raft-c:7000"
	c := mustParse(t, []string{"--tag", "B", "--peers", peers, "--raft-addr", "0.0.0.0:7000"}, nil)
	if err := c.placeSelf(); err != nil {
		t.Fatal(err)
	}
	want := []cluster.Peer{{ID: "A", Address: "raft-a:7000"}, {ID: "B", Address: "raft-b:7000"}, {ID: "C", Address: "raft-c:7000"}}
	if len(c.peers) != 3 || c.peers[1] != want[1] || c.raftAdvertise != "raft-b:7000" || c.raftAddr != "0.0.0.0:7000" {
		t.Fatalf("peers %v, listen %s, advertise %s", c.peers, c.raftAddr, c.raftAdvertise)
	}
	c = mustParse(t, []string{"--tag", "C", "--peers", peers}, nil)
	if err := c.placeSelf(); err != nil || c.raftAddr != "raft-c:7000" {
		t.Fatalf("without --raft-addr the node listens on its entry: %s, %v", c.raftAddr, err)
	}
}

func TestBadConfigurationIsRefusedWithAReason(t *testing.T) {
	cases := []struct {
		args []string
		env  map[string]string
		want string
	}{
		{[]string{"--tag", "abc"}, nil, "upper-case"},
		{[]string{"--tag", "RAFT"}, nil, "RAFT"},
		{[]string{"--separator", "|"}, nil, "pipe"},
		{[]string{"--separator", "ab"}, nil, "separator"},
		{[]string{"--max-count", "0"}, nil, "--max-count"},
		{[]string{"--identity-batch", "0"}, nil, "--identity-batch"},
		{[]string{"--disk-sample-interval", "100ms"}, nil, "--disk-sample-interval must be 1s..10m0s"},
		{[]string{"--disk-sample-interval", "1h"}, nil, "--disk-sample-interval must be 1s..10m0s"},
		{[]string{"--raft-snapshot-interval", "10ms"}, nil, "--raft-snapshot-interval must be at least 1s"},
		{[]string{"--raft-snapshot-threshold", "1"}, nil, "--raft-snapshot-threshold must be at least 16"},
		{[]string{"--raft-snapshot-threshold", "-1"}, nil, "raft-snapshot-threshold"},
		{[]string{"--clock-offset-warn", "1ms"}, nil, "--clock-offset-warn must be from 10ms to 1h0m0s, got 1ms"},
		{[]string{"--clock-offset-warn", "0"}, nil, "--clock-offset-warn must be from 10ms"},
		{[]string{"--clock-offset-warn", "-1s"}, nil, "--clock-offset-warn must be from 10ms"},
		{[]string{"--replica-check-interval", "1s"}, nil, "--replica-check-interval must be at least 5s, got 1s"},
		{nil, map[string]string{"IDNODE_CLOCK_OFFSET_WARN": "2h"}, "--clock-offset-warn must be from 10ms to 1h0m0s, got 2h0m0s"},
		{[]string{"--log-format", "xml"}, nil, "--log-format"},
		{[]string{"--log-level", "loud"}, nil, "--log-level"},
		{[]string{"--pprof"}, nil, "--metrics-addr"},
		{[]string{"--pprof", "--metrics-addr", "0.0.0.0:9100"}, nil, "not a loopback address"},
		{[]string{"--pprof", "--metrics-addr", ":9100"}, nil, "not a loopback address"},
		{[]string{"--grpc-max-streams", "0"}, nil, "grpc-max-streams"},
		{[]string{"--grpc-max-conns", "0"}, nil, "--grpc-max-conns"},
		{[]string{"--admin-token", "x", "--admin-token-file", "/nonexistent"}, nil, "give one"},
		{[]string{"--admin-token-file", "/nonexistent/token"}, nil, "--admin-token-file"},
		{[]string{"--peers", "A"}, nil, "TAG=host:port"},
		{[]string{"--peers", "A=x:1,A=y:2"}, nil, "repeats"},
		{[]string{"--peers", "a=x:1"}, nil, "upper-case"},
		{[]string{"--peers", "A=x:1", "--join", "y:2"}, nil, "exclude"},
		{[]string{"--tls-client-auth", "require"}, nil, "give --tls-cert"},
		{[]string{"--tls-cert", "a", "--tls-key", "b", "--tls-ca", "c", "--tls-client-auth", "always"}, nil, "--tls-client-auth"},
		{[]string{"extra"}, nil, "unexpected argument"},
		{[]string{"--bogus"}, nil, "see idnode -h"},
		{nil, map[string]string{"IDNODE_MAX_COUNT": "many"}, "IDNODE_MAX_COUNT"},
	}
	for _, c := range cases {
		_, err := parseConfig(c.args, environ(c.env), io.Discard)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parseConfig(%q, %v) = %v, want an error mentioning %q", c.args, c.env, err, c.want)
		}
	}
	c := mustParse(t, []string{"--tag", "D", "--peers", "A=x:1,B=y:2"}, nil)
	if err := c.placeSelf(); err == nil || !strings.Contains(err.Error(), "does not list") {
		t.Errorf("a node missing from --peers: %v", err)
	}
	c = mustParse(t, []string{"--tag", "A", "--peers", "A=x:1,B=y:2", "--raft-advertise", "z:3"}, nil)
	if err := c.placeSelf(); err == nil || !strings.Contains(err.Error(), "differs") {
		t.Errorf("--raft-advertise disagreeing with --peers: %v", err)
	}
}

// --clock-offset-warn defaults to half a second and takes any value in its range, the bounds
// included, on to the node's config.
func TestClockOffsetWarnReachesTheNode(t *testing.T) {
	if c := mustParse(t, nil, nil); c.clockOffsetWarn != 500*time.Millisecond {
		t.Errorf("default --clock-offset-warn = %v, want 500ms", c.clockOffsetWarn)
	}
	for _, bound := range []time.Duration{10 * time.Millisecond, time.Hour} {
		o := &ops{cfg: mustParse(t, []string{"--clock-offset-warn", bound.String()}, nil)}
		if got := o.nodeConfig(nil, nil).ClockOffsetWarn; got != bound {
			t.Errorf("--clock-offset-warn %v: the node's ClockOffsetWarn is %v", bound, got)
		}
	}
}

// The admin token comes from a flag (warned about), the environment or a file.
func TestAdminTokenSources(t *testing.T) {
	if c := mustParse(t, []string{"--admin-token", "a"}, nil); c.adminToken != "a" || !c.adminTokenOnCommandLine {
		t.Errorf("--admin-token: %q, on the command line %v", c.adminToken, c.adminTokenOnCommandLine)
	}
	if c := mustParse(t, nil, map[string]string{"IDNODE_ADMIN_TOKEN": "b"}); c.adminToken != "b" || c.adminTokenOnCommandLine {
		t.Errorf("IDNODE_ADMIN_TOKEN: %q, on the command line %v", c.adminToken, c.adminTokenOnCommandLine)
	}
	file := filepath.Join(t.TempDir(), "token")
	if err := os.WriteFile(file, []byte("  c-token \nignored\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if c := mustParse(t, []string{"--admin-token-file", file}, nil); c.adminToken != "c-token" || c.adminTokenOnCommandLine {
		t.Errorf("--admin-token-file: %q, on the command line %v", c.adminToken, c.adminTokenOnCommandLine)
	}
	if c := mustParse(t, []string{"--pprof", "--metrics-addr", "127.0.0.1:0"}, nil); !c.pprof {
		t.Error("--pprof on a loopback metrics address refused")
	}
	if c := mustParse(t, []string{"--grpc-max-streams", "64"}, nil); c.limits.MaxStreams != 64 {
		t.Errorf("--grpc-max-streams 64: %d", c.limits.MaxStreams)
	}
}
