package main

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"sort"
	"strings"
)

// commands are the binaries a release ships; the third-party list names what they link.
var commands = []string{"./cmd/idnode", "./cmd/idctl"}

// platforms are the targets `make dist` builds. A module can be linked on one only (a build
// tag), so the list is their union and the same on every host.
var platforms = [][2]string{{"linux", "amd64"}, {"linux", "arm64"}, {"darwin", "amd64"}, {"darwin", "arm64"}}

// module is one dependency linked into a release binary.
type module struct {
	Path    string
	Version string
	Dir     string // its copy in the module cache, or the patched copy in third_party
}

// buildModules lists the modules linked into the release binaries on any release platform,
// by path, the main module left out. root is the repository's root directory. A module
// replaced by a directory (a patched copy in third_party) has its version marked +idnode.
func buildModules(root string) ([]module, error) {
	seen := map[string]module{}
	for _, p := range platforms {
		cmd := exec.Command("go", append([]string{"list", "-deps",
			"-f", "{{with .Module}}{{if not .Main}}{{.Path}} {{.Version}}{{with .Replace}}{{if not .Version}}+idnode{{end}}{{end}} {{.Dir}}{{end}}{{end}}"}, commands...)...)
		cmd.Dir = root
		cmd.Env = append(os.Environ(), "GOOS="+p[0], "GOARCH="+p[1], "CGO_ENABLED=0", "GOFLAGS=-mod=readonly")
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("go list for %s/%s: %v: %s", p[0], p[1], err, strings.TrimSpace(stderr.String()))
		}
		sc := bufio.NewScanner(bytes.NewReader(out))
		for sc.Scan() {
			f := strings.SplitN(sc.Text(), " ", 3)
			if len(f) != 3 {
				continue // a standard-library package: no module
			}
			if f[2] == "" {
				return nil, fmt.Errorf("%s %s is not in the module cache: run `go mod download` first", f[0], f[1])
			}
			seen[f[0]] = module{Path: f[0], Version: f[1], Dir: f[2]}
		}
	}
	mods := make([]module, 0, len(seen))
	for _, m := range seen {
		mods = append(mods, m)
	}
	sort.Slice(mods, func(i, j int) bool { return mods[i].Path < mods[j].Path })
	return mods, nil
}
