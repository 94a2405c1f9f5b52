package ops

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// promtoolTimeout bounds one `promtool test rules` run: it evaluates a few series in
// milliseconds, and a busy machine gets plenty more.
const promtoolTimeout = time.Minute

// needPromtool returns promtool's path. Without it the test skips, except under CI=true,
// where .ci/run installs it (the Debian package prometheus) and its absence is a failure.
func needPromtool(t *testing.T) string {
	t.Helper()
	path, err := exec.LookPath("promtool")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("promtool not found under CI=true (.ci/run installs the Debian package prometheus): %v", err)
		}
		t.Skipf("promtool not found (apt-get install prometheus): %v", err)
	}
	return path
}

// alertRules is deploy/prometheus/alerts.yml, the rules an operator loads.
func alertRules(t *testing.T) string {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(root, "deploy", "prometheus", "alerts.yml")
}

// promtoolTestRules runs `promtool test rules` on a test file whose body (its tests: list
// and anything else after rule_files) is given, against deploy/prometheus/alerts.yml, and
// fails the test with promtool's answer unless every case passes.
func promtoolTestRules(t *testing.T, body string) {
	t.Helper()
	promtool := needPromtool(t)
	file := filepath.Join(t.TempDir(), "clock_alerts_test.yml")
	text := "rule_files: [" + quoteYAML(alertRules(t)) + "]\nevaluation_interval: 1m\n" + body
	if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), promtoolTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, promtool, "test", "rules", file).CombinedOutput()
	if err != nil {
		t.Fatalf("promtool test rules on the scraped values: %v\n%s\nthe test file:\n%s", err, out, text)
	}
}

// quoteYAML is s as a double-quoted YAML scalar.
func quoteYAML(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}
