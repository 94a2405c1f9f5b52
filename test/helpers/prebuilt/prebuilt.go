// Package prebuilt is the programs the tests run (idnode, idctl, their helpers) and how each
// is built, so that a CI run builds each once for every test package: .ci/run builds them
// all into one folder (internal/cmd/prebuild) and names it in $IDNODE_PREBUILT, and a test
// takes a program from there, building it itself only when the folder is not set or lacks it.
// The folder can mark images built too, such as the chaos suite's.
package prebuilt

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
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

// Program is a program of this module that the tests run, and how to build it.
type Program struct {
	Name  string   // its file's name
	Pkg   string   // its package, relative to the repository's root
	Flags []string // go build's flags besides -o
	Env   []string // go build's environment besides this process's
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
)

// FastBackupsTag builds the daemon whose scheduled backups may be a second apart and whose
// issue rates are sampled every second: the backup drill's (test/e2e/backups).
const FastBackupsTag = "fastbackups"

// All are the programs a CI run builds ahead: the backup drill's daemon too, which the drill
// would otherwise build within its own time. Other variants (a daemon built with a build
// tag a test must catch, say) are built by their test.
var All = []Program{Idnode, Idctl, FlakeMinter, IDCluster, IdnodeStatic, DiskfillStatic, Tagged(FastBackupsTag)}

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
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"build"}, p.Flags...), "-o", out, p.Pkg)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), p.Env...)
	if b, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("go build %s %s: %w\n%s", strings.Join(p.Flags, " "), p.Pkg, err, b)
	}
	return nil
}

// Path is p's prebuilt file, or else p built from the repository at root into dir.
func (p Program) Path(ctx context.Context, root, dir string) (string, error) {
	if path, ok := p.Prebuilt(); ok {
		return path, nil
	}
	out := filepath.Join(dir, p.Name)
	return out, p.Build(ctx, root, out)
}

// buildTimeout bounds a test's own build of a program, when no CI run built it ahead.
const buildTimeout = 10 * time.Minute

// ForTest is p for a test in a package rel folders below the repository's root (rel "../.."
// from test/e2e/x): its prebuilt file, or else p built into the test's temp dir, within
// buildTimeout. It fails t if p cannot be had.
func (p Program) ForTest(t testing.TB, rel string) string {
	t.Helper()
	root, err := filepath.Abs(rel)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
	defer cancel()
	path, err := p.Path(ctx, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// Place puts p at out (an image's build context, say): a copy of its prebuilt file, or else
// p built from the repository at root.
func (p Program) Place(ctx context.Context, root, out string) error {
	path, ok := p.Prebuilt()
	if !ok {
		return p.Build(ctx, root, out)
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
