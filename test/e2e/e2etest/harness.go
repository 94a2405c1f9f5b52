// Package e2etest is the harness of the end-to-end tests under test/e2e: it builds the real
// idnode binary and runs it as separate processes (single nodes, three-node clusters), talks
// to them over gRPC and HTTP, drives idctl and Docker compose, and sweeps the compose
// projects a run started. No fakes, no in-process servers. Each test package's TestMain is
// Main.
package e2etest

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/backoff"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

// Time limits. Every wait in this package is bounded by one of these.
const (
	BuildTimeout = 3 * time.Minute  // go build of the daemon (cold cache)
	ServeTimeout = 20 * time.Second // start (or restart) until health says SERVING
	StopTimeout  = 10 * time.Second // SIGTERM until the process has exited
	killTimeout  = 10 * time.Second // SIGKILL until the process has been reaped
	RPCTimeout   = 5 * time.Second  // one RPC in a test
	PollInterval = 20 * time.Millisecond
	MaxLogBytes  = 256 << 10 // per node; older output is dropped
	ModuleName   = "github.com/idnode/idnode"
)

var (
	binDirOnce sync.Once
	buildDir   string // BinDir; removed by TestMain
	binDirErr  error
)

// BinDir is a temp dir of this test binary for the programs a test builds itself (an
// earlier release, say), made on first use and removed by TestMain.
func BinDir() (string, error) {
	binDirOnce.Do(func() { buildDir, binDirErr = os.MkdirTemp("", "idnode-e2e-bin-") })
	return buildDir, binDirErr
}

// goBinary is a program of this module that the tests run: the one a CI run built ahead, or
// else the one the test packages of a run share (test/helpers/prebuilt), found once per test
// binary.
type goBinary struct {
	prog prebuilt.Program

	once sync.Once
	path string
	err  error
}

// build finds or builds b on first use and returns its path.
func (b *goBinary) build(t testing.TB) string {
	t.Helper()
	b.once.Do(func() {
		root, err := RepoRoot()
		if err != nil {
			b.err = err
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), BuildTimeout)
		defer cancel()
		b.path, b.err = b.prog.Path(ctx, root)
	})
	if b.err != nil {
		t.Fatalf("building %s: %v", b.prog.Name, b.err)
	}
	return b.path
}

// Main is every e2e package's TestMain: it sweeps compose projects before and after the
// tests (sweep.go), removes the binaries they built, and fails the run when it left a
// container, network or volume behind in docker (leftovers.go).
// Each of atExit runs after the tests (a package's shared server stopped, say).
func Main(m *testing.M, atExit ...func()) {
	flag.Parse()
	swept := sweeping()
	var before *dockerBefore
	if _, err := exec.LookPath("docker"); err == nil {
		before = snapshotDocker()
	}
	code := m.Run()
	for _, f := range atExit {
		f()
	}
	swept()
	if before != nil {
		// README promises that a test run leaves docker as it found it.
		if left := before.leftovers(); len(left) > 0 {
			fmt.Fprintf(os.Stderr, "FAIL: the run left in docker what it started:\n\t%s\n", strings.Join(left, "\n\t"))
			code = max(code, 1)
		}
	}
	if buildDir != "" {
		_ = os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// RepoRoot finds the module root above the test's working directory (its package's
// directory: test/e2e/ops → ../../..). The go.mod of another module on the way up is passed
// over: the modules of their own inside the repository (contrib/gorm, cmd/idbench) start
// nodes of this one too.
func RepoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		mod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
		if err == nil && bytes.Contains(mod, []byte("module "+ModuleName+"\n")) {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod of module %s above the working directory", ModuleName)
		}
		dir = parent
	}
}

// E2EVersion is the version the tests' binaries are built with (-ldflags, as `make build`
// does with git describe), so a test can tell every surface that reports it shows that one.
const E2EVersion = prebuilt.E2EVersion

var idnodeBinary = &goBinary{prog: prebuilt.Idnode}

// BuildIdnode finds or builds ./cmd/idnode once per test binary and returns its path.
func BuildIdnode(t testing.TB) string { t.Helper(); return idnodeBinary.build(t) }

// FreeAddr is a loopback address outside the kernel's ephemeral range that no other node of
// any test binary alive was given: a node killed and started again finds its port free.
func FreeAddr(t testing.TB) string { t.Helper(); return loopback.FreeAddr(t) }

