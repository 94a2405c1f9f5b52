package nodeenv

import (
	"slices"
	"testing"
)

func TestCleanDropsOnlyIDNodeSettings(t *testing.T) {
	t.Setenv("IDNODE_DATA_DIR", "/somewhere")
	t.Setenv("NODEENV_KEPT", "yes")
	env := Clean("IDNODE_BIN=/bin/idnode")
	if slices.Contains(env, "IDNODE_DATA_DIR=/somewhere") {
		t.Error("a developer's IDNODE_DATA_DIR reached the nodes' environment")
	}
	if !slices.Contains(env, "NODEENV_KEPT=yes") {
		t.Error("a variable other than IDNODE_* was dropped")
	}
	if env[len(env)-1] != "IDNODE_BIN=/bin/idnode" {
		t.Errorf("extra not appended last: %q", env[len(env)-1])
	}
}
