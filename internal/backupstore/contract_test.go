package backupstore

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"testing"
	"time"
)

// testStore is a store under test and a way to cut one of its objects short behind its back,
// as a disk or a bucket's operator might.
type testStore struct {
	Store
	truncate func(t *testing.T, name string, size int64)
}

// testContract holds every Store to the interface's promises.
func testContract(t *testing.T, newStore func(t *testing.T) testStore) {
	t.Run("RoundTrip", func(t *testing.T) { testRoundTrip(t, newStore(t)) })
	t.Run("TruncatedObjectFailsItsSum", func(t *testing.T) { testTruncated(t, newStore(t)) })
	t.Run("BadNamesRefused", func(t *testing.T) { testBadNames(t, newStore(t)) })
	t.Run("FailedPutLeavesNothing", func(t *testing.T) { testFailedPut(t, newStore(t)) })
}

// A Put whose stream breaks leaves no object, not a part of one, even past the first part of
// a multipart upload.
func testFailedPut(t *testing.T, s testStore) {
	ctx := context.Background()
	broken := errors.New("the backup stream broke")
	_, err := s.Put(ctx, "x.backup", &failingReader{data: make([]byte, partSize+1), err: broken})
	if !errors.Is(err, broken) {
		t.Fatalf("Put: %v; want the reader's error", err)
	}
	if list, err := s.List(ctx); err != nil || len(list) != 0 {
		t.Fatalf("List after a failed Put: %v, %v; want nothing", list, err)
	}
	if _, err := s.Open(ctx, "x.backup"); !errors.Is(err, ErrNotFound) {
		t.Fatalf("Open after a failed Put: %v; want ErrNotFound", err)
	}
}

type failingReader struct {
	data []byte
	err  error
}

func (r *failingReader) Read(p []byte) (int, error) {
	if len(r.data) == 0 {
		return 0, r.err
	}
	n := copy(p, r.data)
	r.data = r.data[n:]
	return n, nil
}

func testRoundTrip(t *testing.T, s testStore) {
	ctx := context.Background()
	before := time.Now().Add(-time.Minute) // a server's clock may lag this one's a little
	objects := map[string][]byte{
		"b-2026-11-27T20-00-00Z.backup": bytes.Repeat([]byte("idnode "), 100_000),
		"a.backup":                      []byte("first"),
		"empty":                         nil,
	}
	sums := map[string]Sum{}
	for name, data := range objects {
		sum, err := s.Put(ctx, name, bytes.NewReader(data))
		if err != nil {
			t.Fatalf("Put %s: %v", name, err)
		}
		if sum.Size != int64(len(data)) {
			t.Fatalf("Put %s: sum of %d bytes, put %d", name, sum.Size, len(data))
		}
		sums[name] = sum
	}
	// A second Put of a name replaces its object.
	objects["a.backup"] = []byte("second, longer")
	sum, err := s.Put(ctx, "a.backup", bytes.NewReader(objects["a.backup"]))
	if err != nil {
		t.Fatal(err)
	}
	sums["a.backup"] = sum

	list, err := s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, o := range list {
		names = append(names, o.Name)
		if o.Size != int64(len(objects[o.Name])) {
			t.Errorf("List: %s of %d bytes, put %d", o.Name, o.Size, len(objects[o.Name]))
		}
		if o.Modified.Before(before) || o.Modified.After(time.Now().Add(time.Minute)) {
			t.Errorf("List: %s modified %v, put just now", o.Name, o.Modified)
		}
	}
	if got, want := strings.Join(names, " "), "a.backup b-2026-11-27T20-00-00Z.backup empty"; got != want {
		t.Fatalf("List: %s; want %s", got, want)
	}

	for name, data := range objects {
		if got := read(t, s, name, sums[name]); !bytes.Equal(got, data) {
			t.Errorf("Open %s: read %d bytes, put %d", name, len(got), len(data))
		}
	}

	if err := s.Delete(ctx, "a.backup"); err != nil {
		t.Fatal(err)
	}
	if err := s.Delete(ctx, "a.backup"); err != nil {
		t.Errorf("second Delete: %v; want nil", err)
	}
	if _, err := s.Open(ctx, "a.backup"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Open after Delete: %v; want ErrNotFound", err)
	}
	list, err = s.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 {
		t.Errorf("List after Delete: %v; want 2 objects", list)
	}
}

// A store hands back what it holds, cut short or not; the Sum that Put returned, kept by the
// caller, is what tells.
func testTruncated(t *testing.T, s testStore) {
	ctx := context.Background()
	data := bytes.Repeat([]byte("0123456789"), 10_000)
	sum, err := s.Put(ctx, "cut.backup", bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	s.truncate(t, "cut.backup", int64(len(data)/2))
	r, err := s.Open(ctx, "cut.backup")
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	got, err := io.ReadAll(Verify(r, sum))
	if !errors.Is(err, ErrDamaged) {
		t.Fatalf("reading a truncated object: %v; want ErrDamaged", err)
	}
	if len(got) != len(data)/2 {
		t.Errorf("the store handed back %d bytes; it holds %d", len(got), len(data)/2)
	}
}

func testBadNames(t *testing.T, s testStore) {
	ctx := context.Background()
	for _, name := range []string{"", "..", "../escape", "a/b", ".hidden", strings.Repeat("x", MaxNameLen+1)} {
		if _, err := s.Put(ctx, name, strings.NewReader("x")); err == nil {
			t.Errorf("Put %q: no error", name)
		}
		if _, err := s.Open(ctx, name); err == nil || errors.Is(err, ErrNotFound) {
			t.Errorf("Open %q: %v; want a refusal of the name", name, err)
		}
		if err := s.Delete(ctx, name); err == nil {
			t.Errorf("Delete %q: no error", name)
		}
	}
	if list, err := s.List(ctx); err != nil || len(list) != 0 {
		t.Errorf("List after refused Puts: %v, %v; want none", list, err)
	}
}

// read reads name whole through Verify.
func read(t *testing.T, s Store, name string, sum Sum) []byte {
	t.Helper()
	r, err := s.Open(context.Background(), name)
	if err != nil {
		t.Fatalf("Open %s: %v", name, err)
	}
	defer r.Close()
	data, err := io.ReadAll(Verify(r, sum))
	if err != nil {
		t.Fatalf("reading %s: %v", name, err)
	}
	return data
}
