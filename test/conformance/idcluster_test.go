package conformance_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// controlProgram is a running idcluster, spoken to in JSON lines.
type controlProgram struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Scanner
}

func startControlProgram(t *testing.T, env []string) *controlProgram {
	t.Helper()
	bin := ""
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, "IDNODE_CLUSTER_BIN="); ok {
			bin = v
		}
	}
	cmd := exec.Command(bin)
	cmd.Env = env
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("idcluster: %v", err)
	}
	cp := &controlProgram{cmd: cmd, in: in, out: bufio.NewScanner(stdout)}
	cp.out.Buffer(make([]byte, 64<<10), 1<<20)
	t.Cleanup(func() {
		_ = in.Close() // idcluster tears the cluster down and exits
		if err := cmd.Wait(); err != nil {
			t.Errorf("idcluster: %v", err)
		}
	})
	return cp
}

// send makes one request and returns the answer, or an error when it is not ok.
func (cp *controlProgram) send(req map[string]any) (map[string]any, error) {
	line, err := json.Marshal(req)
	if err != nil {
		return nil, err
	}
	if _, err := cp.in.Write(append(line, '\n')); err != nil {
		return nil, fmt.Errorf("idcluster: %w", err)
	}
	if !cp.out.Scan() {
		return nil, fmt.Errorf("idcluster ended without an answer to %s (%v)", line, cp.out.Err())
	}
	var answer map[string]any
	if err := decodeJSON(cp.out.Bytes(), &answer, false); err != nil {
		return nil, fmt.Errorf("idcluster's answer %q: %w", cp.out.Bytes(), err)
	}
	if answer["ok"] != true {
		return nil, fmt.Errorf("idcluster refused %s: %v", line, answer["error"])
	}
	return answer, nil
}

// clusterInfo is the start answer's cluster (README: the cluster object).
type clusterInfo struct {
	Nodes []struct {
		Tag    string `json:"tag"`
		GRPC   string `json:"grpc"`
		HTTP   string `json:"http"`
		Region string `json:"region"` // the node's --region; "" for none
	} `json:"nodes"`
	Leader string            `json:"leader"`
	Keys   map[string]string `json:"keys"`
	// Opaque are the answers of the topology's MakeOpaque calls.
	Opaque []struct {
		Database       string   `json:"database"`
		Collections    []string `json:"collections"`
		Numeric        bool     `json:"numeric"`
		KeyFingerprint string   `json:"keyFingerprint"`
	} `json:"opaque"`
	TLS *struct {
		CA         string `json:"ca"`
		ClientCert string `json:"clientCert"`
		ClientKey  string `json:"clientKey"`
	} `json:"tls"`
}

func (cp *controlProgram) start(topology json.RawMessage) (*clusterInfo, error) {
	var top any = map[string]any{}
	if len(topology) > 0 {
		top = topology
	}
	answer, err := cp.send(map[string]any{"cmd": "start", "topology": top})
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(answer["cluster"])
	if err != nil {
		return nil, err
	}
	var info clusterInfo
	if err := json.Unmarshal(raw, &info); err != nil {
		return nil, err
	}
	return &info, nil
}

// regionsOf maps each of addrs that is a node with a region to that region.
func (ci *clusterInfo) regionsOf(addrs []string) map[string]string {
	out := map[string]string{}
	for _, n := range ci.Nodes {
		if n.Region != "" && slices.Contains(addrs, n.GRPC) {
			out[n.GRPC] = n.Region
		}
	}
	return out
}

// grpcAddr is the gRPC address of the node tagged tag.
func (ci *clusterInfo) grpcAddr(tag string) (string, bool) {
	for _, n := range ci.Nodes {
		if n.Tag == tag {
			return n.GRPC, true
		}
	}
	return "", false
}
