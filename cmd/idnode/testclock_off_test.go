//go:build !testclock

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/testclock"
	"github.com/idnode/idnode/server"
)

// TestReleaseBuildIgnoresTheTestClock: without the build tag, IDNODE_TEST_CLOCK_FILE is an
// unknown variable, warned about and ignored; the server keeps the machine's clock. (The
// tagged build's test is testclock_on_test.go; test/e2e/ops runs both binaries.)
func TestReleaseBuildIgnoresTheTestClock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	if err := testclock.Write(path, time.Hour); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, nil, map[string]string{"IDNODE_TEST_CLOCK_FILE": path})
	if got := strings.Join(c.warnings, "\n"); !strings.Contains(got, "unknown variable IDNODE_TEST_CLOCK_FILE") || !strings.Contains(got, "(it is ignored)") {
		t.Errorf("warnings %q; want IDNODE_TEST_CLOCK_FILE named as unknown and ignored", got)
	}
	if c.now != nil {
		t.Fatal("the release build took a test clock")
	}
	if sc := (&ops{cfg: c}).serverConfig(server.Config{}); sc.Now != nil {
		t.Error("the release build gave the server a clock; want none (the server's default, the machine's)")
	}
}
