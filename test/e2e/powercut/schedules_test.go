package powercut

import (
	"math/rand/v2"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/lossyfs"
)

// afterCutAcks is how many answers the load must have after the restart before the checks:
// the cluster hands out numbers again, so a repeat would show.
const afterCutAcks = 150

// TestPowerCutWholeClusterAtRandom cuts the power of all three nodes at once at a random moment
// of the load, once clean and once torn.
func TestPowerCutWholeClusterAtRandom(t *testing.T) {
	for _, mode := range []lossyfs.CutMode{lossyfs.Clean, lossyfs.Torn} {
		t.Run(mode.String(), func(t *testing.T) {
			pc := startPowerCluster(t, "")
			before := 100 + rand.IntN(300)
			pc.waitAcks(before)
			pc.cut(mode, e2etest.ClusterTags...)
			serving := pc.restart(e2etest.ClusterTags...)
			if len(serving) >= 2 {
				pc.waitAcks(pc.led.acked() + afterCutAcks)
			}
			pc.check("whole-cluster-random-"+mode.String(), serving)
		})
	}
}