// NodeOpts says how to start one idnode process. Zero fields get defaults.
type NodeOpts struct {
	Tag      string   // --tag; default "A"
	DataDir  string   // --data-dir; default a fresh t.TempDir()
	GRPCAddr string   // --grpc-addr; default a free 127.0.0.1 port
	RaftAddr string   // --raft-addr; default a free port, or none when Peers is set (the daemon takes its entry)
	Peers    string   // --peers TAG=host:port,...; empty for a single-node cluster
	HTTPAddr string   // --http-addr; default none (HTTP off, so parallel nodes need no port for it)
	Extra    []string // further flags, appended as given
	Env      []string // KEY=VALUE added to the environment (IDNODE_* of the parent are always dropped)
	Dir      string   // working directory; default a fresh t.TempDir()
	Binary   string   // the daemon to run; default this tree's (buildIdnode)
	// Wrapper, when set, is the command line the daemon runs under, its own after it (e.g. ip
	// netns exec NAME, which execs the daemon in the same process).
	Wrapper []string

	// RawArgs, when non-nil, is the whole argument list, replacing every flag above. GRPCAddr
	// must then still say where the node will serve (e.g. the default 127.0.0.1:7070).
	RawArgs []string
}

// Proc is one idnode process, restartable with the same arguments and data dir.
type Proc struct {
	t    testing.TB
	bin  string
	Opts NodeOpts
	Args []string
	env  []string
	Logs *LogBuffer

	// Where the node serves, from opts after defaults.
	Tag      string
	GRPCAddr string
	RaftAddr string
	DataDir  string

	mu    sync.Mutex
	cmd   *exec.Cmd     // nil before the first start
	done  chan struct{} // closed when cmd has been reaped
	state *os.ProcessState
	runs  int
}

// StartNode starts the daemon and registers a cleanup that kills it (and shows its output if
// the test failed). It does not wait for the node to serve: see waitServing.
func StartNode(t testing.TB, opts NodeOpts) *Proc {
	t.Helper()
	bin := opts.Binary
	if bin == "" {
		bin = BuildIdnode(t)
	}
	if opts.Tag == "" {
		opts.Tag = "A"
	}
	if opts.Dir == "" {
		opts.Dir = t.TempDir()
	}
	if opts.RawArgs == nil {
		if opts.DataDir == "" {
			opts.DataDir = t.TempDir()
		}
		if opts.GRPCAddr == "" {
			opts.GRPCAddr = FreeAddr(t)
		}
		if opts.RaftAddr == "" && opts.Peers == "" {
			opts.RaftAddr = FreeAddr(t)
		}
		if opts.RaftAddr == "" {
			opts.RaftAddr = peerAddr(opts.Peers, opts.Tag)
		}
	} else if opts.GRPCAddr == "" {
		t.Fatalf("startNode: RawArgs needs GRPCAddr to say where the node serves")
	}
	p := &Proc{
		t: t, bin: bin, Opts: opts, Logs: NewLogBuffer(),
		Tag: opts.Tag, GRPCAddr: opts.GRPCAddr, RaftAddr: opts.RaftAddr, DataDir: opts.DataDir,
	}
	if opts.RawArgs != nil {
		p.Args = append([]string(nil), opts.RawArgs...)
	} else {
		p.Args = []string{"--tag", opts.Tag, "--data-dir", opts.DataDir, "--grpc-addr", opts.GRPCAddr, "--http-addr", opts.HTTPAddr}
		if opts.Peers != "" {
			p.Args = append(p.Args, "--peers", opts.Peers)
		} else {
			p.Args = append(p.Args, "--raft-addr", opts.RaftAddr)
		}
		p.Args = append(p.Args, opts.Extra...)
	}
	p.env = nodeenv.Clean(opts.Env...)
	t.Cleanup(func() {
		p.killIfRunning()
		if t.Failed() {
			t.Logf("node %s (grpc %s) output, %d start(s):\n%s", p.Tag, p.GRPCAddr, p.runs, p.Logs.String())
		}
	})
	p.start()
	return p
}

// peerAddr returns tag's address in a --peers list, or "".
func peerAddr(peers, tag string) string {
	for _, part := range strings.Split(peers, ",") {
		if k, v, ok := strings.Cut(strings.TrimSpace(part), "="); ok && k == tag {
			return v
		}
	}
	return ""
}

