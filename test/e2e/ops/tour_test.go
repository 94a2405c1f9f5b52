package ops

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/loopback"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/postgres"
)

// The documentation's tours: every ```console block of a document is a tour. Its
// "$ " lines are commands, the lines after each (up to the next "$ ") the output the reader is
// shown. The tours of one document run in order, in one shell, against one node started on a
// fresh data dir, as a reader who pastes them does; they run under bash and under zsh.
//
// What may vary between runs is normalised, and only that: the node's ports (the docs show the
// defaults, 127.0.0.1:7070 for gRPC, :7080 for HTTP, :7100 for Raft; the test's node has free
// ones), "…" in the shown output stands for any text (a GUID, a timestamp, a random grant id),
// and JSON is compared compacted, so the docs may show grpcurl's indented answers on one line.
// HTTP answers (curl's output) are compared byte for byte, but for the newline that ends them:
// the HTTP API answers one compact form in every build (docs/http-api.md).

// tourDocs are the documents whose console blocks are tours, from the module root. The pages
// of one entry are one tour, in order: docs/idctl.md's goes on from docs/tour.md's node.
var tourDocs = [][]string{
	{"README.md"},
	{"docs/tour.md", "docs/idctl.md", "docs/databases.md"},
	{"docs/adopting-a-table.md"},
}

// tourDSN is the PostgreSQL database a tour shows (docs/adopting-a-table.md). A tour that
// names it runs against a private server of its own, whose DSN stands in for it.
const tourDSN = "postgres://app@127.0.0.1:5432/shop"

// tourTimeout bounds one document's tours under one shell.
const tourTimeout = 2 * time.Minute

// tourStep is one command of a tour and the output the document shows for it.
type tourStep struct {
	doc, command string
	line         int      // of the command in doc
	want         []string // shown output, one entry per line; none: nothing shown
}

// tourCommentRE finds a shell comment in a command: plain interactive zsh does not take them
// (interactive_comments is off), so a pasted "cmd  # note" would run with "#" and "note" as
// arguments.
var tourCommentRE = regexp.MustCompile(`(^|\s)#`)

// readTour returns the console blocks of doc, in order, as steps.
func readTour(t *testing.T, root, doc string) []tourStep {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(root, doc))
	if err != nil {
		t.Fatal(err)
	}
	var steps []tourStep
	inTour := false
	for i, line := range strings.Split(string(text), "\n") {
		switch {
		case strings.HasPrefix(line, "```console"):
			inTour = true
		case strings.HasPrefix(line, "```"):
			inTour = false
		case !inTour:
		case strings.HasPrefix(line, "$ "):
			cmd := strings.TrimPrefix(line, "$ ")
			if tourCommentRE.MatchString(cmd) {
				t.Errorf("%s:%d: a tour command has a comment, which plain zsh would pass as arguments: %s", doc, i+1, cmd)
			}
			steps = append(steps, tourStep{doc: doc, command: cmd, line: i + 1})
		case len(steps) == 0:
			t.Errorf("%s:%d: a console block must start with a \"$ \" command", doc, i+1)
		default:
			last := &steps[len(steps)-1]
			last.want = append(last.want, line)
		}
	}
	if len(steps) == 0 {
		t.Fatalf("%s has no ```console tour", doc)
	}
	return steps
}

func TestDocTours(t *testing.T) {
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	idctl := e2etest.BuildIdctl(t)
	ci := os.Getenv("CI") == "true"
	for _, docs := range tourDocs {
		var steps []tourStep
		for _, page := range docs {
			steps = append(steps, readTour(t, root, page)...)
		}
		doc := docs[0]
		for _, shell := range []string{"bash", "zsh"} {
			t.Run(doc+"/"+shell, func(t *testing.T) {
				for _, tool := range append([]string{shell}, toolsOf(steps)...) {
					if _, err := exec.LookPath(tool); err != nil {
						msg := fmt.Sprintf("%s's tours need %s, which is not installed (%s)", doc, tool, installHint(tool))
						if ci {
							t.Fatal(msg + "; .ci/run installs it")
						}
						t.Skip(msg)
					}
				}
				dsn := ""
				if slices.ContainsFunc(steps, func(s tourStep) bool { return strings.Contains(s.command, tourDSN) }) {
					dsn = postgres.ForTest(t).DSN
				}
				runTour(t, shell, idctl, steps, dsn)
			})
		}
	}
}

// toolsOf names the commands besides idctl and the shell's own that the steps run.
func toolsOf(steps []tourStep) []string {
	var tools []string
	for _, tool := range []string{"curl", "grpcurl", "psql"} {
		for _, s := range steps {
			if strings.Contains(s.command, tool+" ") {
				tools = append(tools, tool)
				break
			}
		}
	}
	return tools
}

func installHint(tool string) string {
	switch tool {
	case "grpcurl":
		return "go install github.com/fullstorydev/grpcurl/cmd/grpcurl@v1.9.4"
	case "psql":
		return "apt-get install postgresql-client"
	default:
		return "apt-get install " + tool
	}
}

// tourStepMark ends each step's output in the script's output: the step's number and exit
// status. No command of a tour prints it.
const tourStepMark = "@@tour-step"

