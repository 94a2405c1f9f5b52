// Package hostile tests real idnode processes against hostile callers: bad input, exhaustion
// of the gRPC, HTTP and Raft ports, look-alike IDs, foreign Host headers, and answers that
// must fit their message limit.
package hostile

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
