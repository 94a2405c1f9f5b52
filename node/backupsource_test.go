package node

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/server"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/poll"
)

// The in-process source hands over the bytes of the node's Backup call, with the admin token
// when the node has one, and is refused like any caller without it.
func TestBackupSourceWritesTheNodesBackup(t *testing.T) {
	const token = "scheduled-backup-token"
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	n, err := Start(ctx, Config{
		DataDir: t.TempDir(), Tag: "A", Separator: '/',
		GRPCAddr: loopback.FreeAddr(t), RaftAddr: loopback.FreeAddr(t), MaxConns: 16,
		Logger:       slog.New(slog.DiscardHandler),
		ServerConfig: func(c server.Config) server.Config { c.AdminToken = token; return c },
	})
	if err != nil {
		t.Fatal(err)
	}
	defer n.Close()
	poll.Until(t, "leader", 20*time.Second, 20*time.Millisecond, func() error {
		if !n.raft.IsLeader() {
			return context.DeadlineExceeded
		}
		return nil
	})

	withToken, err := n.startBackupSource(token)
	if err != nil {
		t.Fatal(err)
	}
	defer withToken.stop(time.Second)
	var buf bytes.Buffer
	// The first backup may meet the node before it has registered itself; poll.
	poll.Until(t, "a backup", 20*time.Second, 50*time.Millisecond, func() error {
		buf.Reset()
		return withToken.write(ctx, &buf)
	})
	if _, err := fsm.ReadBackup(&buf); err != nil {
		t.Fatalf("the source's backup does not read back: %v", err)
	}

	without, err := n.startBackupSource("")
	if err != nil {
		t.Fatal(err)
	}
	defer without.stop(time.Second)
	if err := without.write(ctx, &buf); err == nil {
		t.Fatal("a backup without the admin token went through")
	}
}
