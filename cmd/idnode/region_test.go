package main

import (
	"io"
	"strings"
	"testing"
)

// --region and --preferred-region take a cloud's region or zone names, from flags or the
// environment, and nothing else.
func TestRegionLabels(t *testing.T) {
	c := mustParse(t, []string{"--region", "eu-west-1"}, map[string]string{"IDNODE_PREFERRED_REGION": "us-east1-b"})
	if c.region != "eu-west-1" || c.preferredRegion != "us-east1-b" {
		t.Errorf("region %q, preferred %q", c.region, c.preferredRegion)
	}
	for _, args := range [][]string{
		{"--region", "eu west"},
		{"--region", "a/b"},
		{"--preferred-region", "é"},
		{"--preferred-region", strings.Repeat("a", maxRegionLen+1)},
	} {
		_, err := parseConfig(args, environ(nil), io.Discard)
		if err == nil || !strings.Contains(err.Error(), args[0]) {
			t.Errorf("%q: %v, want an error naming %s", args, err, args[0])
		}
	}
}
