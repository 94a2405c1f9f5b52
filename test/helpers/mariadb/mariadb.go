// Package mariadb runs a private MariaDB server, the MySQL-compatible one Debian ships, for a
// test: a data folder made by mariadb-install-db in a temporary folder, serving on one loopback
// port, a user with a password and a database of its own, stopped and removed when done. Nothing
// outside that folder is read or written, so any number of runs share a machine.
//
// Start is the program's form; ForTest is the test's, which skips without MariaDB and fails
// under CI=true, where .ci/run installs it.
package mariadb

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// User and Password are the account every DSN logs in as; Database the database it opens.
// The server listens on loopback only, so the password keeps nothing secret: it is there so
// that a test reaches the server the way an application does, with a password.
const (
	User     = "idnode"
	Password = "idnode-test"
	Database = "idnode"
)

// The programs of Debian's mariadb-server.
const (
	installDB = "/usr/bin/mariadb-install-db"
	serverBin = "/usr/sbin/mariadbd"
	clientBin = "/usr/bin/mariadb"
)

// Time limits: every wait in this package is bounded by one of these.
const (
	readyPoll   = 100 * time.Millisecond
	stopTimeout = 20 * time.Second
	maxLogBytes = 64 << 10
)

var (
	// ErrNotInstalled: no mariadb-install-db or mariadbd.
	ErrNotInstalled = errors.New("MariaDB is not installed (apt-get install mariadb-server)")
	// ErrNoMysqlUser: mariadbd refuses to run as root, and there is no mysql user to run it as.
	ErrNoMysqlUser = errors.New("running as root and there is no mysql user for mariadbd (apt-get install mariadb-server creates it)")
)

// Server is one running MariaDB server.
type Server struct {
	URL  string // mysql://idnode:idnode-test@127.0.0.1:PORT/idnode, as idctl adopt --mysql takes it
	DSN  string // idnode:idnode-test@tcp(127.0.0.1:PORT)/idnode, the Go driver's form
	Addr string // 127.0.0.1:PORT

	base string // the temporary folder: data/, init.sql, server.log
	cmd  *exec.Cmd
	done chan struct{} // closed once the server process has been reaped
}

// Start makes a data folder in a new temporary folder and serves it on addr (a free
// 127.0.0.1:PORT). It returns once the server accepts User's connections, or ctx ends. Stop
// stops it and removes the folder.
func Start(ctx context.Context, addr string) (*Server, error) {
	host, port, ok := strings.Cut(addr, ":")
	if !ok || host != "127.0.0.1" || port == "" {
		return nil, fmt.Errorf("address %q: want 127.0.0.1:PORT", addr)
	}
	for _, bin := range []string{installDB, serverBin, clientBin} {
		if _, err := os.Stat(bin); err != nil {
			return nil, ErrNotInstalled
		}
	}
	base, err := os.MkdirTemp("", "idnode-mariadb-")
	if err != nil {
		return nil, err
	}
	s := &Server{
		URL:  fmt.Sprintf("mysql://%s:%s@%s/%s", User, url.QueryEscape(Password), addr, Database),
		DSN:  fmt.Sprintf("%s:%s@tcp(%s)/%s", User, Password, addr, Database),
		Addr: addr,
		base: base,
	}
	if err := s.start(ctx, port); err != nil {
		return nil, errors.Join(err, s.Stop())
	}
	return s, nil
}

// initSQL makes the test's user and database each time the server starts: one statement a
// line, as --init-file reads them.
var initSQL = strings.Join([]string{
	fmt.Sprintf("CREATE USER IF NOT EXISTS '%s'@'127.0.0.1' IDENTIFIED BY '%s';", User, Password),
	fmt.Sprintf("GRANT ALL ON *.* TO '%s'@'127.0.0.1';", User),
	fmt.Sprintf("CREATE DATABASE IF NOT EXISTS %s;", Database),
}, "\n") + "\n"

