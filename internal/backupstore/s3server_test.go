package backupstore

import (
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/s3server"
)

// TestMain stops the shared S3 server when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	s3server.Stop()
	os.Exit(code)
}
