//go:build !powercut_norenamesync

package durablefile

// syncAfterRename is whether WriteFile syncs the directory after its rename. Only the build
// tag powercut_norenamesync turns it off, for the power-cut test that must catch the build
// without it (test/e2e/powercut, TestPowerCutCatchesAMissingRenameSync).
const syncAfterRename = true
