// Package prebuilt is the programs the tests run (idnode, idctl, their helpers) and how each
// is built, so that a CI run builds each once for every test package: .ci/run builds them
// all into one folder (internal/cmd/prebuild) and names it in $IDNODE_PREBUILT, and a test
// takes a program from there, building it itself only when the folder is not set or lacks it.
// The folder can mark images built too, such as the chaos suite's.
package prebuilt

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/helpers/filelock"
)

// Env names the folder of programs built ahead.
const Env = "IDNODE_PREBUILT"

// E2EVersion is the version the tests' idnode and idctl are built with (-ldflags, as `make
// build` does with git describe), so a test can tell every surface that reports it shows that
// one.
const E2EVersion = "v0.0.0-e2e"

var versionLDFlags = "-X github.com/idnode/idnode/internal/version.version=" + E2EVersion

// staticFlags and staticEnv build a program for a scratch image: static, trimmed, stripped.
var (
	staticFlags = []string{"-trimpath", "-ldflags=-s -w"}
	staticEnv   = []string{"CGO_ENABLED=0"}
)

// Program is a program of this repository that the tests run, and how to build it.
type Program struct {
	Name   string   // its file's name
	Module string   // the folder of its module, relative to the repository's root ("" for the root's)
	Pkg    string   // its package, relative to that folder
	Flags  []string // go build's flags besides -o
	Env    []string // go build's environment besides this process's
}

// The programs the tests run.
var (
	Idnode      = Program{Name: "idnode", Pkg: "./cmd/idnode", Flags: []string{"-ldflags", versionLDFlags}}
	Idctl       = Program{Name: "idctl", Pkg: "./cmd/idctl", Flags: []string{"-ldflags", versionLDFlags}}
	FlakeMinter = Program{Name: "flakeminter", Pkg: "./test/flakeminter"}
	IDCluster   = Program{Name: "idcluster", Pkg: "./test/conformance/idcluster"}
	// IdnodeStatic and DiskfillStatic go into the images the Docker tests build.
	IdnodeStatic   = Program{Name: "idnode-static", Pkg: "./cmd/idnode", Flags: staticFlags, Env: staticEnv}
	DiskfillStatic = Program{Name: "diskfill-static", Pkg: "./test/diskfill", Flags: staticFlags, Env: staticEnv}
	// Otelcol is the OpenTelemetry Collector the tracing test exports to, in a module of its
	// own, built without inlining: a receiver of a few spans does not miss it, and a cold
	// build takes 102 CPU seconds, not 133.
	Otelcol = Program{Name: "otelcol", Module: "test/e2e/tracing/otelcol", Pkg: ".", Flags: []string{"-gcflags=all=-l"}}
)

// FastBackupsTag builds the daemon whose scheduled backups may be a second apart and whose
// issue rates are sampled every second: the backup drill's (test/e2e/backups).
const FastBackupsTag = "fastbackups"

// All are the programs a CI run builds ahead: the backup drill's daemon too, which the drill
// would otherwise build within its own time. Other variants (a daemon built with a build
// tag a test must catch, say) are built by their test.
var All = []Program{Idnode, Idctl, FlakeMinter, IDCluster, IdnodeStatic, DiskfillStatic, Tagged(FastBackupsTag), Otelcol}

// Tagged is the daemon built with build tag tag besides Idnode's flags.
func Tagged(tag string) Program {
	return Program{Name: "idnode-" + tag, Pkg: Idnode.Pkg, Flags: append([]string{"-tags", tag}, Idnode.Flags...)}
}

// Prebuilt is p's file in the folder $IDNODE_PREBUILT names, if it is set and holds it.
func (p Program) Prebuilt() (string, bool) {
	dir := os.Getenv(Env)
	if dir == "" {
		return "", false
	}
	path := filepath.Join(dir, p.Name)
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return "", false
	}
	return path, true
}

// Build builds p from the repository at root into the file out.
func (p Program) Build(ctx context.Context, root, out string) error {
	// go build runs in the module's folder, where a relative out would lead elsewhere.
	out, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, p.Flags...), "-o", out, p.Pkg)...)
	cmd.Dir = filepath.Join(root, p.Module)
	cmd.Env = append(os.Environ(), p.Env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s %s: %w\n%s", strings.Join(p.Flags, " "), p.Pkg, err, b)
	}
	return nil
}

// Path is p's prebuilt file, or else p built from the repository at root into the folder
// its test packages share (buildShared).
func (p Program) Path(ctx context.Context, root string) (string, error) {
	if path, ok := p.Prebuilt(); ok {
		return path, nil
	}
	return p.buildShared(ctx, root)
}

// userCacheDir is os.UserCacheDir, but in the test of sharedDir.
var userCacheDir = os.UserCacheDir

// sharedDir is the folder of programs the tests of the checkout at root build when no CI run
// built them ahead: in the user's cache folder (or else the temp folder), kept from one run to
// the next, and one per checkout, so that two checkouts at different commits do not relink
// each other's files in turn.
func sharedDir(root string) (string, error) {
	base, err := userCacheDir()
	if err != nil {
		base = os.TempDir()
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	sum := sha256.Sum256([]byte(abs))
	return filepath.Join(base, "idnode-test-programs", hex.EncodeToString(sum[:6])), nil
}

// buildShared builds p into sharedDir, one test process at a time (a lock beside the
// program's file), and returns its path. go build links nothing when the file there is
// current, its build ID the one the build would give it: in `go test ./...` the first
// package that runs a program links it and the others find it built, where each used to link
// the programs it ran into a temp folder of its own (thirty links or so a run).
func (p Program) buildShared(ctx context.Context, root string) (string, error) {
	dir, err := sharedDir(root)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	out := filepath.Join(dir, p.Name)
	lock, err := filelock.Lock(ctx, out+".lock", 100*time.Millisecond)
	if err != nil {
		return "", fmt.Errorf("building %s: %w", p.Name, err)
	}
	defer lock.Close()
	return out, p.Build(ctx, root, out)
}

// buildTimeout bounds a test's own build of a program, when no CI run built it ahead.
const buildTimeout = 10 * time.Minute

// ForTest is p for a test in a package rel folders below the repository's root (rel "../.."
// from test/e2e/x): its prebuilt file, or else p built (buildShared) within buildTimeout. It
// fails t if p cannot be had.
func (p Program) ForTest(t testing.TB, rel string) string {
	t.Helper()
	root, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	path, err := p.Path(ctx, root)
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Place puts a copy of p at out (an image's build context, say).
func (p Program) Place(ctx context.Context, root, out string) error {
	path, err := p.Path(ctx, root)
	if err != nil {
		return err
	}
	src, err := os.Open(path)
	if err != nil {
		return err
	}
	defer src.Close()
	dst, err := os.OpenFile(out, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o755)
	if err != nil {
		return err
	}
	_, err = io.Copy(dst, src)
	if cerr := dst.Close(); err == nil {
		err = cerr
	}
	return err
}
