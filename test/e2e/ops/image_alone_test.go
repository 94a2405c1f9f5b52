package ops

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// imageAloneTimeout bounds the lone container's start, until it hands out an identity.
const imageAloneTimeout = 60 * time.Second

// The image alone, `docker run -p 7070:7070 idnode` with no flags, is a working single-node
// cluster like `go run ./cmd/idnode`. It listens on 0.0.0.0, and took that
// wildcard for the address it advertises, which a node refuses: the container exited at once.
func TestImageAloneServesIDs(t *testing.T) {
	t.Parallel()
	d := e2etest.OpsDockerFor(t)
	addr := e2etest.FreeAddr(t)
	name := "idnode-alone-" + strings.TrimPrefix(d.Project, "idnode-ops-")
	run := append([]string{"run", "-d", "--name", name}, e2etest.OwnedContainerArgs(d.Project)...)
	d.Must(e2etest.OpsDockerCmdTimeout, "docker", append(run, "-p", addr+":7070", d.Image)...)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := d.Run(e2etest.OpsDockerCmdTimeout, "docker", "logs", name)
			t.Logf("container %s:\n%s", name, out)
		}
		_, _ = d.Run(e2etest.OpsDockerCmdTimeout, "docker", "rm", "-f", "-v", name)
	})
	ids := idnodev1.NewIdServiceClient(e2etest.DialConn(t, addr, grpc.WithDefaultCallOptions(grpc.WaitForReady(true))))
	var first string
	state := ""
	e2etest.Eventually(t, imageAloneTimeout, "the lone container hands out server-side IDs", func() error {
		if state = strings.TrimSpace(d.Must(e2etest.OpsDockerCmdTimeout, "docker", "inspect", "-f", "{{.State.Status}}", name)); state == "exited" {
			return nil // it will not serve: no use waiting
		}
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users/"})
		if err != nil {
			return fmt.Errorf("Generate(users/): %w", err)
		}
		first = resp.GetIds()[0]
		return nil
	})
	if state == "exited" {
		t.Fatalf("the lone container exited instead of serving")
	}
	if first != "users/0000000000000000001-A" {
		t.Fatalf("the lone container's first server-side ID = %q; want users/0000000000000000001-A", first)
	}
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.RPCTimeout)
	defer cancel()
	if resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"}); err != nil || resp.GetIds()[0] != "users/1" {
		t.Fatalf("the lone container's first identity = %v, %v; want users/1", resp.GetIds(), err)
	}
}
