package chaostest

import (
	"slices"
	"testing"
)

// docker ps's lines name each container's service; a container of the project run outside
// compose has none and is not a node's, and a service's containers are all kept, so that one
// with two is refused rather than one picked.
func TestContainersByService(t *testing.T) {
	out := "aaa idnode-a\nbbb idnode-b\nccc \nddd idnode-b\n\n"
	got := containersByService(out)
	if !slices.Equal(got["idnode-a"], []string{"aaa"}) || !slices.Equal(got["idnode-b"], []string{"bbb", "ddd"}) || len(got) != 2 {
		t.Errorf("containersByService(%q) = %v", out, got)
	}
}
