//go:build fastbackups

package main

import (
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/server"
)

// TestFastBackupsBuildSamplesEverySecond: with the build tag, the server samples its issue
// rates every second, a backup interval of seconds is taken, and the log says this is a test
// build. (go test -tags fastbackups ./cmd/idnode; the backup drill runs the tagged binary.)
func TestFastBackupsBuildSamplesEverySecond(t *testing.T) {
	c := mustParse(t, []string{"--backup-target", "dir:" + t.TempDir(), "--backup-interval", "2s"}, nil)
	if got := strings.Join(c.warnings, "\n"); !strings.Contains(got, "this is a test build (tag fastbackups)") {
		t.Errorf("warnings %q; want the test build named", got)
	}
	if sc := (&ops{cfg: c}).serverConfig(server.Config{}); sc.IssueRatesInterval != time.Second {
		t.Errorf("the server samples its issue rates every %v; want a second", sc.IssueRatesInterval)
	}
	if c.backups.interval != 2*time.Second {
		t.Errorf("backup interval %v; want the 2s given", c.backups.interval)
	}
}
