package main

import (
	"bytes"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

// repoRoot is the repository's root, seen from this package's directory.
const repoRoot = "../../.."

// repoModules lists the build's modules once for every test: each listing runs `go list`
// for four platforms.
var repoModules = sync.OnceValues(func() ([]module, error) { return buildModules(repoRoot) })

// The committed THIRD_PARTY.md must be what the generator writes for today's go.mod, so a
// dependency added, removed or upgraded without regenerating it fails here.
func TestThirdPartyFileIsCurrent(t *testing.T) {
	mods, err := repoModules()
	if err != nil {
		t.Fatal(err)
	}
	var want bytes.Buffer
	if err := writeNotice(&want, mods); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(filepath.Join(repoRoot, "THIRD_PARTY.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("THIRD_PARTY.md is out of date: run `go run ./internal/cmd/release notice > THIRD_PARTY.md` at the repository root\n--- generated:\n%s", want.String())
	}
}

// Every module the binaries link has a licence the generator recognised, and the list names
// the ones the project is known to depend on.
func TestThirdPartyNamesRaftAndGRPC(t *testing.T) {
	mods, err := repoModules()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"github.com/hashicorp/raft": "MPL-2.0", "google.golang.org/grpc": "Apache-2.0", "go.etcd.io/bbolt": "MIT"}
	for _, m := range mods {
		if m.Path == "github.com/idnode/idnode" {
			t.Errorf("the main module is listed as a third party")
		}
		id, _, err := licenseOf(m.Dir)
		if err != nil {
			t.Errorf("%s: %v", m.Path, err)
		}
		if w, ok := want[m.Path]; ok {
			if id != w {
				t.Errorf("%s: licence %s, want %s", m.Path, id, w)
			}
			delete(want, m.Path)
		}
	}
	for p := range want {
		t.Errorf("%s missing from the build's modules", p)
	}
}
