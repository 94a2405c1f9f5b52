package chaostest

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// WaitLog waits until node tag's output holds text, at most timeout.
func (d *chaosDocker) WaitLog(t testing.TB, tag, text string, timeout time.Duration) {
	t.Helper()
	e2etest.Eventually(t, timeout, fmt.Sprintf("node %s logs %q", tag, text), func() error {
		out, err := d.run(chaosCmdTimeout, "docker", "logs", d.Container(t, tag))
		if err != nil {
			return err
		}
		if !strings.Contains(out, text) {
			return errors.New("not yet")
		}
		return nil
	})
}

// StopNode stops node tag cleanly (SIGTERM, as docker restart does).
func (d *chaosDocker) StopNode(t testing.TB, tag string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", "stop", "-t", "10", d.Container(t, tag))
}

// CopyData copies node tag's /data, which must be stopped, to the host directory to.
func (d *chaosDocker) CopyData(t testing.TB, tag, to string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", "cp", d.Container(t, tag)+":/data", to)
}

// ReplaceData gives node tag, which must be stopped, a new volume holding exactly the host
// directory from (a copyData), and starts it: the data dir as a restored backup or VM snapshot
// leaves it, with nothing newer left over.
func (d *chaosDocker) ReplaceData(t testing.TB, tag, from string) {
	t.Helper()
	d.Wipe(t, tag)
	service := d.cluster.node(tag).service
	d.must(t, chaosCmdTimeout, "compose", "up", "--no-start", "--no-deps", "--no-build", service)
	// docker cp makes root the owner of what it copies in (its -a asks getent, which a
	// scratch image lacks), and the node runs as uid 65532: the copy goes in open to every
	// user, as an operator's restore would hand it to the node (chown 65532).
	if err := openToAll(from); err != nil {
		t.Fatalf("open the copy of %s's data dir to the node's user: %v", tag, err)
	}
	d.must(t, chaosCmdTimeout, "docker", "cp", from+"/.", d.learnContainer(t, tag)+":/data")
	// compose start, not docker start: compose attaches the raft network as it starts the
	// container it created without starting it.
	d.must(t, chaosCmdTimeout, "compose", "start", service)
}

// openToAll makes every file under dir readable and writable, and every directory also
// searchable, by every user.
func openToAll(dir string) error {
	return filepath.WalkDir(dir, func(path string, e fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		mode := fs.FileMode(0o666)
		if e.IsDir() {
			mode = 0o777
		}
		return os.Chmod(path, mode)
	})
}