func (p *Proc) start() {
	p.t.Helper()
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd != nil && !isClosed(p.done) {
		p.t.Fatalf("node %s: start while it is still running (pid %d)", p.Tag, p.cmd.Process.Pid)
	}
	p.runs++
	run := p.runs
	argv := append(append(append([]string(nil), p.Opts.Wrapper...), p.bin), p.Args...)
	fmt.Fprintf(p.Logs, "----- start #%d: %s\n", run, strings.Join(argv, " "))
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = p.Opts.Dir
	cmd.Env = p.env
	cmd.Stdout = p.Logs
	cmd.Stderr = p.Logs
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("node %s: start: %v", p.Tag, err)
	}
	done := make(chan struct{})
	p.cmd, p.done, p.state = cmd, done, nil
	go func() {
		_ = cmd.Wait() // the exit status is in cmd.ProcessState
		p.mu.Lock()
		p.state = cmd.ProcessState
		p.mu.Unlock()
		fmt.Fprintf(p.Logs, "----- exit #%d: %v\n", run, cmd.ProcessState)
		close(done)
	}()
}

func isClosed(c chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// Current returns the running command and its done channel.
func (p *Proc) Current() (*exec.Cmd, chan struct{}) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.cmd, p.done
}

// Signal sends sig to the running process; it fails the test if there is none.
func (p *Proc) Signal(sig syscall.Signal) {
	p.t.Helper()
	cmd, done := p.Current()
	if cmd == nil || isClosed(done) {
		p.t.Fatalf("node %s: %v to a process that is not running", p.Tag, sig)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		p.t.Fatalf("node %s: send %v: %v", p.Tag, sig, err)
	}
}

// WaitExit waits up to timeout for the process to be reaped and returns its state.
func (p *Proc) WaitExit(timeout time.Duration) (*os.ProcessState, error) {
	_, done := p.Current()
	if done == nil {
		return nil, errors.New("never started")
	}
	select {
	case <-done:
		p.mu.Lock()
		defer p.mu.Unlock()
		return p.state, nil
	case <-time.After(timeout):
		return nil, fmt.Errorf("still running after %v", timeout)
	}
}

// Kill9 sends SIGKILL and waits until the process is gone: a crash, with nothing flushed.
func (p *Proc) Kill9() {
	p.t.Helper()
	p.Signal(syscall.SIGKILL)
	if _, err := p.WaitExit(killTimeout); err != nil {
		p.t.Fatalf("node %s: SIGKILL: %v", p.Tag, err)
	}
}

// Stop sends SIGTERM and requires a clean exit (status 0) within stopTimeout. It returns how
// long the exit took.
func (p *Proc) Stop() time.Duration {
	p.t.Helper()
	begin := time.Now()
	p.Signal(syscall.SIGTERM)
	st, err := p.WaitExit(StopTimeout)
	if err != nil {
		p.t.Fatalf("node %s: SIGTERM: %v", p.Tag, err)
	}
	if st.ExitCode() != 0 {
		p.t.Fatalf("node %s: SIGTERM: exited with %v, want status 0", p.Tag, st)
	}
	return time.Since(begin)
}

// Sigstop freezes the process (it keeps its sockets but answers nothing), and returns once every
// thread of it has stopped, so that nothing the test does next races the node's last moments;
// Sigcont resumes it.
func (p *Proc) Sigstop() {
	p.t.Helper()
	p.Signal(syscall.SIGSTOP)
	cmd, _ := p.Current()
	poll.Until(p.t, "node "+p.Tag+" stopped by SIGSTOP", 10*time.Second, time.Millisecond, func() error {
		return allStopped(cmd.Process.Pid)
	})
}
func (p *Proc) Sigcont() { p.t.Helper(); p.Signal(syscall.SIGCONT) }

// Restart starts the process again with the same arguments and data dir; it must have exited.
func (p *Proc) Restart() {
	p.t.Helper()
	p.start()
}

// killIfRunning is the cleanup path: SIGKILL (works on stopped processes too) and reap.
func (p *Proc) killIfRunning() {
	cmd, done := p.Current()
	if cmd == nil || isClosed(done) {
		return
	}
	_ = cmd.Process.Kill()
	select {
	case <-done:
	case <-time.After(killTimeout):
		p.t.Errorf("node %s: pid %d not reaped %v after SIGKILL", p.Tag, cmd.Process.Pid, killTimeout)
	}
}

// WaitServing waits until this node's health says SERVING, failing early (with the node's
// output) if the process exits first.
func (p *Proc) WaitServing(timeout time.Duration) {
	p.t.Helper()
	_, done := p.Current()
	if err := PollServing(p.t, p.GRPCAddr, timeout, done); err != nil {
		p.t.Fatalf("node %s: %v", p.Tag, err)
	}
}

