package main

import (
	"fmt"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func TestClusterVersionTargets(t *testing.T) {
	upgraded := &idnodev1.ClusterVersionResponse{Finalised: 1, Effective: 2}
	if v, err := versionTarget("finalise", upgraded); err != nil || v != 2 {
		t.Errorf("finalise once every member supports 2 = %d, %v", v, err)
	}
	if _, err := versionTarget("finalise", &idnodev1.ClusterVersionResponse{Finalised: 1, Effective: 1}); err == nil || !strings.Contains(err.Error(), "upgrade every node first") {
		t.Errorf("finalise with a member on an older build = %v", err)
	}
	if v, err := versionTarget("downgrade", &idnodev1.ClusterVersionResponse{Finalised: 2, Effective: 2}); err != nil || v != 1 {
		t.Errorf("downgrade from 2 = %d, %v", v, err)
	}
	if _, err := versionTarget("downgrade", upgraded); err == nil {
		t.Error("a downgrade below version 1 was asked for")
	}
}

func TestStatusSaysWhatTheUpgradeNeeds(t *testing.T) {
	members := func(versions ...uint32) []*idnodev1.MemberVersion {
		var out []*idnodev1.MemberVersion
		for i, v := range versions {
			out = append(out, &idnodev1.MemberVersion{Tag: string(rune('A' + i)), Version: v, Build: fmt.Sprintf("v%d.0.0", v)})
		}
		return out
	}
	for _, c := range []struct {
		cv   *idnodev1.ClusterVersionResponse
		want string
	}{
		{&idnodev1.ClusterVersionResponse{Finalised: 2, Effective: 2, Members: members(2, 2, 2)}, ""},
		{&idnodev1.ClusterVersionResponse{Finalised: 1, Effective: 1, Members: members(2, 1, 1)}, "nodes A run newer builds"},
		{&idnodev1.ClusterVersionResponse{Finalised: 1, Effective: 2, Members: members(2, 2, 2)}, "finalise it with idctl cluster version finalise"},
		{&idnodev1.ClusterVersionResponse{Finalised: 2, Effective: 1, Members: members(2, 1, 2)}, "nodes B run older builds"},
		// A fresh cluster: B and C have not recorded their builds, and the leader stands in
		// version 1 for them. They are not on older builds.
		{&idnodev1.ClusterVersionResponse{Finalised: 7, Effective: 1, Members: append(members(7), &idnodev1.MemberVersion{Tag: "B", Version: 1},
			&idnodev1.MemberVersion{Tag: "C", Version: 1})}, "nodes B, C have not recorded their builds yet"},
	} {
		got := versionNotice(c.cv)
		if (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("notice for %v = %q, want %q", c.cv, got, c.want)
		}
	}
}
