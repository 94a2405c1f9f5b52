//go:build unix

package mariadb

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

// A server answers its user, keeps what it was told, and leaves nothing behind once stopped.
func TestServerAnswersAndStops(t *testing.T) {
	s := ForTest(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := s.SQL(ctx, "CREATE TABLE t (id bigint PRIMARY KEY); INSERT INTO t VALUES (1), (2)"); err != nil {
		t.Fatal(err)
	}
	out, err := s.SQL(ctx, "SELECT count(*), current_user(), database() FROM t")
	if want := "2\t" + User + "@127.0.0.1\t" + Database; err != nil || strings.TrimSpace(out) != want {
		t.Fatalf("count: %q, %v; want %q", out, err, want)
	}
	if _, err := s.SQL(ctx, "INSERT INTO t VALUES (1)"); err == nil || !strings.Contains(err.Error(), "Duplicate entry") {
		t.Fatalf("a duplicate key: %v, want MariaDB's refusal", err)
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
	for _, addr := range []string{"0.0.0.0:3306", "localhost:3306", "127.0.0.1", "127.0.0.1:"} {
		if _, err := Start(context.Background(), addr); err == nil || !strings.Contains(err.Error(), "want 127.0.0.1:PORT") {
			t.Errorf("Start(%q): %v, want a refusal", addr, err)
		}
	}
}
