//go:build !powercut_nodatasync

package durablefile

// syncBeforeRename is whether WriteFile fsyncs the temp file's data before its rename. Only
// the build tag powercut_nodatasync turns it off, for the power-cut test that must catch the
// build without it (test/e2e/powercut, TestPowerCutCatchesAMissingDataSync).
const syncBeforeRename = true
