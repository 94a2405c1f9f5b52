package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/idnode/idnode/test/helpers/nodeenv"
)

// Time limits: every wait here is bounded by one of these.
const (
	serveTimeout = 30 * time.Second // a start or restart until the node's health answers
	exitTimeout  = 10 * time.Second // a signal until the process is gone
	logTail      = 4 << 10          // bytes of a node's log shown when it fails to start
)

type nodeState int

const (
	stateStopped nodeState = iota
	stateRunning
	statePaused
)

// A filter of node states, for selectors that name several nodes.
type stateFilter func(nodeState) bool

var (
	alive   stateFilter = func(s nodeState) bool { return s != stateStopped }
	running stateFilter = func(s nodeState) bool { return s == stateRunning }
	paused  stateFilter = func(s nodeState) bool { return s == statePaused }
	stopped stateFilter = func(s nodeState) bool { return s == stateStopped }
)

func (s nodeState) String() string {
	return [...]string{"stopped", "running", "paused"}[s]
}

// node is one idnode process, restartable with the same arguments and data.
type node struct {
	tag                       string
	grpc, http, raft, metrics string
	dir, logPath              string
	bin                       string
	args                      []string

	mu    sync.Mutex
	state nodeState
	cmd   *exec.Cmd
	done  chan struct{} // closed once cmd is reaped
	// exitErr is how the last process ended (cmd.Wait's error: "exit status 1", "signal:
	// killed"; nil for a clean exit), set before done closes.
	exitErr error
	// logStart is the size of the log when the last process started: what it wrote begins there.
	logStart int64
	// isolated is set while the process runs with its Raft port where its peers cannot reach
	// it (restartIsolated): it knows no leader, so the cluster's leader is agreed without it.
	isolated bool
}

func (n *node) current() (nodeState, *exec.Cmd, chan struct{}) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.state, n.cmd, n.done
}

func (n *node) setState(s nodeState) {
	n.mu.Lock()
	n.state = s
	n.mu.Unlock()
}

// launch starts the process with its arguments and extra after them; it does not wait for it
// to serve. A process launched with a Raft address of its own in extra is isolated.
func (n *node) launch(extra ...string) error {
	if s, _, _ := n.current(); s != stateStopped {
		return fmt.Errorf("it is %s, not stopped", s)
	}
	logFile, err := os.OpenFile(n.logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	st, err := logFile.Stat()
	if err != nil {
		_ = logFile.Close()
		return err
	}
	cmd := exec.Command(n.bin, append(slices.Clip(n.args), extra...)...)
	cmd.Dir = n.dir
	cmd.Env = nodeenv.Clean()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logFile.Close()
		return err
	}
	done := make(chan struct{})
	n.mu.Lock()
	n.state, n.cmd, n.done, n.isolated, n.exitErr, n.logStart = stateRunning, cmd, done, len(extra) > 0, nil, st.Size()
	n.mu.Unlock()
	go func() {
		err := cmd.Wait()
		_ = logFile.Close()
		n.mu.Lock()
		if n.cmd == cmd {
			n.state, n.exitErr = stateStopped, err
		}
		n.mu.Unlock()
		close(done)
	}()
	return nil
}

// isIsolated reports whether the running process is isolated (see node.isolated).
func (n *node) isIsolated() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.isolated
}

// signal sends sig to a node in state from and records it as in state to.
func (n *node) signal(sig syscall.Signal, from, to nodeState) error {
	s, cmd, _ := n.current()
	if s != from {
		return fmt.Errorf("it is %s, not %s", s, from)
	}
	if err := cmd.Process.Signal(sig); err != nil {
		return err
	}
	n.setState(to)
	return nil
}

// kill is SIGKILL, waiting until the process is reaped; a paused node dies too.
func (n *node) kill() error {
	s, cmd, done := n.current()
	if s == stateStopped {
		return errors.New("it is not running")
	}
	if err := cmd.Process.Kill(); err != nil && !errors.Is(err, os.ErrProcessDone) {
		return err
	}
	return waitDone(done, "SIGKILL")
}

// stop is SIGTERM, waiting for the node's clean exit.
func (n *node) stop() error {
	s, cmd, done := n.current()
	if s != stateRunning {
		return fmt.Errorf("it is %s, not running", s)
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	return waitDone(done, "SIGTERM")
}

func waitDone(done chan struct{}, what string) error {
	select {
	case <-done:
		return nil
	case <-time.After(exitTimeout):
		return fmt.Errorf("still running %v after %s", exitTimeout, what)
	}
}

// exitedError is a node process that ended before it served: how it ended and the end of its
// log, which says why (a port in use, a bad flag, a data dir it cannot open).
type exitedError struct {
	tag    string
	status string // "exit status 1", "signal: killed"
	tail   string
	// lostPort is set when the process said a port of its was in use: another process took
	// the port between idcluster's choosing it and the node's listening on it.
	lostPort bool
}

func (e *exitedError) Error() string {
	return fmt.Sprintf("node %s exited (%s) before it served; its log ends:\n%s", e.tag, e.status, e.tail)
}

// addrInUse is how a Go program's failed listen on a taken port reads (syscall.EADDRINUSE).
const addrInUse = "address already in use"

// exited is an *exitedError when the node's last process has ended, else nil.
func (n *node) exited() error {
	_, _, done := n.current()
	select {
	case <-done:
	default:
		return nil
	}
	// Read after done closed: the process's exitErr is set before.
	n.mu.Lock()
	err, start := n.exitErr, n.logStart
	n.mu.Unlock()
	status := "exit status 0"
	if err != nil {
		status = err.Error()
	}
	// Only what this process wrote counts: the log keeps the ones before it too.
	own := ""
	if b, rerr := os.ReadFile(n.logPath); rerr == nil && int64(len(b)) >= start {
		own = string(b[start:])
	}
	return &exitedError{tag: n.tag, status: status, tail: n.tail(), lostPort: strings.Contains(own, addrInUse)}
}

// logTail is the end of the node's log, for an error that needs it.
func (n *node) tail() string {
	b, err := os.ReadFile(n.logPath)
	if err != nil {
		return err.Error()
	}
	if len(b) > logTail {
		b = b[len(b)-logTail:]
	}
	return strings.TrimSpace(string(b))
}
