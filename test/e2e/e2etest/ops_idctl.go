package e2etest

import (
	"encoding/json"
	"fmt"
	"testing"
)

// StatusJSON is what idctl status --json prints.
type StatusJSON struct {
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

// IdctlStatus runs idctl status --json with args and decodes it. Status is a read: it is asked
// again after a refusal for want of a leader (MustIdctlRetrying), as a client would, which
// right after a leader transfer or a restart is what a loaded machine gives.
func IdctlStatus(t *testing.T, env []string, args ...string) StatusJSON {
	t.Helper()
	st, err := decodeStatus(MustIdctlRetrying(t, env, append([]string{"status", "--json"}, args...)...))
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// decodeStatus reads what idctl status --json printed.
func decodeStatus(out string) (StatusJSON, error) {
	var st StatusJSON
	if err := json.Unmarshal([]byte(out), &st); err != nil {
		return st, fmt.Errorf("idctl status --json: %v\n%s", err, out)
	}
	return st, nil
}

// IdctlSettled polls idctl status until it names a leader and every node answers as leader or
// follower, and returns that status: an election under way on a busy machine leaves a node a
// candidate, which refuses what a test asks of it next.
func IdctlSettled(t *testing.T, env []string) StatusJSON {
	t.Helper()
	var st StatusJSON
	Eventually(t, LeaderTimeout, "idctl status to show a leader and every node leader or follower", func() error {
		r := Idctl(t, env, "status", "--json")
		if r.Code != 0 {
			return fmt.Errorf("%v", r)
		}
		var err error
		if st, err = decodeStatus(r.Stdout); err != nil {
			return err
		}
		if st.Leader == "" {
			return fmt.Errorf("no leader named: %+v", st)
		}
		for _, n := range st.Nodes {
			if n.Role != "leader" && n.Role != "follower" {
				return fmt.Errorf("node %s is %q", n.Tag, n.Role)
			}
		}
		return nil
	})
	return st
}
