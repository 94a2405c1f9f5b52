package mariadb

import (
	"context"
	"errors"
	"os"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/loopback"
)

// startTimeout bounds mariadb-install-db and the server's start in a test.
const startTimeout = 2 * time.Minute

// ForTest starts a server for t, stopped (its folder removed) when t ends. Without MariaDB the
// test is skipped, except under CI=true, where .ci/run installs it: there it fails.
func ForTest(t testing.TB) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), startTimeout)
	defer cancel()
	s, err := Start(ctx, loopback.FreeAddr(t))
	if errors.Is(err, ErrNotInstalled) || errors.Is(err, ErrNoMysqlUser) {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%v (CI=true: .ci/run installs it, so this is a failure)", err)
		}
		t.Skip(err)
	}
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("MariaDB's log:\n%s", s.Log())
		}
		if err := s.Stop(); err != nil {
			t.Error(err)
		}
	})
	return s
}
