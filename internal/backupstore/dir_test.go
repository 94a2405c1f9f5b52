package backupstore

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"

	"github.com/idnode/idnode/test/helpers/lossyfs"
)

func newTestDir(t *testing.T) testStore {
	d, err := NewDir(filepath.Join(t.TempDir(), "backups", "daily"))
	if err != nil {
		t.Fatal(err)
	}
	return testStore{Store: d, truncate: func(t *testing.T, name string, size int64) {
		if err := os.Truncate(filepath.Join(d.path, name), size); err != nil {
			t.Fatal(err)
		}
	}}
}

func TestDir(t *testing.T) { testContract(t, newTestDir) }

// A failed Put leaves no temp file behind either.
func TestDirFailedPutLeavesNoTempFile(t *testing.T) {
	d := newTestDir(t).Store.(*Dir)
	_, err := d.Put(context.Background(), "x.backup", &failingReader{data: []byte("part"), err: errors.New("broke")})
	if err == nil {
		t.Fatal("Put of a broken stream: no error")
	}
	entries, err := os.ReadDir(d.path)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 0 {
		t.Fatalf("the folder holds %v after a failed Put; want nothing", entries)
	}
}

// A disk that fills up mid-backup is named as a full disk, with the folder, and leaves no
// part behind. /dev/full fails every write with ENOSPC, as a full disk does.
func TestDirFullDisk(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/dev/full is Linux's")
	}
	s := newTestDir(t)
	d := s.Store.(*Dir)
	d.createTemp = func(dir string) (file, string, error) {
		_, tmp, err := osCreateTemp(dir)
		if err != nil {
			return nil, "", err
		}
		f, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		return f, tmp, err
	}
	_, err := d.Put(context.Background(), "x.backup", bytes.NewReader(make([]byte, 1<<20)))
	if !errors.Is(err, syscall.ENOSPC) || !strings.Contains(err.Error(), "disk is full") || !strings.Contains(err.Error(), d.path) {
		t.Fatalf("Put onto a full disk: %v; want ENOSPC named as a full disk, with the folder", err)
	}
	if entries, _ := os.ReadDir(d.path); len(entries) != 0 {
		t.Fatalf("the folder holds %v after a failed Put; want nothing", entries)
	}
}

// A folder this process may not write to is named as such. Root writes to any folder whatever
// its mode, so as root the test uses sysfs, which refuses new files to everyone.
func TestDirUnwritableFolder(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ro")
	if err := os.Mkdir(path, 0o500); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		if runtime.GOOS != "linux" {
			t.Skip("as root, an unwritable folder is sysfs's, which is Linux's")
		}
		path = "/sys/kernel"
	}
	d, err := NewDir(path)
	if err != nil {
		t.Fatal(err)
	}
	_, err = d.Put(context.Background(), "x.backup", strings.NewReader("x"))
	if !errors.Is(err, os.ErrPermission) || !strings.Contains(err.Error(), "not writable") || !strings.Contains(err.Error(), path) {
		t.Fatalf("Put into %s: %v; want a permission error naming the folder", path, err)
	}
}

// A backup Put returned for is there, whole, after a power cut; one under way when the power
// went is not there at all.
func TestDirPutSurvivesPowerCut(t *testing.T) {
	lossyfs.Need(t)
	fs := lossyfs.Mount(t)
	d, err := NewDir(filepath.Join(fs.Dir, "backups"))
	if err != nil {
		t.Fatal(err)
	}
	data := bytes.Repeat([]byte("a backup "), 5000)
	if _, err := d.Put(context.Background(), "done.backup", bytes.NewReader(data)); err != nil {
		t.Fatal(err)
	}
	rep, err := fs.Cut(lossyfs.Torn)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("cut: %v", rep)
	got, err := os.ReadFile(filepath.Join(d.path, "done.backup"))
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after the power cut: %d bytes, %v; want the %d put", len(got), err, len(data))
	}
}
