// Package nodeenv is the environment the tests give the idnode processes they start: theirs,
// without a developer's IDNODE_* settings, which would otherwise change what the tests run.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package nodeenv

import (
	"os"
	"strings"
)

// Clean is this process's environment without IDNODE_*, plus extra.
func Clean(extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "IDNODE_") {
			env = append(env, kv)
		}
	}
	return append(env, extra...)
}
