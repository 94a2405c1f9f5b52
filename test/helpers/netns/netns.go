//go:build linux

package netns

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/filelock"
)

const (
	// subnets is how many /24s 198.18.0.0/15 holds; a Net takes one of them.
	subnets = 512
	// testSide is the last byte of the test's own address in its subnet; hosts get 1, 2, …
	testSide = 254
	// cmdTimeout bounds one ip or nft command.
	cmdTimeout = 10 * time.Second
	// namesDir holds the kernel's named namespaces (ip netns add).
	namesDir = "/run/netns"
)

// hostName is a host's name: short, because it goes into interface names (15 bytes at most).
var hostName = regexp.MustCompile(`^[A-Za-z0-9]{1,8}$`)

// Net is a set of hosts on one subnet. Its namespaces go when the test ends.
type Net struct {
	t     testing.TB
	n     int // which /24 of 198.18.0.0/15
	hosts []string
	ip    string // iproute2's ip
	nft   string
}

// Start makes one host per name (1–8 letters or digits each, at most testSide-1 of them),
// each linked to every other and to the test's namespace, and removes them when the test ends.
// It takes a subnet no other test process on the machine holds (a lock file under
// os.TempDir()), and first removes the namespaces a killed test left on it.
func Start(t testing.TB, hosts ...string) *Net {
	t.Helper()
	Need(t)
	if len(hosts) == 0 || len(hosts) >= testSide {
		t.Fatalf("netns: %d hosts; want 1 to %d", len(hosts), testSide-1)
	}
	for i, h := range hosts {
		if !hostName.MatchString(h) {
			t.Fatalf("netns: host name %q: want 1 to 8 letters or digits", h)
		}
		for _, o := range hosts[:i] {
			if o == h {
				t.Fatalf("netns: host %s named twice", h)
			}
		}
	}
	ip, _ := exec.LookPath("ip")
	nft, _ := exec.LookPath("nft")
	n := &Net{t: t, n: reserveSubnet(t), hosts: hosts, ip: ip, nft: nft}
	n.removeLeftovers()
	t.Cleanup(n.removeLeftovers)
	for i, h := range hosts {
		n.makeHost(i, h)
	}
	for i := range hosts {
		for j := i + 1; j < len(hosts); j++ {
			n.link(i, j)
		}
	}
	return n
}

// reserveSubnet locks the file of a free subnet and keeps it open until the test ends; the
// kernel drops the lock when the process dies.
func reserveSubnet(t testing.TB) int {
	t.Helper()
	start := rand.IntN(subnets)
	for i := range subnets {
		n := (start + i) % subnets
		lock, err := lockSubnet(n)
		if err != nil {
			t.Fatalf("netns: %v", err)
		}
		if lock != nil {
			t.Cleanup(func() { _ = lock.Close() })
			return n
		}
	}
	t.Fatalf("netns: all %d subnets are held by other test processes", subnets)
	return 0
}

// lockSubnet takes the lock of subnet n without waiting (filelock.TryLock): the open, locked
// file, or nil when a live process holds it.
func lockSubnet(n int) (*os.File, error) {
	dir := filepath.Join(os.TempDir(), "idnode-test-netns")
	if err := os.MkdirAll(dir, 0o777); err != nil {
		return nil, err
	}
	return filelock.TryLock(filepath.Join(dir, strconv.Itoa(n)))
}

// addr is the address of the host at index i (testSide: the test's own).
func (n *Net) addr(i int) string {
	return fmt.Sprintf("198.%d.%d.%d", 18+n.n/256, n.n%256, i)
}

// name is the namespace of host h.
func (n *Net) name(h string) string { return fmt.Sprintf("idnode-%d-%s", n.n, h) }

// Addr is host h's address, which its processes listen on and everyone reaches it at.
func (n *Net) Addr(h string) string { return n.addr(n.index(h) + 1) }

// TestAddr is the test's own address on the links: a server of the test listening there is
// reached by every host.
func (n *Net) TestAddr() string { return n.addr(testSide) }

func (n *Net) index(h string) int {
	for i, o := range n.hosts {
		if o == h {
			return i
		}
	}
	n.t.Fatalf("netns: no host %s", h)
	return -1
}

