package e2e

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rollback is issue 24's schedule: under load, a follower is stopped and its data dir copied;
// it runs on (one load phase: its etag counter and HiLo pools move on, each publishing to the
// cluster), then is killed, its data dir replaced by the older copy, and started again. Its
// older etag and hilo-pools files cost a gap (the cluster's record of the node is above them),
// and its older Raft log is caught up from the leader: no ID twice, identities linearizable.
func rollback(r *chaosRun) {
	victim := chaosOthers(r.leader())[0]
	older := filepath.Join(r.t.TempDir(), "data")
	r.d.stopNode(r.t, victim)
	r.d.copyData(r.t, victim, older)
	r.d.start(r.t, victim)
	r.recover("after copying " + victim + "'s data dir")
	r.progress("before "+victim+" goes back to its copy", chaosTags(), true)
	r.d.kill(r.t, victim)
	r.d.replaceData(r.t, victim, older)
	r.t.Logf("node %s restarts on a copy of its data dir taken one load phase earlier", victim)
	// It handed out server-side IDs since the copy (a new watermark, recorded), so its record
	// is above the copy's etag file: the start must say it skipped.
	r.d.waitLog(r.t, victim, "skipping to the record", chaosRecoverWait)
}

// waitLog waits until node tag's output holds text, at most timeout.
func (d *chaosDocker) waitLog(t testing.TB, tag, text string, timeout time.Duration) {
	t.Helper()
	eventually(t, timeout, fmt.Sprintf("node %s logs %q", tag, text), func() error {
		out, err := d.run(chaosCmdTimeout, "docker", "logs", d.container(t, tag))
		if err != nil {
			return err
		}
		if !strings.Contains(out, text) {
			return errors.New("not yet")
		}
		return nil
	})
}

// stopNode stops node tag cleanly (SIGTERM, as docker restart does).
func (d *chaosDocker) stopNode(t testing.TB, tag string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", "stop", "-t", "10", d.container(t, tag))
}

// copyData copies node tag's /data, which must be stopped, to the host directory to.
func (d *chaosDocker) copyData(t testing.TB, tag, to string) {
	t.Helper()
	d.must(t, chaosCmdTimeout, "docker", "cp", d.container(t, tag)+":/data", to)
}

// replaceData gives node tag, which must be stopped, a new volume holding exactly the host
// directory from (a copyData), and starts it: the data dir as a restored backup or VM snapshot
// leaves it, with nothing newer left over.
func (d *chaosDocker) replaceData(t testing.TB, tag, from string) {
	t.Helper()
	d.wipe(t, tag)
	service := chaosNodeOf(tag).service
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
