package main

import (
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/seaweedfs"
)

// TestMain stops the shared SeaweedFS of the S3 tests when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	seaweedfs.Stop()
	os.Exit(code)
}
