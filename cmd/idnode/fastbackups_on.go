//go:build fastbackups

package main

import "time"

// fastIssueRates is how often this build samples the issue rates a backup records: every
// second, so that a backup taken seconds after the load started records its rate (the release
// build samples once a minute).
const fastIssueRates = time.Second

// applyFastBackups makes the node sample its issue rates every second (scheduled backups may
// be as often as node.MinBackupInterval, a second in this build) and says so in the log.
func (c *config) applyFastBackups() {
	c.issueRatesInterval = fastIssueRates
	c.warnings = append(c.warnings, "this is a test build (tag fastbackups): scheduled backups may be taken every second and the issue rates are sampled every second; never run it in production")
}
