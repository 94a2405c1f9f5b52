package powercut

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// brokenTag builds idnode without the directory sync after WriteFile's rename
// (internal/durablefile/renamesync_off.go): the etag watermark, the HiLo pools, the manifest
// and node.json may then come back old, or not at all, after a power cut.
const brokenTag = "powercut_norenamesync"

// buildBroken builds that idnode into the test binary's bin dir.
func buildBroken(t *testing.T) string {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir, err := e2etest.BinDir()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "idnode-"+brokenTag)
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-tags", brokenTag, "-o", bin, e2etest.DaemonPackage)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build -tags %s: %v\n%s", brokenTag, err, out)
	}
	return bin
}

// TestPowerCutCatchesAMissingRenameSync shows the schedules can fail: the build without the
// directory sync after a rename must break a promise under whole-cluster-random-clean, which
// the same tree with the sync keeps (TestPowerCutWholeClusterAtRandom). Its etag file comes
// back older than the watermark the node had made durable and recorded in the cluster. The
// record saves the IDs (the node skips to it), but the file did lose a durable write.
func TestPowerCutCatchesAMissingRenameSync(t *testing.T) {
	lossyfs.Need(t)
	schedule := randomSchedule(lossyfs.Clean)
	pc := startPowerCluster(t, buildBroken(t))
	pc.build = brokenTag
	problems := wholeClusterAtRandom(pc, lossyfs.Clean)
	if len(problems) == 0 {
		t.Fatalf("schedule %s build=%s (idnode built -tags %[2]s) kept every promise: the power-cut harness cannot tell", schedule, brokenTag)
	}
	for _, p := range problems {
		t.Logf("caught by %s build=%s: %s", schedule, brokenTag, p)
	}
}
