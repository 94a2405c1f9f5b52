package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/internal/filesum"
)

// How long `make dist` for one platform (two static builds and the SBOM) may take: all the time
// the test binary has left (go test gives a package 10 minutes) less distMargin, which the
// checks after it and the package's other tests need, or distMaxBuild when the binary has no
// deadline. From a cold build cache on the shared 2-core machine under a load average of 15
// the two builds took over seven minutes, past the five this once had.
const (
	distMargin   = time.Minute
	distMaxBuild = 20 * time.Minute
	// distWaitDelay bounds the wait for the output pipe once make is killed.
	distWaitDelay = 10 * time.Second
)

// distBuildTime is how long this run of TestDistArtefacts gives `make dist`.
func distBuildTime(t *testing.T) time.Duration {
	if deadline, ok := t.Deadline(); ok {
		return time.Until(deadline) - distMargin
	}
	return distMaxBuild
}

// The release artefacts: `make dist` builds them, every file is in
// SHA256SUMS with its checksum (and each binary in the SBOM with the same), and the binaries
// for this machine report the version they were built as and the commit. .ci/run checks its
// own full `make dist` with IDNODE_DIST_DIR and IDNODE_DIST_VERSION; otherwise the test makes
// one for this machine's platform in a temporary directory.
func TestDistArtefacts(t *testing.T) {
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	dir, version := os.Getenv("IDNODE_DIST_DIR"), os.Getenv("IDNODE_DIST_VERSION")
	var commit string
	if dir == "" {
		for _, tool := range []string{"make", "git"} {
			if _, err := exec.LookPath(tool); err != nil {
				t.Skipf("no %s on PATH", tool)
			}
		}
		// The commit the build stamps, read before it: a commit made in the worktree while
		// make dist runs (minutes on a loaded machine) is not the binaries'.
		commit = headCommit(t, root)
		dir, version = filepath.Join(t.TempDir(), "dist"), "v0.0.0-disttest"
		budget := distBuildTime(t)
		ctx, cancel := context.WithTimeout(context.Background(), budget)
		defer cancel()
		cmd := exec.CommandContext(ctx, "make", "-C", root, "dist", "DIST="+dir, "VERSION="+version,
			"PLATFORMS="+runtime.GOOS+"/"+runtime.GOARCH)
		// Killing make alone left its go builds running and holding the output pipe, and the
		// test waited minutes past its bound for them.
		inOwnGroup(cmd)
		cmd.WaitDelay = distWaitDelay
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("make dist (given %v, took %v): %v\n%s", budget.Round(time.Second), time.Since(start).Round(time.Second), err, out)
		}
	} else if dir, err = filepath.Abs(filepath.Join(root, dir)); err != nil || version == "" {
		t.Fatalf("IDNODE_DIST_DIR %q needs IDNODE_DIST_VERSION (%q): %v", dir, version, err)
	}

	sums := readSums(t, filepath.Join(dir, sumsFile))
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, e := range entries {
		if e.Name() != sumsFile {
			files = append(files, e.Name())
		}
	}
	listed := make([]string, 0, len(sums))
	for name := range sums {
		listed = append(listed, name)
	}
	slices.Sort(files)
	slices.Sort(listed)
	if !slices.Equal(files, listed) {
		t.Fatalf("%s lists %q; the directory holds %q", sumsFile, listed, files)
	}
	for name, want := range sums {
		if got, err := filesum.SHA256(filepath.Join(dir, name)); err != nil || got != want {
			t.Errorf("%s: SHA-256 %s, %v; %s says %s", name, got, err, sumsFile, want)
		}
	}
	for _, want := range []string{"LICENSE", "THIRD_PARTY.md", "idnode-" + version + ".spdx.json",
		"idnode-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH, "idctl-" + version + "-" + runtime.GOOS + "-" + runtime.GOARCH} {
		if _, ok := sums[want]; !ok {
			t.Errorf("no %s among the artefacts %q", want, files)
		}
	}

	var sbom spdxDoc
	raw, err := os.ReadFile(filepath.Join(dir, "idnode-"+version+".spdx.json"))
	if err == nil {
		err = json.Unmarshal(raw, &sbom)
	}
	if err != nil {
		t.Fatalf("the SBOM: %v", err)
	}
	described := 0
	for _, p := range sbom.Packages {
		if p.PackageFileName == "" {
			continue
		}
		described++
		if len(p.Checksums) != 1 || p.Checksums[0].ChecksumValue != sums[p.PackageFileName] || p.VersionInfo != version {
			t.Errorf("the SBOM describes %s as version %s, checksums %v; want %s, SHA256 %s", p.PackageFileName, p.VersionInfo, p.Checksums, version, sums[p.PackageFileName])
		}
	}
	if binaries := strings.Count(strings.Join(files, " "), "-"+version+"-"); described != binaries {
		t.Errorf("the SBOM describes %d binaries; the artefacts hold %d", described, binaries)
	}

	if commit == "" {
		commit = headCommit(t, root)
	}
	for _, b := range []string{"idnode", "idctl"} {
		bin := filepath.Join(dir, b+"-"+version+"-"+runtime.GOOS+"-"+runtime.GOARCH)
		out, err := exec.Command(bin, "--version").CombinedOutput()
		want := b + " " + version + " (commit " + commit[:12]
		if err != nil || !strings.HasPrefix(string(out), want) {
			t.Errorf("%s --version = %q, %v; want it to start %q", filepath.Base(bin), out, err, want)
		}
	}
}

// headCommit is the commit checked out at root.
func headCommit(t *testing.T, root string) string {
	t.Helper()
	head, err := exec.Command("git", "-C", root, "rev-parse", "HEAD").Output()
	if err != nil || len(bytes.TrimSpace(head)) < 12 {
		t.Fatalf("git rev-parse HEAD: %q, %v", head, err)
	}
	return string(bytes.TrimSpace(head))
}

// readSums reads a SHA256SUMS file: name → hex SHA-256.
func readSums(t *testing.T, path string) map[string]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		sum, name, ok := strings.Cut(sc.Text(), "  ")
		if !ok || len(sum) != 64 || name == "" {
			t.Fatalf("%s: line %q is not `SHA256  name`", path, sc.Text())
		}
		sums[name] = sum
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return sums
}