// LogBuffer collects a process's stdout and stderr (a node's across restarts), keeping the
// newest MaxLogBytes.
type LogBuffer struct {
	mu  sync.Mutex
	buf []byte
	max int
}

// NewLogBuffer is an empty LogBuffer for one process's output.
func NewLogBuffer() *LogBuffer { return &LogBuffer{max: MaxLogBytes} }

func (b *LogBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf = append(b.buf, p...)
	if over := len(b.buf) - b.max; over > 0 {
		b.buf = append(b.buf[:0:0], b.buf[over:]...)
	}
	return len(p), nil
}

func (b *LogBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return string(b.buf)
}

// dialOptions reconnect quickly: a node that is restarted on the same port must be reachable
// again within milliseconds, not after gRPC's default backoff of up to two minutes.
func dialOptions() []grpc.DialOption {
	return []grpc.DialOption{
		grpc.WithTransportCredentials(insecure.NewCredentials()),
		grpc.WithConnectParams(grpc.ConnectParams{
			Backoff: backoff.Config{
				BaseDelay: 20 * time.Millisecond, Multiplier: 1.6, Jitter: 0.2, MaxDelay: 250 * time.Millisecond,
			},
			MinConnectTimeout: 2 * time.Second,
		}),
	}
}

// DialConn opens a client connection to addr, closed at the end of the test.
func DialConn(t testing.TB, addr string, extra ...grpc.DialOption) *grpc.ClientConn {
	t.Helper()
	conn, err := grpc.NewClient(addr, append(dialOptions(), extra...)...)
	if err != nil {
		t.Fatalf("dial %s: %v", addr, err)
	}
	t.Cleanup(func() { _ = conn.Close() })
	return conn
}

// Dial returns the two idnode clients on one connection to addr.
func Dial(t testing.TB, addr string) (idnodev1.IdServiceClient, idnodev1.ClusterServiceClient) {
	t.Helper()
	conn := DialConn(t, addr)
	return idnodev1.NewIdServiceClient(conn), idnodev1.NewClusterServiceClient(conn)
}

// PollServing polls grpc.health.v1 (service "") at addr until it answers SERVING, for at most
// timeout: the synchronisation point after starting a node. A close of exited ends it early
// with an error.
func PollServing(t testing.TB, addr string, timeout time.Duration, exited <-chan struct{}) error {
	t.Helper()
	conn, err := grpc.NewClient(addr, dialOptions()...)
	if err != nil {
		return fmt.Errorf("dial %s: %w", addr, err)
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	deadline := time.Now().Add(timeout)
	var last string
	for {
		ctx, cancel := context.WithTimeout(context.Background(), min(time.Second, max(time.Until(deadline), time.Millisecond)))
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{Service: ""})
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case resp.GetStatus() == healthpb.HealthCheckResponse_SERVING:
			return nil
		default:
			last = resp.GetStatus().String()
		}
		select {
		case <-exited:
			return fmt.Errorf("process exited before %s was SERVING (last answer: %s)", addr, last)
		default:
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("%s not SERVING within %v (last answer: %s; %s)", addr, timeout, last, ownView(conn))
		}
		time.Sleep(PollInterval)
	}
}

// ownView is what a node that is not serving says of itself in a Status it answers alone:
// whether it knows a leader, and how far its log is committed and applied, which tells an
// election that never ended from a node that never caught up.
func ownView(conn *grpc.ClientConn) string {
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	st, err := idnodev1.NewClusterServiceClient(conn).Status(ctx, &idnodev1.StatusRequest{})
	if err != nil {
		return fmt.Sprintf("its own Status: %v", err)
	}
	return fmt.Sprintf("its own Status: leader %q, term %d, commit index %d, applied %d, storage fault %q",
		st.GetLeader(), st.GetTerm(), st.GetCommitIndex(), st.GetAppliedIndex(), st.GetStorageFault())
}

// Eventually polls cond until it returns nil or timeout passes, then fails with cond's last error.
func Eventually(t testing.TB, timeout time.Duration, what string, cond func() error) {
	t.Helper()
	poll.Until(t, what, timeout, PollInterval, cond)
}

// RPCCtx is a context for one RPC, bounded by rpcTimeout.
func RPCCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), RPCTimeout)
	t.Cleanup(cancel)
	return ctx
}
