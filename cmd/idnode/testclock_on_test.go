//go:build testclock

package main

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/testclock"
	"github.com/idnode/idnode/server"
)

// TestTestBuildOffsetsTheServersClock: with the build tag, IDNODE_TEST_CLOCK_FILE's offset is
// in the clock the server gets, and the log says this is a test build.
// (go test -tags testclock ./cmd/idnode; test/e2e/ops runs the tagged binary in CI.)
func TestTestBuildOffsetsTheServersClock(t *testing.T) {
	path := filepath.Join(t.TempDir(), "offset")
	if err := testclock.Write(path, time.Hour); err != nil {
		t.Fatal(err)
	}
	c := mustParse(t, nil, map[string]string{"IDNODE_TEST_CLOCK_FILE": path})
	if got := strings.Join(c.warnings, "\n"); !strings.Contains(got, "this is a test build") || strings.Contains(got, "unknown variable") {
		t.Errorf("warnings %q; want the test build named and no unknown variable", got)
	}
	sc := (&ops{cfg: c}).serverConfig(server.Config{})
	if sc.Now == nil {
		t.Fatal("the test build gave the server no clock")
	}
	if off := sc.Now().Round(0).Sub(time.Now().Round(0)); off < 59*time.Minute || off > 61*time.Minute {
		t.Errorf("the server's clock is %v off the machine's, want the file's hour", off)
	}
	if c := mustParse(t, nil, nil); c.now != nil {
		t.Error("without IDNODE_TEST_CLOCK_FILE the test build took a test clock; want the machine's")
	}
}
