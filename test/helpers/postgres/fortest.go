package postgres

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/loopback"
)

// startTimeout bounds initdb and the server's start in a test.
const startTimeout = 2 * time.Minute

// ForTest starts a server for t, stopped (its folder removed) when t ends. Without PostgreSQL
// the test is skipped, except under CI=true, where .ci/run installs it: there it fails.
func ForTest(t testing.TB, settings ...string) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := Start(ctx, loopback.FreeAddr(t), settings...)
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNoPostgresUser) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true: .ci/run installs it, so this is a failure)", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
		if t.Failed() {
			t.Logf("PostgreSQL's log:\n%s", s.Log())
		}
	})
	return s
}
