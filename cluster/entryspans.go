package cluster

import (
	"context"
	"sync"
	"time"

	"go.opentelemetry.io/otel/trace"

	"github.com/idnode/idnode/internal/tracing"
)

// stampSlots is how many recent entries' stamps a node keeps for their spans: far more than
// are in flight at once (raft's MaxAppendEntries is 256), so an entry's stamps are still there
// when its Apply returns.
const stampSlots = 1024

// entryStamps is when one entry passed the stages of its Raft round on this node.
type entryStamps struct {
	index                                 uint64
	dispatched, stored, applying, applied time.Time
}

// entrySpans keeps the stamps of the newest entries, indexed by log index modulo stampSlots,
// so that the Apply that proposed an entry can turn them into spans once it returns
// (Config.Tracing). Its memory is fixed whatever the load.
type entrySpans struct {
	tracing *tracing.Tracing

	mu    sync.Mutex
	slots [stampSlots]entryStamps
}

// record is an entryTrace: it stamps entries first..last with stage at.
func (e *entrySpans) record(stage EntryStage, first, last uint64, at time.Time) {
	if last-first >= stampSlots {
		first = last - stampSlots + 1 // older ones would be overwritten anyway
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	for i := first; i <= last; i++ {
		s := &e.slots[i%stampSlots]
		if s.index != i {
			*s = entryStamps{index: i}
		}
		switch stage {
		case EntryDispatched:
			s.dispatched = at
		case EntryStored:
			s.stored = at
		case EntryApplying:
			s.applying = at
		case EntryApplied:
			s.applied = at
		}
	}
}

// stamps returns the stamps of the entry at index, if they are still kept.
func (e *entrySpans) stamps(index uint64) (entryStamps, bool) {
	e.mu.Lock()
	defer e.mu.Unlock()
	s := e.slots[index%stampSlots]
	return s, s.index == index
}

// spans records the leader's stages of the entry at index under the span in ctx, when that
// span is sampled: the log write, the wait for the first follower's acknowledgement (until
// the commit reached the FSM), and the FSM's apply. A stage whose stamps are missing (an entry
// older than the slots hold) is left out.
func (e *entrySpans) spans(ctx context.Context, index uint64) {
	parent := trace.SpanFromContext(ctx)
	if !parent.IsRecording() {
		return
	}
	at := tracing.AttrRaftIndex.Int64(int64(min(index, 1<<63-1)))
	parent.SetAttributes(at)
	s, ok := e.stamps(index)
	if !ok {
		return
	}
	stage := func(name string, from, to time.Time) {
		if !from.IsZero() && !to.IsZero() {
			e.tracing.Stage(ctx, name, from, to, trace.WithAttributes(at))
		}
	}
	stage(tracing.SpanLogWrite, s.dispatched, s.stored)
	stage(tracing.SpanFollowerAck, s.stored, s.applying)
	stage(tracing.SpanFSMApply, s.applying, s.applied)
}

// withSpans is trace told first to spans, which it then hands every stamp to.
func (t entryTrace) withSpans(spans *entrySpans) entryTrace {
	if spans == nil {
		return t
	}
	if t == nil {
		return spans.record
	}
	return func(stage EntryStage, first, last uint64, at time.Time) {
		spans.record(stage, first, last, at)
		t(stage, first, last, at)
	}
}
