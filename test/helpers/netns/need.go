//go:build linux

package netns

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// Need skips the test unless the machine can make hosts: root, ip and nft. Under CI=true, where
// .ci/run installs them and runs as root, it fails instead.
func Need(t testing.TB) {
	t.Helper()
	var missing []string
	if !capable() {
		missing = append(missing, "root with CAP_NET_ADMIN and CAP_SYS_ADMIN (a container may lack them)")
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

// The capabilities ip netns add and exec use: net_admin for links, addresses and rules,
// sys_admin for the namespaces' mounts and setns.
const (
	capNetAdmin = 12
	capSysAdmin = 21
)

// capable says whether this process runs as root with both capabilities in effect.
func capable() bool {
	if os.Geteuid() != 0 {
		return false
	}
	status, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return false
	}
	for _, line := range strings.Split(string(status), "\n") {
		if hex, ok := strings.CutPrefix(line, "CapEff:"); ok {
			eff, err := strconv.ParseUint(strings.TrimSpace(hex), 16, 64)
			return err == nil && eff&(1<<capNetAdmin) != 0 && eff&(1<<capSysAdmin) != 0
		}
	}
	return false
}
