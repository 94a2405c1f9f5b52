package ops

// idctl against the compose cluster of deploy/: the same compose file, Dockerfile and scratch
// image, in a project and on host ports of this test's own (so it runs beside `make
// cluster-up` and the chaos suite), first as it is, then with deploy/docker-compose.tls.yml
// (TLS, mutual TLS between the nodes, admin token, metrics).

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/internal/tlsconfig"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// TestIdctlAgainstDockerCluster runs the idctl commands against the compose cluster, plain and
// with the TLS override.
func TestIdctlAgainstDockerCluster(t *testing.T) {
	t.Parallel()
	d := e2etest.OpsDockerFor(t)

	t.Run("plain", func(t *testing.T) {
		d.T = t
		// idctl on the host is not on a node's loopback: admin calls need the token.
		const token = "plain-admin-token"
		d.Env = append(d.Env, "IDNODE_ADMIN_TOKEN="+token)
		d.Use("docker-compose.yml")
		d.Up(nil)
		d.CheckImage()
		addrs := d.GRPCAddrs()
		env := []string{"IDNODE_ADDR=" + strings.Join(addrs, ","), "IDNODE_TOKEN=" + token}
		st := e2etest.IdctlSettled(t, env)
		if len(st.Nodes) != 3 || st.Leader == "" {
			t.Fatalf("status: %+v", st)
		}
		for _, n := range st.Nodes {
			// The registered gRPC addresses are the raft network's (raft-a:7070); idctl on the
			// host reads each node's own term through --addr.
			if !n.Reachable || !n.Answered || !strings.HasPrefix(n.GRPCAddress, "raft-") {
				t.Errorf("status of node %s: %+v", n.Tag, n)
			}
		}
		// Through B alone, which refuses while the cluster elects a leader (a loaded machine
		// elects again and again): asked again with the same request id, as a client would,
		// so that a try the cluster acted on answers the same identities.
		if got := e2etest.MustIdctlRetrying(t, []string{"IDNODE_ADDR=" + addrs[1]}, "next", "orders|", "-n", "3", "--request-id", "plain-orders"); got != "orders/1\norders/2\norders/3\n" {
			t.Errorf("next via B = %q", got)
		}
		if got := e2etest.MustIdctl(t, env, "next", "users/"); got != "users/0000000000000000001-A\n" {
			t.Errorf("next users/ via A = %q", got)
		}
		// A seed sets a value, and the listing is a read: both are safe to ask again.
		e2etest.MustIdctlRetrying(t, env, "seed", "invoices", "100")
		if out := e2etest.MustIdctlRetrying(t, env, "identities"); !regexp.MustCompile(`invoices\s+100\norders\s+3\n$`).MatchString(out) {
			t.Errorf("identities:\n%s", out)
		}
		// The range is the tag's first only if idctl's first try answered: a try that timed out
		// on a loaded machine may have had its node reserve a pool, and the retry is served
		// from another node's, above it.
		out := e2etest.MustIdctl(t, env, "hilo", "next", "carts")
		grant := regexp.MustCompile(`^carts/(\d+)-[ABC] … carts/(\d+)-[ABC] \(low (\d+), high (\d+), 32 numbers, granted by [ABC] as (\S+)\)$`).FindStringSubmatch(strings.TrimSpace(out))
		if grant == nil || grant[1] != grant[3] || grant[2] != grant[4] {
			t.Fatalf("hilo next = %q; want a range of 32 and its grant", out)
		}
		low, _ := strconv.ParseInt(grant[3], 10, 64)
		e2etest.MustIdctl(t, env, "hilo", "return", "carts", grant[4], strconv.FormatInt(low-1, 10), grant[5])
		// The leader as it is now, not as it was at the start: a loaded machine elects again
		// and again, and a transfer to the node that has just become the leader ends
		// elsewhere. An election that still comes between the reading and the transfer is
		// met as an operator would meet it: read the leader again and transfer again, at
		// most transferAttempts times.
		const transferAttempts = 3
		for attempt := 1; ; attempt++ {
			to := "C"
			if e2etest.IdctlSettled(t, env).Leader == "C" {
				to = "B"
			}
			out := e2etest.MustIdctl(t, env, "leader", "transfer", to)
			if out == "leader: "+to+"\n" {
				break
			}
			if attempt == transferAttempts {
				t.Fatalf("leader transfer %s = %q, %d times", to, out, attempt)
			}
			t.Logf("leader transfer %s = %q: the leader changed meanwhile; again", to, out)
		}
		// The transfer leaves a loaded machine electing now and then, and a change in flight
		// when the leader changes has an unknown outcome: both calls are retried, as the
		// refusal tells an operator to. Named D, the add is the same node's when retried (with
		// "-" a retry of an add that was acted on would ask for a second node at D's address),
		// and a remove of a tag retired already succeeds.
		e2etest.MustIdctlRetrying(t, env, "node", "add", "D", "--raft-addr", "raft-d:7000", "--grpc-addr", "raft-d:7070", "--non-voter")
		e2etest.MustIdctlRetrying(t, env, "node", "remove", "D")
		file := filepath.Join(t.TempDir(), "compose.backup")
		e2etest.MustIdctl(t, env, "backup", file)
		e2etest.WantIdctlRefusal(t, 1, env, []string{"restore", file}, "FAILED_PRECONDITION")
	})

	t.Run("tls", func(t *testing.T) {
		d.T = t
		certs := t.TempDir()
		e2etest.MustIdctl(t, nil, "certs", "ca", "--dir", certs)
		for _, n := range []string{"a", "b", "c"} {
			e2etest.MustIdctl(t, nil, "certs", "node", strings.ToUpper(n), "--dir", certs, "--host", "raft-"+n+",idnode-"+n)
		}
		e2etest.MustIdctl(t, nil, "certs", "client", "app", "--dir", certs)
		e2etest.MustIdctl(t, nil, "certs", "client", "ops", "--dir", certs, "--admin")
		// The nodes run as an unprivileged user, not the owner of these files: their keys must
		// be readable by it (deploy/docker-compose.tls.yml).
		for _, n := range []string{"A", "B", "C"} {
			if err := os.Chmod(filepath.Join(certs, n+".key"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		// No admin token this time (the plain run set one): admin goes by certificate.
		d.Env = append(d.Env, "IDNODE_CERTS="+certs, "IDNODE_ADMIN_TOKEN=")
		d.Use("docker-compose.yml", "docker-compose.tls.yml")
		ca := filepath.Join(certs, "ca.crt")
		tc, err := tlsconfig.Client(ca, filepath.Join(certs, "ops.crt"), filepath.Join(certs, "ops.key"), "")
		if err != nil {
			t.Fatal(err)
		}
		d.Up(credentials.NewTLS(tc))
		// as is idctl's environment for the cluster with client certificate name ("" for none).
		as := func(name string, addrs ...string) []string {
			env := []string{"IDNODE_ADDR=" + strings.Join(addrs, ","), "IDNODE_TLS_CA=" + ca}
			if name != "" {
				env = append(env, "IDNODE_TLS_CERT="+filepath.Join(certs, name+".crt"), "IDNODE_TLS_KEY="+filepath.Join(certs, name+".key"))
			}
			return env
		}
		st := e2etest.IdctlSettled(t, as("app", d.GRPCAddrs()...))
		if len(st.Nodes) != 3 {
			t.Fatalf("status over mTLS: %+v", st)
		}
		for _, n := range st.Nodes {
			if !n.Reachable || !n.Answered {
				t.Errorf("status over mTLS, node %s: %+v", n.Tag, n)
			}
		}
		for i, addr := range d.GRPCAddrs() {
			got := e2etest.MustIdctlRetrying(t, as("app", addr), "next", "orders|", "--request-id", fmt.Sprintf("tls-orders-%d", i))
			if want := fmt.Sprintf("orders/%d\n", i+1); got != want {
				t.Errorf("next via %s over mTLS = %q, want %q", addr, got, want)
			}
		}
		e2etest.WantIdctlFailure(t, 1, []string{"IDNODE_ADDR=" + d.GRPCAddrs()[0]}, []string{"status"}, "UNAVAILABLE")
		e2etest.WantIdctlFailure(t, 1, as("", d.GRPCAddrs()[0]), []string{"status"}, "UNAVAILABLE")
		// The host's calls reach the containers through Docker's port mapping, not loopback:
		// admin needs the admin certificate.
		e2etest.WantIdctlFailure(t, 1, as("app", d.GRPCAddrs()...), []string{"node", "remove", "Z"}, "PERMISSION_DENIED", tlsconfig.AdminUnit)
		e2etest.WantIdctlRefusal(t, 1, as("ops", d.GRPCAddrs()...), []string{"node", "remove", "Z"}, "NOT_FOUND")
		// The image's health check (`idnode health`) reads IDNODE_TLS_* too.
		name, args := d.ComposeCmd("ps", "-q")
		ids := strings.Fields(d.Must(e2etest.OpsDockerCmdTimeout, name, args...))
		if len(ids) != 3 {
			t.Fatalf("compose ps -q: %q", ids)
		}
		e2etest.Eventually(t, e2etest.OpsDockerUpTimeout, "the containers are healthy", func() error {
			for _, id := range ids {
				out, err := d.Run(e2etest.OpsDockerCmdTimeout, "docker", "inspect", "-f", "{{.State.Health.Status}}", id)
				if err != nil || strings.TrimSpace(out) != "healthy" {
					return fmt.Errorf("container %.12s: %s %v", id, strings.TrimSpace(out), err)
				}
			}
			return nil
		})
		metrics := d.HostOf["127.0.0.1:9101"]
		if metrics == "" {
			t.Fatal("deploy/docker-compose.yml no longer publishes metrics on 127.0.0.1:9101")
		}
		// An election on a busy machine leaves node A a candidate for a moment: the gauge is
		// read until it shows A as leader or follower.
		e2etest.Eventually(t, e2etest.LeaderTimeout, "node A's metrics to show it leader or follower", func() error {
			body := e2etest.Scrape(t, metrics)
			if got := e2etest.MetricValue(t, body, `idnode_raft_state{state="leader"}`) + e2etest.MetricValue(t, body, `idnode_raft_state{state="follower"}`); got != 1 {
				return fmt.Errorf("node A is neither leader nor follower:\n%s", grep(body, "idnode_raft_state"))
			}
			return nil
		})
	})
}
