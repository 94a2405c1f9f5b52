package metrics

import (
	"fmt"
	"strings"
	"testing"

	"github.com/idnode/idnode/fsm"
)

func TestClusterVersionIsExported(t *testing.T) {
	m := New()
	m.WatchClusterVersion(fsm.New())
	out := scrape(t, m.Handler())
	for _, want := range []string{
		`idnode_cluster_version{kind="finalised"} 1`,
		fmt.Sprintf(`idnode_cluster_version{kind="supported"} %d`, fsm.CurrentVersion),
	} {
		if !strings.Contains(out, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
