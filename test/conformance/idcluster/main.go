// Command idcluster starts and breaks idnode clusters on loopback for the client conformance
// suite: any client's runner drives it over JSON lines on its standard input and output, so no
// runner handles processes itself (test/conformance/README.md is the protocol).
//
//	idcluster --idnode ./idnode
//	{"cmd":"start","topology":{"nodes":3}}
//	{"ok":true,"cluster":{"nodes":[{"tag":"A","grpc":"127.0.0.1:41001",…}],"leader":"A"}}
//
// It holds at most one cluster at a time. When its input closes, or it is told to stop by a
// signal, it kills every node and removes their data; nodes also die with it if it is killed.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
)

// maxRequest bounds one request line: a topology is small.
const maxRequest = 1 << 20

func main() {
	idnode := flag.String("idnode", os.Getenv("IDNODE_BIN"), "the idnode binary to run (default: $IDNODE_BIN, else idnode beside this program)")
	flag.Parse()
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	bin, err := daemonPath(*idnode)
	if err != nil {
		fmt.Fprintln(os.Stderr, "idcluster:", err)
		os.Exit(2)
	}
	c := &controller{bin: bin, log: log}
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		c.teardown()
		os.Exit(1)
	}()
	err = serve(c, os.Stdin, os.Stdout)
	c.teardown()
	if err != nil {
		fmt.Fprintln(os.Stderr, "idcluster:", err)
		os.Exit(1)
	}
}

// daemonPath finds the idnode binary: the flag, else idnode beside this program.
func daemonPath(flagValue string) (string, error) {
	if flagValue == "" {
		self, err := os.Executable()
		if err != nil {
			return "", err
		}
		flagValue = filepath.Join(filepath.Dir(self), "idnode")
	}
	abs, err := filepath.Abs(flagValue)
	if err != nil {
		return "", err
	}
	if fi, err := os.Stat(abs); err != nil || fi.IsDir() {
		return "", fmt.Errorf("no idnode binary at %s: pass --idnode or set IDNODE_BIN (go build -o DIR/idnode ./cmd/idnode)", abs)
	}
	return abs, nil
}

// request is one line of input. Node is a selector (README: SEL).
type request struct {
	Cmd      string    `json:"cmd"`
	Node     string    `json:"node"`
	Topology *topology `json:"topology"`
}

// serve answers each request line with one answer line, in order, until in ends.
func serve(c *controller, in io.Reader, out io.Writer) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxRequest)
	enc := json.NewEncoder(out)
	for sc.Scan() {
		var req request
		var answer map[string]any
		if err := json.Unmarshal(sc.Bytes(), &req); err != nil {
			answer = refusal(fmt.Errorf("a request is one JSON object per line: %w", err))
		} else {
			answer = c.handle(req)
		}
		if err := enc.Encode(answer); err != nil {
			return fmt.Errorf("writing an answer: %w", err)
		}
	}
	return sc.Err()
}

func refusal(err error) map[string]any { return map[string]any{"ok": false, "error": err.Error()} }
