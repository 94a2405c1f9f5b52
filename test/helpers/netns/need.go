//go:build linux

package netns

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Need skips the test unless the machine can make hosts: root, ip and nft. Under CI=true, where
// .ci/run installs them and runs as root, it fails instead.
func Need(t testing.TB) {
	t.Helper()
	var missing []string
	if os.Geteuid() != 0 {
		missing = append(missing, "root (network namespaces)")
	}
	for _, tool := range []string{"ip", "nft"} {
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool+" on PATH")
		}
	}
	if len(missing) == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("network namespaces need %s; CI machines have them (.ci/run)", strings.Join(missing, ", "))
	}
	t.Skipf("network namespaces need %s", strings.Join(missing, ", "))
}