// runTour starts a fresh node and runs steps in one shell process, each step's output followed
// by a mark with its exit status, then compares each step's output with the document's. dsn,
// if not empty, is the PostgreSQL that stands in for tourDSN.
func runTour(t *testing.T, shell, idctl string, steps []tourStep, dsn string) {
	httpAddr := loopback.FreeAddr(t)
	p := e2etest.StartNode(t, e2etest.NodeOpts{HTTPAddr: httpAddr})
	p.WaitServing(e2etest.ServeTimeout)
	// The docs show the defaults; the node has its own ports.
	to := []string{"127.0.0.1:7070", p.GRPCAddr, "localhost:7070", p.GRPCAddr, "127.0.0.1:7080", httpAddr, "localhost:7080", httpAddr}
	from := []string{p.GRPCAddr, "127.0.0.1:7070", httpAddr, "127.0.0.1:7080", p.RaftAddr, "127.0.0.1:7100"}
	if dsn != "" {
		to, from = append([]string{tourDSN, dsn}, to...), append([]string{dsn, tourDSN}, from...)
	}
	toNode, fromNode := strings.NewReplacer(to...), strings.NewReplacer(from...)

	dir := t.TempDir()
	// The docs run ./idctl after building it into the working directory.
	if err := os.Symlink(idctl, filepath.Join(dir, "idctl")); err != nil {
		t.Fatal(err)
	}
	var script strings.Builder
	if shell == "zsh" {
		// As in a plain interactive zsh, where a pasted "# note" is no comment.
		script.WriteString("unsetopt interactive_comments\n")
	}
	script.WriteString("exec 2>&1\n")
	for i, s := range steps {
		fmt.Fprintf(&script, "%s\nprintf '\\n%s %d %%d\\n' $?\n", toNode.Replace(s.command), tourStepMark, i)
	}
	scriptPath := filepath.Join(dir, "tour."+shell)
	if err := os.WriteFile(scriptPath, []byte(script.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), tourTimeout)
	defer cancel()
	args := []string{scriptPath}
	if shell == "zsh" {
		args = []string{"-f", scriptPath} // no start-up files: the reader's own do not count
	}
	cmd := exec.CommandContext(ctx, shell, args...)
	cmd.Dir = dir
	// No start-up file of the reader's (BASH_ENV) either; idctl's default address is the node.
	cmd.Env = nodeenv.Clean("HOME="+dir, "BASH_ENV=", "PATH="+filepath.Dir(idctl)+string(os.PathListSeparator)+os.Getenv("PATH"),
		"IDNODE_ADDR="+p.GRPCAddr)
	cmd.WaitDelay = e2etest.StopTimeout // a command left running must not hold the output pipe for ever
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", shell, scriptPath, err, out.String())
	}
	outputs, codes := splitTourOutput(t, fromNode.Replace(out.String()), len(steps))
	for i, s := range steps {
		got, want := strings.TrimRight(outputs[i], "\n"), strings.Join(s.want, "\n")
		if !strings.Contains(s.command, "curl ") {
			got, want = normaliseTourOutput(got), normaliseTourOutput(want)
		}
		failed := strings.HasPrefix(want, "ERROR:") || strings.HasPrefix(want, "idctl: ")
		switch {
		case (codes[i] != 0) != failed:
			t.Errorf("%s:%d: %s\nexit status %d; the document shows %s\noutput:\n%s", s.doc, s.line, s.command, codes[i],
				map[bool]string{true: "a failure", false: "success"}[failed], outputs[i])
		case !tourOutputMatches(want, got):
			t.Errorf("%s:%d: %s\ngot (normalised):\n%s\nthe document shows:\n%s", s.doc, s.line, s.command, got, want)
		}
	}
}

// splitTourOutput cuts the script's output at the steps' marks.
func splitTourOutput(t *testing.T, out string, n int) (outputs []string, codes []int) {
	t.Helper()
	markRE := regexp.MustCompile(`(?m)^` + tourStepMark + ` (\d+) (\d+)$`)
	rest := out
	for i := range n {
		loc := markRE.FindStringSubmatchIndex(rest)
		if loc == nil {
			t.Fatalf("the tour stopped before step %d; output from there:\n%s", i, rest)
		}
		if step, _ := strconv.Atoi(rest[loc[2]:loc[3]]); step != i {
			t.Fatalf("step %d's mark reads %d", i, step)
		}
		code, _ := strconv.Atoi(rest[loc[4]:loc[5]])
		outputs = append(outputs, rest[:loc[0]])
		codes = append(codes, code)
		rest = strings.TrimPrefix(rest[loc[1]:], "\n") // the mark's line end
	}
	return outputs, codes
}

// normaliseTourOutput compacts JSON; other output loses its blank lines and runs of space.
func normaliseTourOutput(s string) string {
	var compact bytes.Buffer
	if json.Compact(&compact, []byte(s)) == nil {
		return compact.String()
	}
	var lines []string
	for _, l := range strings.Split(s, "\n") {
		if fields := strings.Fields(l); len(fields) > 0 {
			lines = append(lines, strings.Join(fields, " "))
		}
	}
	return strings.Join(lines, "\n")
}

// tourOutputMatches compares got with the shown output, in which "…" stands for any text.
func tourOutputMatches(want, got string) bool {
	parts := strings.Split(want, "…")
	for i, part := range parts {
		parts[i] = regexp.QuoteMeta(part)
	}
	return regexp.MustCompile(`(?s)^` + strings.Join(parts, ".*?") + `$`).MatchString(got)
}
