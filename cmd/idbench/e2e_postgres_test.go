//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// TestE2EPostgres runs the sequence workload against a private PostgreSQL server, when Debian's
// postgresql package is installed (bench/compare.sh installs it).
func TestE2EPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("starts PostgreSQL")
	}
	dsn := startPostgres(t)

	res, code, stderr := idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "8", "--duration", "1s", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 {
		t.Fatalf("nextval: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	c := res.Sequence
	if c == nil || !c.Verified || res.Ops <= 0 || res.IDs != res.Ops || res.Errors != 0 || c.Successes != res.Ops || c.CounterStart != 0 || c.CounterEnd != res.Ops {
		t.Fatalf("nextval: %d ops, %d errors %v, check %+v; want a verified sequence 0→ops", res.Ops, res.Errors, res.ErrorsByCode, c)
	}
	// Again on the same sequence: the check counts from where it stood.
	first := c.CounterEnd
	res, code, stderr = idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "4", "--ops", "30", "--progress=false", "--prefix", "t")
	if res == nil || code != 0 || res.Sequence == nil || !res.Sequence.Verified || res.Sequence.CounterStart != first || res.Sequence.CounterEnd != first+30 {
		t.Fatalf("nextval again: exit %d, result %+v, stderr:\n%s", code, res, stderr)
	}
	// A name that needs quoting names that sequence, not another one or a syntax error.
	odd := `Odd'Name"Seq`
	res, code, stderr = idbench(t, "--target", "postgres", "--dsn", dsn, "--concurrency", "2", "--ops", "10", "--progress=false", "--prefix", odd)
	if res == nil || code != 0 || res.Sequence == nil || !res.Sequence.Verified || res.Sequence.CounterEnd != 10 {
		t.Fatalf("nextval on %q: exit %d, result %+v, stderr:\n%s", odd, code, res, stderr)
	}
	ctx, cancel := context.WithTimeout(context.Background(), serveTimeout)
	defer cancel()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var names []string
	rows, _ := conn.Query(ctx, "SELECT sequencename FROM pg_sequences ORDER BY 1")
	if names, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(names, []string{odd, "t"}) {
		t.Errorf("sequences %q, want %q and t", names, odd)
	}
}

// startPostgres initdbs a cluster in a temp dir, starts it on a free loopback port (trust
// authentication, no Unix socket) and returns its DSN. initdb and postgres refuse to run as
// root, so as root they run as the postgres user the Debian package creates.
func startPostgres(t *testing.T) string {
	t.Helper()
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		missingTool(t, "PostgreSQL is not installed (apt-get install postgresql)")
	}
	slices.SortFunc(bins, func(a, b string) int { return pgMajor(a) - pgMajor(b) })
	binDir := filepath.Dir(bins[len(bins)-1])

	var attr syscall.SysProcAttr
	attr.Pdeathsig = syscall.SIGKILL
	base, err := os.MkdirTemp("", "idbench-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(base) })
	data := filepath.Join(base, "data")
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			missingTool(t, "running as root and there is no postgres user for initdb (apt-get install postgresql creates it)")
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
		if err := os.Chmod(base, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(base, uid, gid); err != nil {
			t.Fatal(err)
		}
	}

	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	// --no-sync: only initdb's own files skip the fsync; the server below syncs as usual.
	initdb := exec.CommandContext(ctx, filepath.Join(binDir, "initdb"), "-D", data, "-U", "idbench", "--auth=trust", "-E", "UTF8", "--no-sync")
	initdb.Dir, initdb.SysProcAttr = base, &attr
	if out, err := initdb.CombinedOutput(); err != nil {
		t.Fatalf("initdb: %v\n%s", err, out)
	}
	addr := freeAddr(t)
	_, port, _ := strings.Cut(addr, ":")
	server := exec.Command(filepath.Join(binDir, "postgres"), "-D", data, "-p", port,
		"-c", "listen_addresses=127.0.0.1", "-c", "unix_socket_directories=")
	server.Dir, server.SysProcAttr = base, &attr
	startCmd(t, server)

	dsn := fmt.Sprintf("postgres://idbench@%s/postgres?sslmode=disable", addr)
	waitUntil(t, "PostgreSQL", serveTimeout, func() error {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		c, err := pgx.Connect(ctx, dsn)
		if err != nil {
			return err
		}
		return c.Close(ctx)
	})
	return dsn
}

// pgMajor is the major version in a path like /usr/lib/postgresql/15/bin/initdb.
func pgMajor(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}
