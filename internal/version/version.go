// Package version says which build of idnode is running: the module version and the commit it
// was built from, read from the binary's build information (Go stamps both into binaries built
// from a module or a git checkout), or set with -ldflags where the build has neither (the
// container image is built from a copy of the source without .git).
package version

import (
	"fmt"
	"runtime"
	"runtime/debug"
	"sync"
)

// Set at link time when the build information lacks them:
//
//	go build -ldflags "-X github.com/idnode/idnode/internal/version.version=v0.9.0 -X github.com/idnode/idnode/internal/version.commit=$(git rev-parse HEAD)"
var (
	version string
	commit  string
)

// Info is one build's identity.
type Info struct {
	Version   string `json:"version"`  // the module version ("v0.9.0"), or "(devel)" for a build from a checkout
	Commit    string `json:"commit"`   // the VCS revision, "" when unknown
	Modified  bool   `json:"modified"` // built from a checkout with uncommitted changes
	GoVersion string `json:"go_version"`
}

// buildInfo is the binary's build information, read once: every Status probe asks for the
// version, and the binary does not change while it runs.
var buildInfo = sync.OnceValues(debug.ReadBuildInfo)

// Get reads the running binary's Info.
func Get() Info {
	info := Info{Version: "(devel)", GoVersion: runtime.Version()}
	if bi, ok := buildInfo(); ok {
		if v := bi.Main.Version; v != "" {
			info.Version = v
		}
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				info.Commit = s.Value
			case "vcs.modified":
				info.Modified = s.Value == "true"
			}
		}
	}
	if version != "" {
		info.Version = version
	}
	if commit != "" {
		info.Commit = commit
	}
	return info
}

// String is the one-line form every surface shows (idnode version, idctl version, Status):
// "v0.9.0 (commit 1a2b3c4d5e6f, go1.26.0)".
func (i Info) String() string {
	c := i.Commit
	if len(c) > 12 {
		c = c[:12]
	}
	if c == "" {
		c = "unknown"
	}
	if i.Modified {
		c += "+modified"
	}
	return fmt.Sprintf("%s (commit %s, %s)", i.Version, c, i.GoVersion)
}
