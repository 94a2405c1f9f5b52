package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func init() {
	commands = append(commands,
		command{name: "cluster version", args: "[finalise|downgrade]", summary: "the cluster version and each member's; finalise the version every member supports, or go back one while the log has not used it (admin)",
			maxArgs: 1, flags: clusterVersionCmd},
	)
}

func clusterVersionCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		action := ""
		if len(args) == 1 {
			action = args[0]
		}
		if action != "" && action != "finalise" && action != "downgrade" {
			return fmt.Errorf("idctl cluster version %s: say finalise or downgrade, or nothing to show the version", action)
		}
		return answered(e, "ClusterVersion", func(ctx context.Context, c *client.Client) (*idnodev1.ClusterVersionResponse, error) {
			cv, err := c.Admin().ClusterVersion(ctx)
			if err != nil || action == "" {
				return cv, err
			}
			target, err := versionTarget(action, cv)
			if err != nil {
				return nil, err
			}
			return c.Admin().SetClusterVersion(ctx, target)
		}, printClusterVersion)
	}
}

// versionTarget returns the cluster version that action (finalise or downgrade) asks for,
// given the cluster's current versions in cv.
func versionTarget(action string, cv *idnodev1.ClusterVersionResponse) (uint32, error) {
	switch {
	case action == "finalise" && cv.GetEffective() <= cv.GetFinalised():
		return 0, fmt.Errorf("nothing to finalise: the cluster is at version %d and its members support %d; upgrade every node first (idctl cluster version lists them)",
			cv.GetFinalised(), cv.GetEffective())
	case action == "finalise":
		return cv.GetEffective(), nil
	case cv.GetFinalised() <= 1:
		return 0, errors.New("the cluster is at version 1, the oldest: there is nothing to go back to")
	default:
		return cv.GetFinalised() - 1, nil
	}
}

func printClusterVersion(w io.Writer, cv *idnodev1.ClusterVersionResponse) error {
	fmt.Fprintf(w, "cluster version %d (finalised); every member supports %d; a downgrade may go to %d\n",
		cv.GetFinalised(), cv.GetEffective(), cv.GetDowngradeFloor())
	return printColumns(w, cv.GetMembers(), "TAG\tVOTER\tVERSION\tBUILD", func(m *idnodev1.MemberVersion) string {
		return fmt.Sprintf("%s\t%s\t%d\t%s", m.GetTag(), yesNo(m.GetVoter()), m.GetVersion(), dash(m.GetBuild()))
	})
}

// versionNotice returns the line idctl status prints about the cluster version, or "" when
// every member runs the finalised version and there is nothing to do. A member with no build
// is one whose record the leader has not applied yet (it records its build within seconds of
// joining or starting; the leader stands in version 1 for it): it is not on an older build.
func versionNotice(cv *idnodev1.ClusterVersionResponse) string {
	var ahead, behind, unrecorded []string
	for _, m := range cv.GetMembers() {
		switch {
		case m.GetBuild() == "":
			unrecorded = append(unrecorded, m.GetTag())
		case m.GetVersion() > cv.GetFinalised():
			ahead = append(ahead, m.GetTag())
		case m.GetVersion() < cv.GetFinalised():
			behind = append(behind, m.GetTag())
		}
	}
	switch {
	case len(behind) > 0:
		return fmt.Sprintf("cluster version %d: nodes %s run older builds; upgrade them (idctl cluster version)", cv.GetFinalised(), strings.Join(behind, ", "))
	case len(unrecorded) > 0:
		return fmt.Sprintf("cluster version %d: nodes %s have not recorded their builds yet (a node does within seconds of starting; idctl cluster version)", cv.GetFinalised(), strings.Join(unrecorded, ", "))
	case len(ahead) == len(cv.GetMembers()) && len(ahead) > 0:
		return fmt.Sprintf("cluster version %d: every member supports %d; finalise it with idctl cluster version finalise", cv.GetFinalised(), cv.GetEffective())
	case len(ahead) > 0:
		return fmt.Sprintf("cluster version %d: nodes %s run newer builds; upgrade the others, then idctl cluster version finalise", cv.GetFinalised(), strings.Join(ahead, ", "))
	}
	return ""
}
