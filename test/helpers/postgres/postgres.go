// Package postgres runs a private PostgreSQL server for a test or a benchmark: Debian's
// postgresql package, a cluster made by initdb in a temporary folder, serving on one loopback
// port with trust authentication and no Unix socket, stopped and removed when done. Nothing
// outside that folder is read or written, so any number of runs share a machine.
//
// Start is the program's form (test/conformance/idcluster serves one to the Java and
// TypeScript clients' tests); ForTest is the test's, which skips without PostgreSQL and fails
// under CI=true, where .ci/run installs it.
package postgres

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

// User is the superuser initdb makes, the user of every DSN; Database the database it makes.
const (
	User     = "idnode"
	Database = "postgres"
)

// Time limits: every wait in this package is bounded by one of these.
const (
	readyPoll   = 100 * time.Millisecond
	stopTimeout = 20 * time.Second
	maxLogBytes = 64 << 10
)

var (
	// ErrNotInstalled: no /usr/lib/postgresql/*/bin/initdb.
	ErrNotInstalled = errors.New("PostgreSQL is not installed (apt-get install postgresql)")
	// ErrNoPostgresUser: initdb and postgres refuse to run as root, and there is no postgres
	// user to run them as.
	ErrNoPostgresUser = errors.New("running as root and there is no postgres user for initdb (apt-get install postgresql creates it)")
)

// Server is one running PostgreSQL server.
type Server struct {
	DSN    string // postgres://idnode@127.0.0.1:PORT/postgres?sslmode=disable
	Addr   string // 127.0.0.1:PORT
	BinDir string // /usr/lib/postgresql/<major>/bin: initdb, postgres, pg_isready

	base string // the temporary folder: data/ and nothing else
	attr *syscall.SysProcAttr
	cmd  *exec.Cmd
	done chan struct{} // closed once the server process has been reaped
	logs *boundedLog
}

// BinDir is the newest installed major version's folder of server programs (Debian keeps
// them out of PATH).
func BinDir() (string, error) {
	bins, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(bins) == 0 {
		return "", ErrNotInstalled
	}
	slices.SortFunc(bins, func(a, b string) int { return major(a) - major(b) })
	return filepath.Dir(bins[len(bins)-1]), nil
}

// major is the major version in a path like /usr/lib/postgresql/15/bin/initdb.
func major(path string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(filepath.Dir(path))))
	return n
}

// Start makes a cluster in a new temporary folder and serves it on addr (a free
// 127.0.0.1:PORT), with extra settings as -c name=value pairs. It returns once the server
// accepts connections (pg_isready), or ctx ends. Stop stops it and removes the folder.
func Start(ctx context.Context, addr string, settings ...string) (*Server, error) {
	binDir, err := BinDir()
	if err != nil {
		return nil, err
	}
	host, port, err := splitLoopback(addr)
	if err != nil {
		return nil, err
	}
	base, err := os.MkdirTemp("", "idnode-pg-")
	if err != nil {
		return nil, err
	}
	s := &Server{
		DSN:    fmt.Sprintf("postgres://%s@%s/%s?sslmode=disable", User, addr, Database),
		Addr:   addr,
		BinDir: binDir,
		base:   base,
		attr:   sysProcAttr(),
		logs:   &boundedLog{},
	}
	if err := s.start(ctx, host, port, settings); err != nil {
		_ = s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) start(ctx context.Context, host, port string, settings []string) error {
	if os.Geteuid() == 0 {
		if err := s.runAsPostgres(); err != nil {
			return err
		}
	}
	data := filepath.Join(s.base, "data")
	// --no-locale: text sorts byte by byte, the same on every machine. --no-sync: only initdb's
	// own files skip the fsync; the server syncs as usual.
	initdb := exec.CommandContext(ctx, filepath.Join(s.BinDir, "initdb"), "-D", data, "-U", User, "--auth=trust", "-E", "UTF8", "--no-locale", "--no-sync")
	initdb.Dir, initdb.SysProcAttr = s.base, s.attr
	if out, err := initdb.CombinedOutput(); err != nil {
		return fmt.Errorf("initdb: %w\n%s", err, out)
	}
	args := []string{"-D", data, "-p", port, "-c", "listen_addresses=" + host, "-c", "unix_socket_directories="}
	for _, kv := range settings {
		args = append(args, "-c", kv)
	}
	s.cmd = exec.Command(filepath.Join(s.BinDir, "postgres"), args...)
	s.cmd.Dir, s.cmd.SysProcAttr = s.base, s.attr
	s.cmd.Stdout, s.cmd.Stderr = s.logs, s.logs
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting postgres: %w", err)
	}
	s.done = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	return s.waitReady(ctx, host, port)
}

// runAsPostgres makes the programs run as the postgres user, the owner of the folder.
func (s *Server) runAsPostgres() error {
	u, err := user.Lookup("postgres")
	if err != nil {
		return ErrNoPostgresUser
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	s.attr.Credential = &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
	if err := os.Chmod(s.base, 0o755); err != nil {
		return err
	}
	return os.Chown(s.base, uid, gid)
}

// waitReady polls pg_isready until the server accepts connections, exits, or ctx ends.
func (s *Server) waitReady(ctx context.Context, host, port string) error {
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		check := exec.CommandContext(ctx, filepath.Join(s.BinDir, "pg_isready"), "-q", "-h", host, "-p", port, "-U", User, "-d", Database)
		if check.Run() == nil {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("postgres exited before accepting connections:\n%s", s.Log())
		case <-ctx.Done():
			return fmt.Errorf("postgres did not accept connections on %s:%s: %w\n%s", host, port, ctx.Err(), s.Log())
		case <-tick.C:
		}
	}
}

// Psql runs one psql command (-c sql) against the server and returns what it printed:
// unaligned rows, one a line, fields separated by |, no header.
func (s *Server) Psql(ctx context.Context, sql string) (string, error) {
	cmd := exec.CommandContext(ctx, filepath.Join(s.BinDir, "psql"), "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", s.DSN, "-c", sql)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("psql -c %q: %w: %s", sql, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

// Log is the last of what the server printed.
func (s *Server) Log() string { return s.logs.String() }

// Stop shuts the server down (SIGINT: PostgreSQL's fast shutdown, open sessions rolled back),
// kills it if it is still running after stopTimeout, and removes its folder.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGINT)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.done
			err = fmt.Errorf("postgres did not stop within %v of SIGINT; killed", stopTimeout)
		}
	}
	return errors.Join(err, os.RemoveAll(s.base))
}

// splitLoopback checks that addr is 127.0.0.1:PORT and returns its two parts.
func splitLoopback(addr string) (host, port string, err error) {
	host, port, ok := strings.Cut(addr, ":")
	if !ok || host != "127.0.0.1" || port == "" {
		return "", "", fmt.Errorf("address %q: want 127.0.0.1:PORT", addr)
	}
	return host, port, nil
}

// boundedLog keeps the last maxLogBytes of what the server wrote, for an error's message.
type boundedLog struct {
	mu sync.Mutex
	b  []byte
}

func (l *boundedLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b = append(l.b, p...)
	if over := len(l.b) - maxLogBytes; over > 0 {
		l.b = append(l.b[:0], l.b[over:]...)
	}
	return len(p), nil
}

func (l *boundedLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return string(l.b)
}
