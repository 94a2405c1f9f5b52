package main

import (
	"context"
	"encoding/hex"
	"flag"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func init() {
	commands = append(commands,
		command{name: "check replicas", args: "", summary: "have the leader mark the log and compare every member's state digest at the mark; exits 1 when a member differs (admin)",
			maxArgs: 0, flags: checkReplicasCmd},
	)
}

func checkReplicasCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		var check *idnodev1.ReplicaCheck
		err := answered(e, "CheckReplicas", func(ctx context.Context, c *client.Client) (*idnodev1.ReplicaCheck, error) {
			rc, err := c.Admin().CheckReplicas(ctx)
			check = rc
			return rc, err
		}, printReplicaCheck)
		if err == nil && check.GetMismatches() > 0 {
			return fmt.Errorf("%d member(s) hold a state that differs at index %d", check.GetMismatches(), check.GetIndex())
		}
		return err
	}
}

// printReplicaCheck prints a comparison: the mark, then each member's digest and verdict.
func printReplicaCheck(w io.Writer, rc *idnodev1.ReplicaCheck) error {
	fmt.Fprintf(w, "replica check at index %d (%s): %d member(s) differ\n", rc.GetIndex(),
		time.UnixMilli(rc.GetAtMs()).UTC().Format(time.RFC3339), rc.GetMismatches())
	return printColumns(w, rc.GetMembers(), "TAG\tVERDICT\tDIGEST\tDETAIL", func(m *idnodev1.ReplicaDigest) string {
		return fmt.Sprintf("%s\t%s\t%s\t%s", m.GetTag(), m.GetVerdict(), dash(hex.EncodeToString(m.GetDigest())), dash(m.GetDetail()))
	})
}

// replicaCheckLine is what idctl status says of the leader's last replica check: "" before
// its first, otherwise the mark's index and the members that differ or do not report.
func replicaCheckLine(rc *idnodev1.ReplicaCheck) string {
	if rc == nil {
		return ""
	}
	var differ, silent []string
	for _, m := range rc.GetMembers() {
		switch m.GetVerdict() {
		case "differs":
			differ = append(differ, m.GetTag())
		case "not reporting":
			silent = append(silent, m.GetTag())
		}
	}
	line := fmt.Sprintf("replica check at index %d: ", rc.GetIndex())
	switch {
	case len(differ) > 0:
		line += fmt.Sprintf("the state of %s DIFFERS from the majority's (idctl check replicas)", strings.Join(differ, ", "))
	default:
		line += "every reporting member agrees"
	}
	if len(silent) > 0 {
		line += fmt.Sprintf("; not reporting: %s", strings.Join(silent, ", "))
	}
	return line
}
