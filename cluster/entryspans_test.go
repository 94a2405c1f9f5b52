package cluster

import (
	"testing"
	"time"
)

// The stamps of an entry are kept until an entry stampSlots later takes its slot; they are
// never handed out as another entry's.
func TestEntryStampsAreKeptPerIndexUntilTheirSlotIsTaken(t *testing.T) {
	e := &entrySpans{}
	at := time.Unix(1000, 0)
	e.record(EntryDispatched, 7, 9, at)
	e.record(EntryStored, 7, 9, at.Add(time.Millisecond))
	e.record(EntryApplying, 8, 8, at.Add(2*time.Millisecond))
	s, ok := e.stamps(8)
	if !ok || !s.dispatched.Equal(at) || !s.stored.Equal(at.Add(time.Millisecond)) || !s.applying.Equal(at.Add(2*time.Millisecond)) || !s.applied.IsZero() {
		t.Fatalf("stamps of 8 = %+v, %v", s, ok)
	}
	e.record(EntryDispatched, 8+stampSlots, 8+stampSlots, at.Add(time.Second))
	if s, ok := e.stamps(8); ok {
		t.Errorf("stamps of 8 after its slot was taken: %+v", s)
	}
	if s, ok := e.stamps(8 + stampSlots); !ok || !s.stored.IsZero() || !s.dispatched.Equal(at.Add(time.Second)) {
		t.Errorf("stamps of the entry that took the slot: %+v, %v (the old entry's must not show)", s, ok)
	}
	// A range longer than the slots keeps its newest entries.
	e.record(EntryStored, 1, 3*stampSlots, at)
	if _, ok := e.stamps(3 * stampSlots); !ok {
		t.Error("the newest entry of a long range was not kept")
	}
	if _, ok := e.stamps(stampSlots); ok {
		t.Error("an entry older than the slots hold was kept")
	}
}