func (s *Server) start(ctx context.Context, port string) error {
	// mariadbd started as root switches to --user itself; the files it opens must be that
	// user's.
	var asUser []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("mysql")
		if err != nil {
			return ErrNoMysqlUser
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := errors.Join(os.Chmod(s.base, 0o755), os.Chown(s.base, uid, gid)); err != nil {
			return err
		}
		asUser = []string{"--user=mysql"}
	}
	data := filepath.Join(s.base, "data")
	initFile := filepath.Join(s.base, "init.sql")
	if err := os.WriteFile(initFile, []byte(initSQL), 0o644); err != nil {
		return err
	}
	// --no-defaults everywhere: the machine's /etc/mysql settings (a data folder, a socket)
	// are another server's.
	install := exec.CommandContext(ctx, installDB, append([]string{"--no-defaults", "--datadir=" + data,
		"--auth-root-authentication-method=socket", "--skip-test-db"}, asUser...)...)
	install.Dir, install.SysProcAttr = s.base, sysProcAttr()
	if out, err := install.CombinedOutput(); err != nil {
		return fmt.Errorf("mariadb-install-db: %w\n%s", err, out)
	}
	// --skip-name-resolve: 127.0.0.1 is the user's host as written, with no DNS asked.
	args := append([]string{"--no-defaults", "--datadir=" + data, "--port=" + port, "--bind-address=127.0.0.1",
		"--socket=" + filepath.Join(s.base, "mariadb.sock"), "--pid-file=" + filepath.Join(s.base, "mariadb.pid"),
		"--log-error=" + s.logFile(), "--skip-name-resolve", "--init-file=" + initFile}, asUser...)
	s.cmd = exec.Command(serverBin, args...)
	s.cmd.Dir, s.cmd.SysProcAttr = s.base, sysProcAttr()
	if err := s.cmd.Start(); err != nil {
		return fmt.Errorf("starting mariadbd: %w", err)
	}
	s.done = make(chan struct{})
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	return s.waitReady(ctx)
}

// waitReady asks the server for its user until it answers (the init file has run), the server
// exits, or ctx ends.
func (s *Server) waitReady(ctx context.Context) error {
	tick := time.NewTicker(readyPoll)
	defer tick.Stop()
	for {
		if out, err := s.SQL(ctx, "SELECT current_user()"); err == nil && strings.HasPrefix(out, User+"@") {
			return nil
		}
		select {
		case <-s.done:
			return fmt.Errorf("mariadbd exited before accepting connections:\n%s", s.Log())
		case <-ctx.Done():
			return fmt.Errorf("mariadbd did not accept connections on %s: %w\n%s", s.Addr, ctx.Err(), s.Log())
		case <-tick.C:
		}
	}
}

// SQL runs statements (one or more, ;-separated) in Database as User with the mariadb client
// and returns what it printed: rows one a line, fields separated by tabs, no header.
func (s *Server) SQL(ctx context.Context, sql string) (string, error) {
	host, port, _ := strings.Cut(s.Addr, ":")
	cmd := exec.CommandContext(ctx, clientBin, "--no-defaults", "--batch", "--skip-column-names",
		"--protocol=TCP", "--host="+host, "--port="+port, "--user="+User, "--database="+Database, "--execute="+sql)
	// MYSQL_PWD: the password kept off the command line, as an operator would.
	cmd.Env = append(os.Environ(), "MYSQL_PWD="+Password)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("mariadb --execute %q: %w: %s", sql, err, strings.TrimSpace(stderr.String()))
	}
	return stdout.String(), nil
}

func (s *Server) logFile() string { return filepath.Join(s.base, "server.log") }

// Log is the last of what the server logged.
func (s *Server) Log() string {
	f, err := os.Open(s.logFile())
	if err != nil {
		return err.Error()
	}
	defer func() { _ = f.Close() }()
	if info, err := f.Stat(); err == nil && info.Size() > maxLogBytes {
		_, _ = f.Seek(-maxLogBytes, io.SeekEnd)
	}
	b, _ := io.ReadAll(f)
	return string(b)
}

// Stop shuts the server down (SIGTERM: MariaDB's normal shutdown), kills it if it is still
// running after stopTimeout, and removes its folder.
func (s *Server) Stop() error {
	var err error
	if s.cmd != nil && s.cmd.Process != nil {
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.done:
		case <-time.After(stopTimeout):
			_ = s.cmd.Process.Kill()
			<-s.done
			err = fmt.Errorf("mariadbd did not stop within %v of SIGTERM; killed", stopTimeout)
		}
	}
	return errors.Join(err, os.RemoveAll(s.base))
}
