package e2etest

import (
	"sync"
	"testing"

	"github.com/idnode/idnode/test/helpers/prebuilt"
)

// taggedBinaries are the daemons built with a build tag, by tag.
var taggedBinaries = struct {
	sync.Mutex
	byTag map[string]*goBinary
}{byTag: map[string]*goBinary{}}

// BuildIdnodeTagged builds the daemon with build tag tag (a deliberately broken build a test
// must catch, say), once per test binary, and returns its path.
func BuildIdnodeTagged(t testing.TB, tag string) string {
	t.Helper()
	taggedBinaries.Lock()
	b := taggedBinaries.byTag[tag]
	if b == nil {
		b = &goBinary{prog: prebuilt.Tagged(tag)}
		taggedBinaries.byTag[tag] = b
	}
	taggedBinaries.Unlock()
	return b.build(t)
}
