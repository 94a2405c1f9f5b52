//go:build powercut_nodatasync

package durablefile

// syncBeforeRename is off in this build: the power-cut test's deliberately broken idnode,
// whose renamed files may come back empty after a power cut.
const syncBeforeRename = false
