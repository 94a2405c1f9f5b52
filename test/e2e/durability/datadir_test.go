package durability

import (
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/history"
)

// A data dir that lost a piece it held must stop the node, never start it as new. Each case damages
// one piece of a stopped single node, checks the start is refused with the piece named, then puts
// the piece back; at the end the node serves and continues above every value it handed out.
func TestDataDirLosingAPieceIsRefused(t *testing.T) {
	t.Parallel()
	p, c := e2etest.StartSingle(t)
	for range 3 {
		e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "c5|"})
	}
	lastEtag := serverSideEtag(t, e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users/"}))
	p.Stop()
	// An older Raft log, for the case of a log that ends before what the node had held.
	older := filepath.Join(t.TempDir(), "wal")
	copyDir(t, filepath.Join(p.DataDir, raftLog), older)
	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "c5|"}) // c5/4
	p.Stop()
	backup := filepath.Join(t.TempDir(), "data")
	copyDir(t, p.DataDir, backup)

	for _, tc := range dataDirDamages(t, older) {
		tc.damage(p.DataDir)
		out := e2etest.RefusedStart(t, p)
		if !strings.Contains(out, tc.want) || !strings.Contains(out, "idnode --join") {
			t.Errorf("%s: the refusal does not say %q and the way back:\n%s", tc.name, tc.want, out)
		}
		if strings.Contains(out, "goroutine ") {
			t.Errorf("%s: a stack trace reached the operator:\n%s", tc.name, out)
		}
		t.Logf("%s: %s", tc.name, e2etest.LastLine(out, "idnode: "))
		mustRemove(t, p.DataDir)
		copyDir(t, backup, p.DataDir)
	}

	p.Restart()
	p.WaitServing(e2etest.ServeTimeout)
	e2etest.ExpectGenerate(t, c, "c5|", "c5/5")
	if e := serverSideEtag(t, e2etest.Generate(t, c, &idnodev1.GenerateRequest{Id: "users/"})); e <= lastEtag {
		t.Errorf("server-side IDs went back to etag %d, had reached %d", e, lastEtag)
	}
}

// In a cluster, a node whose data dir lost a piece is refused the same way, and the other two
// keep serving; with the piece back it catches up and continues.
func TestClusterNodeLosingAPieceIsRefused(t *testing.T) {
	t.Parallel()
	c := e2etest.StartCluster(t)
	rec := history.New()
	leader := c.Leader()
	victim := c.Node(c.Others(leader)[0])
	c.MustIdentity(rec, "invoices", 3, victim.Tag)
	c.MustServerSide(rec, "users", victim.Tag)
	victim.Stop()
	older := filepath.Join(t.TempDir(), "wal")
	copyDir(t, filepath.Join(victim.DataDir, raftLog), older)
	victim.Restart()
	c.WaitServing(victim.Tag)
	c.MustIdentity(rec, "invoices", 3, victim.Tag)
	victim.Stop()
	backup := filepath.Join(t.TempDir(), "data")
	copyDir(t, victim.DataDir, backup)

	for _, tc := range dataDirDamages(t, older) {
		tc.damage(victim.DataDir)
		out := e2etest.RefusedStart(t, victim)
		if !strings.Contains(out, tc.want) {
			t.Errorf("node %s, %s: the refusal does not say %q:\n%s", victim.Tag, tc.name, tc.want, out)
		}
		c.MustIdentity(rec, "invoices", 1, leader) // the other two keep their quorum
		mustRemove(t, victim.DataDir)
		copyDir(t, backup, victim.DataDir)
	}
	victim.Restart()
	c.WaitServing(victim.Tag)
	c.MustIdentity(rec, "invoices", 1, victim.Tag)
	c.MustServerSide(rec, "users", victim.Tag)
	e2etest.CheckHistory(t, rec)
}

// dataDirDamage is one way a stopped node's data dir loses a piece, and what the refusal
// must say.
type dataDirDamage struct {
	name, want string
	damage     func(dir string)
}

// raftLog is the Raft log of a new data dir (raft-wal, the default store): a directory.
const raftLog = "raft/wal"

// dataDirDamages are the ways a data dir loses a piece; older is a copy of the Raft
// log taken before the node applied its newest entries.
func dataDirDamages(t *testing.T, older string) []dataDirDamage {
	return []dataDirDamage{
		{"etag deleted", "etag is missing", func(dir string) { mustRemove(t, filepath.Join(dir, "etag")) }},
		{"raft log deleted", raftLog + " is missing", func(dir string) { mustRemove(t, filepath.Join(dir, raftLog)) }},
		{"raft dir deleted", raftLog + " is missing", func(dir string) { mustRemove(t, filepath.Join(dir, "raft")) }},
		{"raft log meta file truncated", "the raft store is damaged", func(dir string) {
			if err := os.Truncate(filepath.Join(dir, raftLog, "wal-meta.db"), 1000); err != nil {
				t.Fatal(err)
			}
		}},
		{"raft log replaced by an older copy", "had reached index", func(dir string) { putBack(t, older, filepath.Join(dir, raftLog)) }},
		{"node.json deleted", "node.json", func(dir string) { mustRemove(t, filepath.Join(dir, "node.json")) }},
		{"manifest deleted", "manifest.json is missing", func(dir string) { mustRemove(t, filepath.Join(dir, "manifest.json")) }},
	}
}

// putBack replaces the directory to with a copy of from.
func putBack(t *testing.T, from, to string) {
	t.Helper()
	mustRemove(t, to)
	copyDir(t, from, to)
}

// serverSideEtag returns the etag number of a server-side ID such as users/0000000000000000001-A.
func serverSideEtag(t *testing.T, id string) uint64 {
	t.Helper()
	digits := id[strings.LastIndex(id, "/")+1 : strings.LastIndex(id, "-")]
	n, err := strconv.ParseUint(digits, 10, 64)
	if err != nil {
		t.Fatalf("%q is not a server-side ID: %v", id, err)
	}
	return n
}

func mustRemove(t *testing.T, path string) {
	t.Helper()
	if err := os.RemoveAll(path); err != nil {
		t.Fatal(err)
	}
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}

// copyDir copies a stopped node's data dir, files and folders.
func copyDir(t *testing.T, from, to string) {
	t.Helper()
	err := filepath.WalkDir(from, func(path string, d os.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(from, path)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(to, rel), 0o700)
		}
		copyFile(t, path, filepath.Join(to, rel))
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