// Command is the command line that runs argv on host h: ip netns exec, which execs argv in
// the same process, so its pid and signals are argv's.
func (n *Net) Command(h string, argv ...string) []string {
	return append([]string{n.ip, "netns", "exec", n.name(h)}, argv...)
}

// makeHost makes host h (index i): a namespace whose loopback holds its address, and a veth
// pair to the test's namespace, where the other end has the test's address.
func (n *Net) makeHost(i int, h string) {
	ns, self, test := n.name(h), n.addr(i+1), n.addr(testSide)
	outside := fmt.Sprintf("idn%d%s", n.n, h)
	n.run(n.ip, "netns", "add", ns)
	n.run(n.ip, "-n", ns, "link", "set", "lo", "up")
	n.run(n.ip, "-n", ns, "addr", "add", self+"/32", "dev", "lo")
	n.run(n.ip, "link", "add", outside, "type", "veth", "peer", "name", "test", "netns", ns)
	n.run(n.ip, "addr", "add", test+"/32", "dev", outside)
	n.run(n.ip, "link", "set", outside, "up")
	n.run(n.ip, "-n", ns, "link", "set", "test", "up")
	n.run(n.ip, "route", "add", self+"/32", "dev", outside, "src", test)
	n.run(n.ip, "-n", ns, "route", "add", test+"/32", "dev", "test", "src", self)
}

// link joins hosts i and j by a veth pair, each end named after the host it leads to.
func (n *Net) link(i, j int) {
	hi, hj := n.hosts[i], n.hosts[j]
	nsi, nsj := n.name(hi), n.name(hj)
	n.run(n.ip, "-n", nsi, "link", "add", "to"+hj, "type", "veth", "peer", "name", "to"+hi, "netns", nsj)
	n.run(n.ip, "-n", nsi, "link", "set", "to"+hj, "up")
	n.run(n.ip, "-n", nsj, "link", "set", "to"+hi, "up")
	n.run(n.ip, "-n", nsi, "route", "add", n.addr(j+1)+"/32", "dev", "to"+hj, "src", n.addr(i+1))
	n.run(n.ip, "-n", nsj, "route", "add", n.addr(i+1)+"/32", "dev", "to"+hi, "src", n.addr(j+1))
}

// leftName is the name of a namespace a Net made: its subnet, then its host.
var leftName = regexp.MustCompile(`^idnode-([0-9]+)-[A-Za-z0-9]+$`)

// removeLeftovers deletes the namespaces of every subnet no live process holds, this one's
// included: those a killed test left, before the hosts are made, and this test's own when it
// ends. The veth pairs and routes go with them.
func (n *Net) removeLeftovers() {
	entries, err := os.ReadDir(namesDir)
	if err != nil {
		return // none yet
	}
	free := map[string]bool{fmt.Sprint(n.n): true}
	for _, e := range entries {
		m := leftName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		sub, ok := free[m[1]]
		if !ok {
			k, err := strconv.Atoi(m[1])
			var lock *os.File
			if err == nil && k < subnets {
				lock, err = lockSubnet(k)
			}
			if sub = err == nil && lock != nil; sub {
				defer lock.Close() // held until its namespaces are gone
			}
			free[m[1]] = sub
		}
		if !sub {
			continue
		}
		if out, err := n.command("", n.ip, "netns", "del", e.Name()); err != nil {
			n.t.Errorf("netns: %v\n%s", err, out)
		}
	}
}

// run runs a command and fails the test if it fails.
func (n *Net) run(name string, args ...string) {
	n.t.Helper()
	n.runInput("", name, args...)
}

// runInput is run with stdin as the command's input.
func (n *Net) runInput(stdin, name string, args ...string) {
	n.t.Helper()
	if out, err := n.command(stdin, name, args...); err != nil {
		n.t.Fatalf("netns: %v\n%s", err, out)
	}
}

// command runs a command with stdin as its input, bounded by cmdTimeout, and returns its
// output.
func (n *Net) command(stdin, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), cmdTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdin = strings.NewReader(stdin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		err = fmt.Errorf("%s %s: %w", filepath.Base(name), strings.Join(args, " "), err)
	}
	return string(out), err
}
