package main

import (
	"fmt"
	"strings"
)

// finishRegion reads --region and --node-regions: the region of the Go client a run calls
// through, and each node's (client.WithRegion), so that a benchmark of a cluster spread over
// regions measures a client that stays in its own. The client itself refuses a region none of
// --nodes is in, or an address that is not one of them, when the run dials it.
func (c *config) finishRegion(nodeRegions string, set map[string]bool) error {
	if !set["region"] && !set["node-regions"] {
		return nil
	}
	if c.target != targetIdnode || (c.via != viaGoClient && c.strategy != stratClientHiLo) {
		return fmt.Errorf("--region and --node-regions apply to runs through the Go client (--via go-client, client-hilo), not %s", c.describe())
	}
	if c.region == "" || nodeRegions == "" {
		return fmt.Errorf("--region and --node-regions go together: the client's region, and ADDR=REGION for each of --nodes")
	}
	c.nodeRegions = map[string]string{}
	for _, part := range strings.Split(nodeRegions, ",") {
		addr, region, ok := strings.Cut(strings.TrimSpace(part), "=")
		if !ok || addr == "" || region == "" {
			return fmt.Errorf("--node-regions: %q is not ADDR=REGION", part)
		}
		if _, dup := c.nodeRegions[addr]; dup {
			return fmt.Errorf("--node-regions names %s twice", addr)
		}
		c.nodeRegions[addr] = region
	}
	return nil
}
