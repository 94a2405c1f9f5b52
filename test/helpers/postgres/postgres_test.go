//go:build unix

package postgres

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// A server answers queries, keeps what it was told, and leaves nothing behind once stopped.
func TestServerAnswersAndStops(t *testing.T) {
	s := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.Psql(ctx, "CREATE TABLE t (id bigint PRIMARY KEY); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	out, err := s.Psql(ctx, "SELECT count(*), current_user FROM t")
	if err != nil || strings.TrimSpace(out) != "2|"+User {
		t.Fatalf("count: %q, %v; want 2|%s", out, err, User)
	}
	if _, err := s.Psql(ctx, "INSERT INTO t VALUES (1)"); err == nil || !strings.Contains(err.Error(), "duplicate key") {
		t.Fatalf("a duplicate key: %v, want PostgreSQL's refusal", err)
	}
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(s.base); !os.IsNotExist(err) {
		t.Fatalf("the server's folder %s is still there: %v", s.base, err)
	}
}

// An address other than 127.0.0.1:PORT is refused before anything starts.
func TestStartRefusesNonLoopback(t *testing.T) {
	if _, err := BinDir(); err != nil {
		t.Skip(err)
	}
	for _, addr := range []string{"0.0.0.0:5432", "localhost:5432", "127.0.0.1", "127.0.0.1:"} {
		if _, err := Start(context.Background(), addr); err == nil || !strings.Contains(err.Error(), "want 127.0.0.1:PORT") {
			t.Errorf("Start(%q): %v, want a refusal", addr, err)
		}
	}
}
