package ops

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/testclock"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// testClockPackage is the package only the test-clock build links.
const testClockPackage = "github.com/idnode/idnode/internal/testclock."

// TestReleaseBuildIgnoresTheTestClock starts the release build and the test-clock build, each
// a single node, with IDNODE_TEST_CLOCK_FILE naming a file that puts the clock ten years
// ahead. The test build's numeric layouts have ten years fewer left (idnode_numeric_time_left_years
// reads the node's clock) and its log says it is a test build; the release build's gauge is
// ten years above it, its log names the variable as unknown and ignored, and its binary does
// not hold the test clock's code at all.
func TestReleaseBuildIgnoresTheTestClock(t *testing.T) {
	t.Parallel()
	const tenYears = 87660 * time.Hour // Julian years, as the gauge counts them
	file := filepath.Join(t.TempDir(), "offset")
	if err := testclock.Write(file, tenYears); err != nil {
		t.Fatal(err)
	}
	yearsLeft := map[string]float64{}
	logs := map[string]string{}
	for build, bin := range map[string]string{"release": e2etest.BuildIdnode(t), "test": e2etest.BuildIdnodeTagged(t, testClockTag)} {
		metricsAddr := e2etest.FreeAddr(t)
		p := e2etest.StartNode(t, e2etest.NodeOpts{Binary: bin, Env: []string{testClockFileEnv + "=" + file}, Extra: []string{"--metrics-addr", metricsAddr}})
		p.WaitServing(e2etest.ServeTimeout)
		yearsLeft[build] = e2etest.MetricValue(t, e2etest.Scrape(t, metricsAddr), `idnode_numeric_time_left_years{layout="default"}`)
		logs[build] = p.Logs.String()
		code, err := os.ReadFile(bin)
		if err != nil {
			t.Fatal(err)
		}
		if linked := bytes.Contains(code, []byte(testClockPackage)); linked != (build == "test") {
			t.Errorf("the %s build's binary holds %s: %v", build, testClockPackage, linked)
		}
	}
	if got := yearsLeft["release"] - yearsLeft["test"]; math.Abs(got-tenYears.Hours()/(365.25*24)) > 0.01 {
		t.Errorf("numeric years left: release build %v, test build %v; want the test build's ten years fewer (the file's offset)", yearsLeft["release"], yearsLeft["test"])
	}
	if !strings.Contains(logs["release"], "unknown variable "+testClockFileEnv) || strings.Contains(logs["release"], "this is a test build") {
		t.Errorf("the release build's log does not name %s as unknown, or calls itself a test build:\n%s", testClockFileEnv, logs["release"])
	}
	if !strings.Contains(logs["test"], "this is a test build") {
		t.Errorf("the test build's log does not say it is one:\n%s", logs["test"])
	}
}
