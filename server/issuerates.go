package server

import (
	"context"
	"sync"
	"time"

	"github.com/idnode/idnode/fsm"
)

const (
	// issueRatesWindow is how far back a backup's peak rates look
	// (docs/decisions/0044-restore-margin-by-rates.md).
	issueRatesWindow = time.Hour
	// defaultIssueRatesInterval is how often the rates are sampled when Config leaves it 0.
	defaultIssueRatesInterval = time.Minute
)

// issueRates samples the FSM's issued totals (the sums of the identity counters and of the
// HiLo maxima) on every node, so the leader of the moment can record in a backup the
// cluster-wide peak rate of each kind over the last hour. The FSM is the same on every node,
// so a newly elected leader has the hour's samples too.
type issueRates struct {
	totals func() (identities, hilo float64)
	now    func() time.Time
	every  time.Duration

	mu      sync.Mutex
	samples []issueSample // oldest first, within the window and one before it
}

type issueSample struct {
	at               time.Time
	identities, hilo float64
}

// run samples every interval until ctx ends.
func (r *issueRates) run(ctx context.Context) {
	t := time.NewTicker(r.every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			r.sample()
		}
	}
}

// sample records the totals now, and forgets the samples the window no longer needs.
func (r *issueRates) sample() {
	ids, hilo := r.totals()
	now := r.now()
	r.mu.Lock()
	defer r.mu.Unlock()
	r.samples = append(r.samples, issueSample{at: now, identities: ids, hilo: hilo})
	// Keep one sample before the window: the interval that crosses its start is in it.
	start := now.Add(-issueRatesWindow)
	drop := 0
	for drop+1 < len(r.samples) && !r.samples[drop+1].at.After(start) {
		drop++
	}
	r.samples = append(r.samples[:0], r.samples[drop:]...)
}

// backup is what a backup taken now records: now and the highest rate per second of each kind
// between two samples of the last hour. A fall (a database deleted) counts as no issue.
func (r *issueRates) backup() fsm.IssueRates {
	now := r.now()
	out := fsm.IssueRates{TakenAt: now}
	r.mu.Lock()
	defer r.mu.Unlock()
	start := now.Add(-issueRatesWindow)
	for i := 1; i < len(r.samples); i++ {
		a, b := r.samples[i-1], r.samples[i]
		seconds := b.at.Sub(a.at).Seconds()
		if seconds <= 0 || !b.at.After(start) {
			continue
		}
		out.IdentitiesPerSecond = max(out.IdentitiesPerSecond, (b.identities-a.identities)/seconds)
		out.HiLoPerSecond = max(out.HiLoPerSecond, (b.hilo-a.hilo)/seconds)
	}
	return out
}
