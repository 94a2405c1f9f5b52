package series

import (
	"errors"
	"fmt"
	"sync"
	"testing"

	"google.golang.org/protobuf/proto"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// TestReadsBesideWritesAndASwap reads (Entries, Verify, List, Capture) while one goroutine
// applies batches, rolls one back, and swaps in a restored file: every read sees a whole,
// consistent journal.
func TestReadsBesideWritesAndASwap(t *testing.T) {
	s := mustNew(t)
	s.create("inv", "I{n}", 0, gapless, 0)
	records := capture(t, s.Store)
	done := make(chan struct{})
	errs := make(chan error, 4)
	var readers sync.WaitGroup
	for r := 0; r < 3; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				if err := readOnce(s.Store); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	for batch := 0; batch < 40; batch++ {
		tx, err := s.Begin()
		if err != nil {
			t.Fatal(err)
		}
		b := &raftv1.SeriesIssueBatch{}
		for i := 0; i < 16; i++ {
			b.Issues = append(b.Issues, issueOf("inv", fmt.Sprintf("%d-%d", batch, i)))
		}
		for _, r := range tx.Issue(s.next(), b) {
			if r.Err != nil {
				t.Fatal(r.Err)
			}
		}
		if batch%10 == 9 {
			tx.Rollback()
			s.index--
			continue
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
		if batch == 20 {
			// A restore from a snapshot taken at the start: the local file is ahead of it
			// but holds it, so it is kept; then one from a copy of now, which is rebuilt.
			mustRestore(t, s.Store, records)
			now := capture(t, s.Store)
			now[0].(*raftv1.SeriesJournalRecord).AppliedIndex++
			s.index++
			mustRestore(t, s.Store, now)
		}
	}
	close(done)
	readers.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if r := mustVerifyClean(t, s.Store, "inv"); r.Issued != 36*16 {
		t.Fatalf("report %+v, want %d issued", r, 36*16)
	}
}

func readOnce(s *Store) error {
	r, err := s.Verify("", "inv")
	if err != nil {
		return err
	}
	if r.Break != nil {
		return fmt.Errorf("verify: break at %d: %s", r.Break.Seq, r.Break.Reason)
	}
	var last uint64
	err = s.Entries("", "inv", 1, r.Entries, func(e *raftv1.SeriesEntry) error {
		if e.GetSeq() != last+1 {
			return fmt.Errorf("entries: %d after %d", e.GetSeq(), last)
		}
		last = e.GetSeq()
		return nil
	})
	if err != nil {
		return err
	}
	if _, err := s.List(""); err != nil {
		return err
	}
	c, err := s.Capture()
	if err != nil {
		return err
	}
	defer c.Release()
	return c.Write(func(proto.Message) error { return nil })
}

func TestCloseWaitsForACapture(t *testing.T) {
	s := journal(t)
	want := capture(t, s.Store)
	c, err := s.Capture()
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Begin(); !errors.Is(err, ErrClosed) {
		t.Fatalf("Begin after Close: %v", err)
	}
	var got []proto.Message
	if err := c.Write(func(m proto.Message) error { got = append(got, m); return nil }); err != nil {
		t.Fatal(err)
	}
	c.Release()
	sameRecords(t, got, want)
	again, err := Open(s.path)
	if err != nil {
		t.Fatalf("the file is still held after the capture's release: %v", err)
	}
	if err := again.Close(); err != nil {
		t.Fatal(err)
	}
}
