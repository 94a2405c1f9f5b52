package fsm

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

func TestANewClusterStartsAtItsFoundersVersion(t *testing.T) {
	founded := New()
	first := registerCommand("A", "A", "inc-a")
	first.FoundingVersion = 2
	mustApply(t, founded, RegisterNodeCommand, first)
	later := registerCommand("B", "B", "inc-b")
	later.FoundingVersion, later.NodeVersion = 7, 7
	if _, ok := mustApply(t, founded, RegisterNodeCommand, later).(Node); !ok {
		t.Fatal("a second node of a newer build was refused")
	}
	if got := founded.ClusterVersion().Finalised; got != 2 {
		t.Errorf("a cluster founded by a version-2 build is at %d, want 2", got)
	}

	// A cluster whose first node ran a build from before cluster versions stays at 1 when
	// upgraded nodes register: the older nodes may still be members.
	upgraded := New()
	mustApply(t, upgraded, RegisterNodeCommand, registerCommand("A", "A", "inc-a"))
	mustApply(t, upgraded, RegisterNodeCommand, later)
	if got := upgraded.ClusterVersion().Finalised; got != 1 {
		t.Errorf("an upgraded cluster is at %d, want 1", got)
	}
}

func TestARegistrationBelowTheFinalisedVersionIsRefused(t *testing.T) {
	f := New()
	founder := registerCommand("A", "A", "inc-a")
	founder.FoundingVersion, founder.NodeVersion = 2, 2
	mustApply(t, f, RegisterNodeCommand, founder)
	// A build from before cluster versions sends no version; checked in the log, so a join
	// that passed the leader's check just before a finalisation is refused all the same.
	err, _ := mustApply(t, f, RegisterNodeCommand, registerCommand("B", "B", "inc-b")).(error)
	if !errors.Is(err, ErrVersionUnsupported) || !strings.Contains(err.Error(), "finalised at version 2") {
		t.Fatalf("a registration by an older build = %v, want ErrVersionUnsupported", err)
	}
	if len(f.Nodes()) != 1 {
		t.Fatalf("the refused node is registered: %v", f.Nodes())
	}
	// An operator's add (no incarnation) states no build.
	if _, ok := mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "C", RaftAddress: "raft-C"}).(Node); !ok {
		t.Fatal("an operator's add was refused")
	}
}

func TestFinaliseNeedsEveryNode(t *testing.T) {
	f := New()
	for _, tag := range []string{"A", "B"} {
		mustApply(t, f, RegisterNodeCommand, registerCommand(tag, tag, "inc-"+tag))
	}
	mustApply(t, f, NodeVersionCommand, &raftv1.NodeVersion{Tag: "A", Id: "A", Version: 2, Build: "v2"})
	err, _ := mustApply(t, f, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: 2}).(error)
	if !errors.Is(err, ErrVersionUnsupported) || !strings.Contains(err.Error(), "B (version 1)") || strings.Contains(err.Error(), "A (") {
		t.Fatalf("finalising with B on an older build = %v, want ErrVersionUnsupported naming B only", err)
	}
	if got := f.ClusterVersion().Finalised; got != 1 {
		t.Fatalf("a refused finalisation moved the version to %d", got)
	}
	if err, _ := mustApply(t, f, NodeVersionCommand, &raftv1.NodeVersion{Tag: "B", Id: "A", Version: 2}).(error); !errors.Is(err, ErrNotRegistered) {
		t.Fatalf("a version stated for B by another member id = %v, want ErrNotRegistered", err)
	}
	if err, _ := mustApply(t, f, NodeVersionCommand, &raftv1.NodeVersion{Tag: "B", Id: "B"}).(error); !errors.Is(err, ErrInvalidVersion) {
		t.Fatalf("version 0 = %v, want ErrInvalidVersion", err)
	}
	mustApply(t, f, NodeVersionCommand, &raftv1.NodeVersion{Tag: "B", Id: "B", Version: 2, Build: "v2"})
	if out := mustApply(t, f, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: 2}); out != nil {
		t.Fatalf("finalising version 2 once every node supports it = %v", out)
	}
	cv := f.ClusterVersion()
	if cv.Finalised != 2 || cv.Nodes["A"] != (NodeVersion{Version: 2, Build: "v2"}) {
		t.Fatalf("after finalising: %+v", cv)
	}
	mustApply(t, f, RemoveNodeCommand, &raftv1.RemoveNode{Tag: "B"})
	if _, ok := f.ClusterVersion().Nodes["B"]; ok {
		t.Error("a removed node's version is still listed")
	}
}

