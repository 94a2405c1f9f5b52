package main

import (
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// The summary says how many databases' opaque settings and keys a restore put back, and says
// nothing of keys when the backup held none.
func TestRestoreKeys(t *testing.T) {
	var b strings.Builder
	if err := restoreKeys(&b, &idnodev1.RestoreResponse{OpaqueDatabases: 2, OpaqueRestored: 1}); err != nil {
		t.Fatal(err)
	}
	if want := "opaque settings and keys of 2 databases (1 new here)"; !strings.Contains(b.String(), want) {
		t.Errorf("summary %q, want %q", b.String(), want)
	}
	b.Reset()
	if err := restoreKeys(&b, &idnodev1.RestoreResponse{Identities: 3}); err != nil {
		t.Fatal(err)
	}
	if b.Len() != 0 {
		t.Errorf("a restore without keys says %q", b.String())
	}
}
