//go:build !fastbackups

package main

// The release build samples the issue rates at the server's default (a minute) and keeps the
// backup interval's floor at a minute; fastbackups_on.go is the backup drill's test build.

// applyFastBackups does nothing in the release build.
func (*config) applyFastBackups() {}
