package backups

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/nodeenv"
)

// restoringDoc is the page whose console blocks the drill runs to restore: every "$ " line a
// command, the lines after it the output the reader is shown, "…" standing for any text.
const restoringDoc = "docs/restoring.md"

// The page's stand-ins, each replaced by the drill's own in commands and output.
const (
	docAddr     = "127.0.0.1:7070"
	docTarget   = "s3://idnode-backups/prod"
	docEndpoint = "s3.internal:9000"
	docBackup   = "idnode-prod-20261127T200000Z.idbk"
)

// docCommandTimeout bounds one command of the page.
const docCommandTimeout = time.Minute

// restoreDocSetting is what the page's stand-ins become.
type restoreDocSetting struct {
	addr, target, endpoint, backup string
	dir                            string   // the working dir, holding backup.pass
	env                            []string // the S3 credentials
}

type docStep struct {
	line    int
	command string
	want    []string
}

// readDocSteps reads the console blocks of the page.
func readDocSteps(t *testing.T) []docStep {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	text, err := os.ReadFile(filepath.Join(root, restoringDoc))
	if err != nil {
		t.Fatal(err)
	}
	var steps []docStep
	in := false
	for i, line := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			in = true
		case strings.HasPrefix(line, "```"):
			in = false
		case !in:
		case strings.HasPrefix(line, "$ "):
			steps = append(steps, docStep{line: i + 1, command: strings.TrimPrefix(line, "$ ")})
		case len(steps) > 0:
			steps[len(steps)-1].want = append(steps[len(steps)-1].want, line)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no console block", restoringDoc)
	}
	return steps
}

// runRestoringDoc runs the page's commands in order under bash, idctl first on the PATH, with
// the node's S3 variables a restoring operator would have (the credentials, and plain HTTP:
// the test's S3 server speaks no TLS), and checks each one's output against the page's.
func runRestoringDoc(t *testing.T, s restoreDocSetting) {
	t.Helper()
	idctl := e2etest.BuildIdctl(t)
	replace := strings.NewReplacer(docAddr, s.addr, docTarget, s.target, docEndpoint, s.endpoint, docBackup, s.backup)
	env := nodeenv.Clean(append(s.env, "PATH="+filepath.Dir(idctl)+":/usr/bin:/bin", "T=", "IDNODE_BACKUP_S3_TLS=false")...)
	for _, st := range readDocSteps(t) {
		ctx, cancel := context.WithTimeout(context.Background(), docCommandTimeout)
		cmd := exec.CommandContext(ctx, "bash", "-c", replace.Replace(st.command))
		cmd.Dir, cmd.Env, cmd.WaitDelay = s.dir, env, time.Second
		out, err := cmd.CombinedOutput()
		cancel()
		if err != nil {
			t.Fatalf("%s:%d: %s: %v\n%s", restoringDoc, st.line, st.command, err, out)
		}
		got := strings.Split(strings.TrimSuffix(string(out), "\n"), "\n")
		t.Logf("%s:%d: %s\n%s", restoringDoc, st.line, st.command, out)
		if len(got) != len(st.want) {
			t.Fatalf("%s:%d: %d lines of output, the page shows %d:\n%s", restoringDoc, st.line, len(got), len(st.want), out)
		}
		for i, w := range st.want {
			if !docLine(replace.Replace(w)).MatchString(got[i]) {
				t.Errorf("%s:%d: output line %d is\n\t%s\nthe page shows\n\t%s", restoringDoc, st.line, i+1, got[i], w)
			}
		}
	}
}

// docLine matches an output line as the page shows it, "…" standing for any text.
func docLine(shown string) *regexp.Regexp {
	parts := strings.Split(shown, "…")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return regexp.MustCompile("^" + strings.Join(parts, ".*") + "$")
}
