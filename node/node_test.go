package node_test

import (
	"context"
	"errors"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	"github.com/idnode/idnode/cluster"
	"github.com/idnode/idnode/internal/datadir"
	"github.com/idnode/idnode/node"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

// config is a single node on loopback ports in dir, with no HTTP.
func config(t *testing.T, dir, tag string) node.Config {
	return node.Config{
		DataDir: dir, Tag: tag, Separator: '/',
		GRPCAddr: loopback.FreeAddr(t), RaftAddr: loopback.FreeAddr(t),
		MaxConns: 16,
		Logger:   slog.New(slog.NewTextHandler(testWriter{t}, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// waitServing polls the node's health service until it answers SERVING.
func waitServing(t *testing.T, n *node.Node) {
	t.Helper()
	cc, err := grpc.NewClient("passthrough:///"+n.GRPCAddr(), grpc.WithTransportCredentials(insecure.NewCredentials()))
	if err != nil {
		t.Fatal(err)
	}
	defer cc.Close()
	poll.Until(t, "health SERVING", 20*time.Second, 20*time.Millisecond, func() error {
		ctx, cancel := context.WithTimeout(t.Context(), time.Second)
		defer cancel()
		resp, err := healthpb.NewHealthClient(cc).Check(ctx, &healthpb.HealthCheckRequest{})
		if err != nil {
			return err
		}
		if resp.GetStatus() != healthpb.HealthCheckResponse_SERVING {
			return &notServing{resp.GetStatus()}
		}
		return nil
	})
}

type notServing struct {
	s healthpb.HealthCheckResponse_ServingStatus
}

func (e *notServing) Error() string { return e.s.String() }

// A node started on an empty data dir serves, writes its identity, and stops on Close; a
// restart keeps the tag the data dir holds, and refuses another one given as --tag.
func TestStartServesCloseStopsRestartKeepsTheTag(t *testing.T) {
	dir := t.TempDir()
	n, err := node.Start(t.Context(), config(t, dir, "C"))
	if err != nil {
		t.Fatal(err)
	}
	waitServing(t, n)
	if err := n.Close(); err != nil {
		t.Fatalf("Close = %v", err)
	}
	if err := n.Wait(); err != nil {
		t.Fatalf("Wait after Close = %v, want nil (asked to stop)", err)
	}
	st, found, err := datadir.LoadNodeState(dir)
	if err != nil || !found || st.Tag != "C" || !st.KeepsManifest {
		t.Fatalf("node state after a stop: %+v found=%v err=%v", st, found, err)
	}
	for _, piece := range []string{datadir.FileName, string(datadir.RaftWAL), string(datadir.Etag)} {
		if _, err := os.Stat(filepath.Join(dir, piece)); err != nil {
			t.Errorf("data dir after a stop: %v", err)
		}
	}

	ctx, cancel := context.WithCancel(t.Context())
	n, err = node.Start(ctx, config(t, dir, "A")) // the flag's default tag, not given
	if err != nil {
		t.Fatal(err)
	}
	if n.Tag() != "C" {
		t.Errorf("restarted node's tag = %s, want the data dir's C", n.Tag())
	}
	waitServing(t, n)
	cancel()
	if err := n.Wait(); err != nil {
		t.Fatalf("Wait after its context ended = %v, want nil", err)
	}

	cfg := config(t, dir, "B")
	cfg.TagSet = true
	if _, err := node.Start(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "belongs to node C") {
		t.Fatalf("start with another --tag = %v, want a refusal naming node C", err)
	}
}

// A port that is taken stops the start with an error naming it, and what the start bound
// before it is let go: the gRPC port is free again (it once panicked instead, closing a
// listener the failed return had set to nil).
func TestStartWithItsRaftPortTakenFailsAndLetsGo(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	cfg := config(t, t.TempDir(), "A")
	cfg.RaftAddr = taken.Addr().String()
	if _, err := node.Start(t.Context(), cfg); err == nil || !strings.Contains(err.Error(), "listen for raft on "+cfg.RaftAddr) {
		t.Fatalf("Start with its Raft port taken = %v; want an error naming it", err)
	}
	again, err := net.Listen("tcp", cfg.GRPCAddr)
	if err != nil {
		t.Fatalf("the gRPC port after the failed start: %v", err)
	}
	again.Close()
}

// testWriter sends the node's log to t.Log.
type testWriter struct{ t *testing.T }

func (w testWriter) Write(p []byte) (int, error) {
	w.t.Log(strings.TrimRight(string(p), "\n"))
	return len(p), nil
}

// A data dir keeps the Raft log store it was made with: a restart without --raft-log opens
// it, one naming the other store is refused, and the manifest guards it, so a lost store stops
// the start instead of starting from an empty log.
func TestADataDirKeepsItsRaftLogStoreAndRefusesItsLoss(t *testing.T) {
	for _, c := range []struct {
		kind, other cluster.LogStore
		piece       datadir.Piece
	}{
		{cluster.LogStoreWAL, cluster.LogStoreBolt, datadir.RaftWAL},
		{cluster.LogStoreBolt, cluster.LogStoreWAL, datadir.RaftStore},
	} {
		t.Run(string(c.kind), func(t *testing.T) {
			dir := t.TempDir()
			start := func(kind cluster.LogStore) (*node.Node, error) {
				cfg := config(t, dir, "C")
				cfg.RaftLog = kind
				return node.Start(t.Context(), cfg)
			}
			for _, kind := range []cluster.LogStore{c.kind, ""} {
				n, err := start(kind)
				if err != nil {
					t.Fatal(err)
				}
				waitServing(t, n)
				if got := n.Cluster().LogStore(); got != c.kind {
					t.Errorf("started with --raft-log=%q: store %q, want %q", kind, got, c.kind)
				}
				if err := n.Close(); err != nil {
					t.Fatal(err)
				}
			}
			m, err := datadir.Open(dir, true)
			if err != nil || !m.Holds(c.piece) {
				t.Fatalf("manifest holds %s: %v, %v", c.piece, m != nil && m.Holds(c.piece), err)
			}
			if n, err := start(c.other); !errors.Is(err, cluster.ErrLogStoreMismatch) {
				if err == nil {
					n.Close()
				}
				t.Fatalf("start with --raft-log=%s: %v, want ErrLogStoreMismatch", c.other, err)
			}
			if err := os.RemoveAll(filepath.Join(dir, string(c.piece))); err != nil {
				t.Fatal(err)
			}
			if n, err := start(""); !errors.Is(err, datadir.ErrPieceMissing) || !strings.Contains(err.Error(), string(c.piece)) {
				if err == nil {
					n.Close()
				}
				t.Fatalf("start without %s: %v, want ErrPieceMissing naming it", c.piece, err)
			}
		})
	}
}
