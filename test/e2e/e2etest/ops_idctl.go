package e2etest

import (
	"encoding/json"
	"testing"
)

// statusJSON is idctl status --json.
type statusJSON struct {
	Leader     string `json:"leader"`
	AnsweredBy string `json:"answered_by"`
	Nodes      []struct {
		Tag         string `json:"tag"`
		GRPCAddress string `json:"grpc_address"`
		Role        string `json:"role"`
		Voter       bool   `json:"voter"`
		Reachable   bool   `json:"reachable"`
		Term        uint64 `json:"term"`
		CommitIndex uint64 `json:"commit_index"`
		Answered    bool   `json:"answered"`
		Version     string `json:"version"`
	} `json:"nodes"`
}

func IdctlStatus(t *testing.T, env []string, args ...string) statusJSON {
	t.Helper()
	var st statusJSON
	out := MustIdctl(t, env, append([]string{"status", "--json"}, args...)...)
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		t.Fatalf("idctl status --json: %v\n%s", err, out)
	}
	return st
}
