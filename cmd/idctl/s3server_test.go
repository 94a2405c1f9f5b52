package main

import (
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/s3server"
)

// TestMain stops the shared S3 server of the S3 tests when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	s3server.Stop()
	os.Exit(code)
}
