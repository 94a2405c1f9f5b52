package clients

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// clientProgram is a program outside this module: it imports github.com/idnode/idnode/client
// as an application would, dials the node given as its first argument, takes 100 × 2000
// NextID("orders") from 100 goroutines, closes the client (which returns the unused tail of
// the range, or a prefetched range whole) and writes the IDs, one per line, to the file named
// by its second argument. It prints how many ranges its generator fetched.
const clientProgram = `package main

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/idnode/idnode/client"
)

func main() {
	if err := run(os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "client program:", err)
		os.Exit(1)
	}
}

func run(addr, out string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.Dial(ctx, []string{addr})
	if err != nil {
		return err
	}
	const workers, each = 100, 2000
	ids := make([][]string, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for range each {
				id, err := c.NextID(ctx, "orders")
				if err != nil {
					errs[w] = err
					return
				}
				ids[w] = append(ids[w], id)
			}
		})
	}
	wg.Wait()
	for w, err := range errs {
		if err != nil {
			return fmt.Errorf("worker %d: %w", w, err)
		}
	}
	g, err := c.Generator("orders")
	if err != nil {
		return err
	}
	if err := c.Close(ctx); err != nil {
		return fmt.Errorf("Close: %w", err)
	}
	fmt.Println("fetches", g.Stats().Fetches)
	f, err := os.Create(out)
	if err != nil {
		return err
	}
	bw := bufio.NewWriter(f)
	for _, list := range ids {
		for _, id := range list {
			fmt.Fprintln(bw, id)
		}
	}
	if err := bw.Flush(); err != nil {
		return err
	}
	return f.Close()
}
`

// buildClientProgram writes clientProgram into a module of its own that requires
// github.com/idnode/idnode (replaced by this checkout) and builds it.
func buildClientProgram(t *testing.T) string {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	gomod := fmt.Sprintf("module example.com/idnodeuser\n\ngo 1.26.0\n\nrequire %s v0.0.0\n\nreplace %s => %s\n", e2etest.ModuleName, e2etest.ModuleName, root)
	sum, err := os.ReadFile(filepath.Join(root, "go.sum"))
	if err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string][]byte{"go.mod": []byte(gomod), "go.sum": sum, "main.go": []byte(clientProgram)} {
		if err := os.WriteFile(filepath.Join(dir, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	bin := filepath.Join(dir, "idnodeuser")
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, ".")
	cmd.Dir = dir
	// -mod=mod lets go fill in the requirements of the replaced module (from the module cache,
	// or the proxy); GOWORK=off keeps a developer's go.work out of it. The run's own flags stay:
	// with CI's -trimpath the build finds the packages the tests' programs compiled in the
	// build cache (without it a cold machine compiled them all again, past BuildTimeout).
	cmd.Env = append(os.Environ(), "GOFLAGS="+os.Getenv("GOFLAGS")+" -mod=mod -buildvcs=false", "GOWORK=off")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("building the client program: %v\n%s", err, out)
	}
	return bin
}

// TestClientOutsideProgramNoDuplicatesAndTailReturned is the acceptance test: a
// program outside the project gets 200,000 distinct HiLo IDs from one node, and after its
// Close the next range a fresh caller gets starts at 200001: Close gave back the range in use's
// tail and the range it prefetched.
func TestClientOutsideProgramNoDuplicatesAndTailReturned(t *testing.T) {
	t.Parallel()
	bin := buildClientProgram(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{})
	p.WaitServing(e2etest.ServeTimeout)

	out := filepath.Join(t.TempDir(), "ids.txt")
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	run := exec.CommandContext(ctx, bin, p.GRPCAddr, out)
	msg, err := run.CombinedOutput()
	if err != nil {
		t.Fatalf("client program: %v\n%s", err, msg)
	}
	var fetches int64
	if _, err := fmt.Sscanf(string(msg), "fetches %d", &fetches); err != nil {
		t.Fatalf("client program's output %q: %v", msg, err)
	}

	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	re := regexp.MustCompile(`^orders/[0-9]+-A$`)
	seen := make(map[string]struct{}, 200_000)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		id := sc.Text()
		if !re.MatchString(id) {
			t.Fatalf("ID %q does not match %v", id, re)
		}
		if _, dup := seen[id]; dup {
			t.Fatalf("ID %q handed out twice", id)
		}
		seen[id] = struct{}{}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(seen) != 200_000 {
		t.Fatalf("%d distinct IDs, want 200000", len(seen))
	}
	for _, n := range []int{1, 100_000, 200_000} {
		if _, ok := seen[fmt.Sprintf("orders/%d-A", n)]; !ok {
			t.Errorf("orders/%d-A missing: the IDs are not 1…200000", n)
		}
	}

	ids, _ := e2etest.Dial(t, p.GRPCAddr)
	resp, err := ids.NextHiLo(e2etest.RPCCtx(t), &idnodev1.NextHiLoRequest{Tag: "orders"})
	if err != nil {
		t.Fatalf("NextHiLo(orders) after the program: %v", err)
	}
	if resp.GetLow() != 200_001 {
		t.Fatalf("NextHiLo(orders) after the program's Close = [%d, %d], want it to start at 200001 (%d ranges fetched)", resp.GetLow(), resp.GetHigh(), fetches)
	}
	if !strings.HasPrefix(resp.GetPrefix(), "orders") {
		t.Errorf("prefix %q", resp.GetPrefix())
	}
}
