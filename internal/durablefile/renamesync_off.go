//go:build powercut_norenamesync

package durablefile

// syncAfterRename is off in this build: the power-cut test's deliberately broken idnode, whose
// renamed files may come back old, or not at all, after a power cut.
const syncAfterRename = false
