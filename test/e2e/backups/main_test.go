// Package backups is the backup drill: a cluster under load whose scheduled backups go to a
// real S3 server (Versity's S3 gateway) is lost whole, and a new cluster restored from the bucket's newest
// backup must hand out none of the IDs the old one acknowledged (docs/restoring.md).
package backups

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/s3server"
)

func TestMain(m *testing.M) { e2etest.Main(m, s3server.Stop) }
