package conformance_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// The Go client's table of docs/fault-table.md sits between these lines; the rest of the page
// is prose and the other clients' tables.
const (
	goTableBegin = "<!-- begin go-client: written by TestGoClientFaultTable -->"
	goTableEnd   = "<!-- end go-client -->"
)

// faultRow is what an application saw in one situation.
type faultRow struct {
	situation string
	took      time.Duration
	err       error
	note      string // what the outcome was, when it was no error
}

// TestGoClientFaultTable measures what an application using the Go client sees in each
// situation of docs/fault-table.md, one after another on one three-node cluster, and checks
// the page's Go client table against it: the error types, codes and reasons must be the
// committed ones; the times are shown as measured once and never compared.
// IDNODE_WRITE_FAULT_TABLE=1 writes the table instead.
func TestGoClientFaultTable(t *testing.T) {
	env := conformancetest.Env(t)
	cp := startControlProgram(t, env)
	info, err := cp.start([]byte(`{"nodes": 3}`))
	if err != nil {
		t.Fatal(err)
	}
	defer func() {
		if _, err := cp.send(map[string]any{"cmd": "teardown"}); err != nil {
			t.Error(err)
		}
	}()
	var addrs []string
	for _, n := range info.Nodes {
		addrs = append(addrs, n.GRPC)
	}
	// An application's client: the default options, its gaps logged where nobody reads.
	c, err := client.Dial(context.Background(), addrs, client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close(context.Background())
	rows := measureFaults(t, cp, c)

	page := filepath.Join(conformancetest.RepoRoot(t), "docs", "fault-table.md")
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	before, rest, ok1 := strings.Cut(string(text), goTableBegin+"\n")
	committed, after, ok2 := strings.Cut(rest, goTableEnd)
	if !ok1 || !ok2 {
		t.Fatalf("%s has no Go client table between %q and %q", page, goTableBegin, goTableEnd)
	}
	measured := renderFaultTable(rows)
	if os.Getenv("IDNODE_WRITE_FAULT_TABLE") == "1" {
		if err := os.WriteFile(page, []byte(before+goTableBegin+"\n"+measured+goTableEnd+after), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if got, want := withoutTimes(measured), withoutTimes(committed); got != want {
		t.Errorf("docs/fault-table.md's Go client table differs from what the client does now "+
			"(IDNODE_WRITE_FAULT_TABLE=1 rewrites it); measured:\n%s\ncommitted:\n%s", measured, committed)
	}
}

// measureFaults makes the calls of each situation through c, breaking the cluster on the way:
// the leader killed, then the last follower (no quorum), then every node.
func measureFaults(t *testing.T, cp *controlProgram, c *client.Client) []faultRow {
	fault := func(cmd, node string) {
		t.Helper()
		if _, err := cp.send(map[string]any{"cmd": cmd, "node": node}); err != nil {
			t.Fatal(err)
		}
	}
	measure := func(situation string, deadline time.Duration, call func(context.Context) error) faultRow {
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		defer cancel()
		began := time.Now()
		err := call(ctx)
		return faultRow{situation: situation, took: time.Since(began), err: err}
	}
	identity := func(ctx context.Context) error {
		_, err := c.NextIdentity(ctx, "orders", 1)
		return err
	}
	warm, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := identity(warm); err != nil {
		t.Fatal(err)
	}
	if _, err := c.NextID(warm, "receipts"); err != nil { // a HiLo range for Close to give back
		t.Fatal(err)
	}

	var rows []faultRow
	fault("kill", "leader")
	r := measure("leader killed: an identity right after (10 s deadline)", 10*time.Second, identity)
	r.note = "none: the new leader answers"
	rows = append(rows, r)
	if r.err != nil {
		t.Fatalf("an identity after the leader's kill: %v", r.err)
	}

	fault("kill", "followers")
	rows = append(rows, measure("no quorum: an identity from the leader left alone (4 s deadline)", 4*time.Second, identity))
	rows = append(rows, measure("caller's deadline: a HiLo ID waiting for its first range under no quorum (1 s deadline)",
		time.Second, func(ctx context.Context) error {
			_, err := c.NextID(ctx, "invoices")
			return err
		}))

	fault("kill", "all")
	rows = append(rows, measure("all nodes down: an identity (2 s deadline)", 2*time.Second, identity))
	r = measure("client closed: Close holding a HiLo range, every node down (no deadline)", time.Hour, func(context.Context) error {
		return c.Close(context.Background())
	})
	r.note = "none: nil, the numbers it held logged as a gap"
	if c.Unreturned() == 0 {
		t.Errorf("Close with every node down gave back its HiLo range, or did not count it as a gap")
	}
	rows = append(rows, r)
	rows = append(rows, measure("client closed: an identity after Close", time.Second, identity))
	return rows
}

// renderFaultTable is the Go client's table, one row per situation.
func renderFaultTable(rows []faultRow) string {
	var b strings.Builder
	b.WriteString("| situation | time to answer | error | gRPC code | reason |\n|---|---|---|---|---|\n")
	for _, r := range rows {
		errType, code, why := errorKind(r.err), "—", "—"
		if r.err != nil {
			code = reason.CodeName(status.Code(r.err))
			if s := reason.Of(r.err); s != "" {
				why = s
			}
		} else {
			errType = r.note
		}
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s |\n", r.situation, shownTime(r.took), errType, code, why)
	}
	return b.String()
}

// errorKind names what an application matches err with.
func errorKind(err error) string {
	var nf *client.NodesFailedError
	switch _, isStatus := status.FromError(err); {
	case err == nil:
		return "none"
	case errors.Is(err, client.ErrClosed):
		return "`client.ErrClosed`"
	case errors.As(err, &nf):
		return "`*client.NodesFailedError`"
	case isStatus:
		return "a gRPC status error"
	default:
		return fmt.Sprintf("`%T`", err)
	}
}

// shownTime is a measured time as the table shows it.
func shownTime(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "< 1 ms"
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

// withoutTimes blanks the time column of a table, which is measured and not compared.
func withoutTimes(table string) string {
	lines := strings.Split(strings.TrimSpace(table), "\n")
	for i, line := range lines {
		if cells := strings.Split(line, "|"); len(cells) > 3 && i >= 2 {
			cells[2] = " "
			lines[i] = strings.Join(cells, "|")
		}
	}
	return strings.Join(lines, "\n")
}
