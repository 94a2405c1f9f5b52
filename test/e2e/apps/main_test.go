package apps

import (
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

func TestMain(m *testing.M) { e2etest.Main(m) }
