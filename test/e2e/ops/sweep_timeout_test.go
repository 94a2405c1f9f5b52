package ops

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// The helper's run: a test that starts a container of a compose project and hangs past its
// -test.timeout. Only TestTimedOutRunLeavesNoContainers runs it, through these variables.
const (
	sweepHelperImageEnv   = "IDNODE_SWEEP_HELPER_IMAGE"
	sweepHelperProjectEnv = "IDNODE_SWEEP_HELPER_PROJECT"
	// The helper run's -test.timeout: long enough that its sweep starts the margin a real run's
	// does before the timer fires (e2etest.SweepMargin, not the quarter of a shorter timeout). With a
	// 40-second timeout the sweep had 10 seconds, and on a loaded machine its last command,
	// the volume's removal, came after the run had ended.
	sweepHelperTimeout = 4 * e2etest.SweepMargin
	sweepHelperWait    = sweepHelperTimeout + 2*time.Minute // the helper run, start to exit
)

// When go test's timer fires it panics without running t.Cleanup, and a compose project a test
// started stayed up, holding its ports for every later run. A run now
// removes what its tests started shortly before its -test.timeout: this test runs the test
// binary again on a helper that starts a container and hangs, and checks that when that run
// has timed out, no container, network or volume of the helper's project is left.
func TestTimedOutRunLeavesNoContainers(t *testing.T) {
	t.Parallel()
	d := e2etest.OpsDockerFor(t)
	project := d.Project + "-timedout"
	t.Cleanup(func() { e2etest.SweepProject(project) })
	ctx, cancel := context.WithTimeout(context.Background(), sweepHelperWait)
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], "-test.v", "-test.run=^TestHelperHangsWithAContainer$", "-test.timeout="+sweepHelperTimeout.String())
	cmd.Env = append(os.Environ(), sweepHelperImageEnv+"="+d.Image, sweepHelperProjectEnv+"="+project)
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil || !strings.Contains(string(out), "test timed out") {
		t.Fatalf("the helper run did not time out as it should (%v):\n%s", err, out)
	}
	if !strings.Contains(string(out), "helper: container started") {
		t.Fatalf("the helper did not start its container:\n%s", out)
	}
	for _, kind := range []string{"container", "network", "volume"} {
		if left := labelled(t, d, kind, project); left != "" {
			t.Errorf("after the run timed out, %ss of project %s are left: %s", kind, project, left)
		}
	}
}

// TestHelperHangsWithAContainer is the helper run of TestTimedOutRunLeavesNoContainers; run
// alone, it skips.
func TestHelperHangsWithAContainer(t *testing.T) {
	image, project := os.Getenv(sweepHelperImageEnv), os.Getenv(sweepHelperProjectEnv)
	if image == "" || project == "" {
		t.Skip("only TestTimedOutRunLeavesNoContainers runs it")
	}
	e2etest.OwnProject(project)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, "docker", "volume", "create", "--label", e2etest.ComposeProjectLabel+"="+project, project+"-data").CombinedOutput(); err != nil {
		t.Fatalf("docker volume create: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "docker", "network", "create", "--label", e2etest.ComposeProjectLabel+"="+project, project+"_raft").CombinedOutput(); err != nil {
		t.Fatalf("docker network create: %v: %s", err, out)
	}
	if out, err := exec.CommandContext(ctx, "docker", "run", "-d", "--label", e2etest.ComposeProjectLabel+"="+project, "--network", project+"_raft",
		"-v", project+"-data:/data", image).CombinedOutput(); err != nil {
		t.Fatalf("docker run: %v: %s", err, out)
	}
	t.Log("helper: container started")
	<-time.After(2 * sweepHelperWait) // past -test.timeout: go test's timer ends the run
}

// labelled is the IDs of the Docker objects of kind (container, network, volume) that belong
// to compose project, space-separated.
func labelled(t *testing.T, d *e2etest.OpsCompose, kind, project string) string {
	t.Helper()
	args := map[string][]string{
		"container": {"ps", "-aq"}, "network": {"network", "ls", "-q"}, "volume": {"volume", "ls", "-q"},
	}[kind]
	out, err := d.Run(e2etest.OpsDockerCmdTimeout, "docker", append(args, "--filter", "label="+e2etest.ComposeProjectLabel+"="+project)...)
	if err != nil {
		t.Fatalf("listing %ss: %v: %s", kind, err, out)
	}
	return strings.Join(strings.Fields(out), " ")
}