func TestDowngradeIsRefusedOnceTheLogUsedTheVersion(t *testing.T) {
	f := New()
	founder := registerCommand("A", "A", "inc-a")
	founder.FoundingVersion = 2
	mustApply(t, f, RegisterNodeCommand, founder)
	if out := mustApply(t, f, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: 1}); out != nil {
		t.Fatalf("a downgrade before any version-2 command = %v", out)
	}
	// A refused command is in the log as much as an applied one.
	mustApply(t, f, ReleaseOwnerCommand, &raftv1.ReleaseOwner{Owner: "x", Database: "missing"})
	if got := f.ClusterVersion().Used; got != 2 {
		t.Fatalf("after a version-2 entry Used = %d, want 2", got)
	}
	before := snapshotBytes(t, f)
	err, _ := mustApply(t, f, SetClusterVersionCommand, &raftv1.SetClusterVersion{Version: 1}).(error)
	if !errors.Is(err, ErrDowngradeTooLate) {
		t.Fatalf("a downgrade below a version the log used = %v, want ErrDowngradeTooLate", err)
	}
	if !bytes.Equal(before, snapshotBytes(t, f)) {
		t.Error("a refused downgrade changed the state")
	}
	if err, _ := mustApply(t, f, SetClusterVersionCommand, &raftv1.SetClusterVersion{}).(error); !errors.Is(err, ErrInvalidVersion) {
		t.Errorf("version 0 = %v, want ErrInvalidVersion", err)
	}
}

func TestClusterVersionSurvivesASnapshot(t *testing.T) {
	f := New()
	founder := registerCommand("A", "A", "inc-a")
	founder.FoundingVersion = 2
	mustApply(t, f, RegisterNodeCommand, founder)
	mustApply(t, f, RegisterNodeCommand, &raftv1.RegisterNode{Tag: "B", Id: "B"})
	mustApply(t, f, NodeVersionCommand, &raftv1.NodeVersion{Tag: "A", Id: "A", Version: 2, Build: "v2 (commit 1)"})
	mustApply(t, f, ReleaseOwnerCommand, &raftv1.ReleaseOwner{Owner: "x"})
	data := snapshotBytes(t, f)
	g := mustRestore(t, data)
	want, got := f.ClusterVersion(), g.ClusterVersion()
	if got.Finalised != want.Finalised || got.Used != want.Used || len(got.Nodes) != 2 || got.Nodes["A"] != want.Nodes["A"] || got.Nodes["B"] != want.Nodes["B"] {
		t.Fatalf("restored %+v, want %+v", got, want)
	}
	if !bytes.Equal(data, snapshotBytes(t, g)) {
		t.Error("a restored state writes other bytes")
	}
}

func TestOnlyIgnorableCommandsStateVersions(t *testing.T) {
	for _, c := range []CommandType{NodeVersionCommand, SetClusterVersionCommand} {
		if c&Ignorable == 0 || VersionOf(c) != 1 {
			t.Errorf("command %d: an older build must be able to skip it", c)
		}
	}
	for c := range commands {
		v := VersionOf(c)
		if v > CurrentVersion || (v > 1 && c&Ignorable != 0) {
			t.Errorf("command %d: version %d, ignorable %v", c, v, c&Ignorable != 0)
		}
	}
	if VersionOf(ReleaseOwnerCommand) != 2 || CommandName(ReleaseOwnerCommand) != "ReleaseOwner" {
		t.Errorf("ReleaseOwner: version %d, name %q", VersionOf(ReleaseOwnerCommand), CommandName(ReleaseOwnerCommand))
	}
}

func TestReleaseOwnerReleasesOnlyThatOwnersClaims(t *testing.T) {
	f := New()
	mustApply(t, f, ClaimCommand, &raftv1.Claim{Ids: []string{"users/1", "users/2"}, Owner: "importer"})
	mustApply(t, f, ClaimCommand, &raftv1.Claim{Ids: []string{"users/3"}, Owner: "web"})
	res, ok := mustApply(t, f, ReleaseOwnerCommand, &raftv1.ReleaseOwner{Owner: "importer"}).(ReleaseResult)
	if !ok || res.Released != 2 {
		t.Fatalf("ReleaseOwner(importer) = %v, want 2 released", res)
	}
	claims, _, err := f.ListClaims("", "", "", 10)
	if err != nil || len(claims) != 1 || claims[0].Owner != "web" {
		t.Fatalf("claims left: %v, %v; want web's only", claims, err)
	}
}
