package lossyfs

import (
	"os"
	"testing"
)

// Need skips t unless this machine can mount a lossy filesystem (/dev/fuse, and root to mount
// it), and fails it instead under CI=true, where both are promised.
func Need(t testing.TB) {
	t.Helper()
	var missing string
	if _, err := os.Stat("/dev/fuse"); err != nil {
		missing = "/dev/fuse (" + err.Error() + ")"
	} else if os.Geteuid() != 0 {
		missing = "root, to mount a FUSE filesystem"
	}
	if missing == "" {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("power-cut tests need %s; CI machines have it", missing)
	}
	t.Skipf("power-cut tests need %s", missing)
}
