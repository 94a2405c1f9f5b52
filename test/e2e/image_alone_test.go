package e2e

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// imageAloneTimeout bounds the lone container's start, until it hands out an identity.
const imageAloneTimeout = 60 * time.Second

// The image alone, `docker run -p 7070:7070 idnode` with no flags, is a working single-node
// cluster like `go run ./cmd/idnode` (issue 43, item 6). It listens on 0.0.0.0, and took that
// wildcard for the address it advertises, which a node refuses: the container exited at once.
func TestImageAloneServesIDs(t *testing.T) {
	t.Parallel()
	d := opsDockerFor(t)
	addr := freeAddr(t)
	name := "idnode-alone-" + strings.TrimPrefix(d.project, "idnode-ops-")
	d.must(opsDockerCmdTimeout, "docker", "run", "-d", "--name", name, "--label", composeProjectLabel+"="+d.project, "-p", addr+":7070", d.image)
	t.Cleanup(func() {
		if t.Failed() {
			out, _ := d.run(opsDockerCmdTimeout, "docker", "logs", name)
			t.Logf("container %s:\n%s", name, out)
		}
		_, _ = d.run(opsDockerCmdTimeout, "docker", "rm", "-f", "-v", name)
	})
	ids := idnodev1.NewIdServiceClient(dialConn(t, addr, grpc.WithDefaultCallOptions(grpc.WaitForReady(true))))
	var first string
	state := ""
	eventually(t, imageAloneTimeout, "the lone container hands out server-side IDs", func() error {
		if state = strings.TrimSpace(d.must(opsDockerCmdTimeout, "docker", "inspect", "-f", "{{.State.Status}}", name)); state == "exited" {
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
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	if resp, err := ids.Generate(ctx, &idnodev1.GenerateRequest{Id: "users|"}); err != nil || resp.GetIds()[0] != "users/1" {
		t.Fatalf("the lone container's first identity = %v, %v; want users/1", resp.GetIds(), err)
	}
}
