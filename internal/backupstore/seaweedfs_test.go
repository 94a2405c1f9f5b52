package backupstore

import (
	"os"
	"testing"

	"github.com/idnode/idnode/test/helpers/seaweedfs"
)

// TestMain stops the shared SeaweedFS when the tests are done.
func TestMain(m *testing.M) {
	code := m.Run()
	seaweedfs.Stop()
	os.Exit(code)
}
