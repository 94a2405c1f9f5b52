package e2e

// The chaos suite's numeric IDs (issue 27): processes embedding the Go client's
// NumericGenerator (test/flakeminter, run on the host against the published ports, as the
// other clients reach the cluster) mint under worker leases of 1 to 3 s while the leader is
// cut off the Raft network and, once healed, killed (one minter replaced by a new one then).
// Each must renew or re-lease through both faults and go on minting; the identity, HiLo and
// local clients run throughout as in every schedule. Afterwards, across all the minters, no ID
// twice, each process's IDs
// increasing, each ID inside a grant its process held, and no worker and epoch held twice nor
// the grants of one worker over overlapping times (checkMinted, flakeminter_test.go).

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/idnode/idnode/internal/poll"
)

const (
	chaosFlakeBatch    = "4"                    // IDs a minter mints between two pauses
	chaosFlakePace     = "2ms"                  // its pause: a few thousand IDs a second each
	chaosFlakeDuration = "4m"                   // a minter stops by itself after this long
	chaosFlakeProgress = 200                    // IDs each minter mints per phase, past its lease at the phase's start
	chaosFlakePoll     = 500 * time.Millisecond // reading the minters' files
)

// chaosFlakeLeases are the minters' lease lengths: two at the shortest, whose leases lapse
// within a fault, and two longer ones. The first is replaced during the second fault.
var chaosFlakeLeases = []time.Duration{time.Second, time.Second, 2 * time.Second, 3 * time.Second}

// flakeMinter is one minter process of the schedule and its file.
type flakeMinter struct {
	p       *proc
	label   string
	out     string
	lease   time.Duration
	stopped bool // stopped before the end (replaced): no more progress expected of it
}

// flakeChaos is the `flake` schedule: the minters run beside the load while the leader is
// isolated and healed, then while the (new) leader is killed and started again. Before the
// kill the first minter stops, releasing its worker, and a new one starts once the leader is
// down: its lease is acquired through the survivors' election (a worker whose high-water has
// passed, at its next epoch, else one never used).
func flakeChaos(r *chaosRun) {
	for _, lease := range chaosFlakeLeases {
		r.startMinter(lease)
	}
	r.flakeProgress("before the fault: minters running")

	leader := r.leader()
	r.d.disconnect(r.t, leader)
	r.flakeProgress("during: " + leader + " isolated")
	r.d.connect(r.t, leader)
	r.recover("after reconnecting " + leader)
	r.flakeProgress("after reconnecting " + leader)

	leader = r.leader()
	replaced := r.flake[0]
	replaced.p.stop()
	replaced.stopped = true
	r.d.kill(r.t, leader)
	r.startMinter(replaced.lease)
	r.flakeProgress("during: " + leader + " killed, " + replaced.label + " replaced")
	r.d.start(r.t, leader)
}

// startMinter starts a minter with lease, given every node's published port.
func (r *chaosRun) startMinter(lease time.Duration) {
	r.t.Helper()
	var addrs []string
	for _, n := range chaosNodes {
		addrs = append(addrs, n.addr)
	}
	label := fmt.Sprintf("minter-%d-%v", len(r.flake)+1, lease)
	out := filepath.Join(r.t.TempDir(), label+".txt")
	p := startFlakeMinter(r.t, label, addrs, out, "-lease="+lease.String(),
		"-batch="+chaosFlakeBatch, "-pace="+chaosFlakePace, "-duration="+chaosFlakeDuration)
	r.flake = append(r.flake, &flakeMinter{p: p, label: label, out: out, lease: lease})
}

// flakeProgress waits until each running minter has minted chaosFlakeProgress IDs at times
// past the phase's start plus its lease: a lease held at the start ends by then, so those IDs
// were minted under one renewed or acquired during the phase.
func (r *chaosRun) flakeProgress(phase string) {
	r.t.Helper()
	began := time.Now()
	var counts []string
	poll.Until(r.t, "minters' phase "+phase, chaosProgressWait, chaosFlakePoll, func() error {
		counts = counts[:0]
		var missing []string
		for _, m := range r.flake {
			if m.stopped {
				continue
			}
			run, err := readMinted(m.label, m.out)
			if err != nil {
				return err
			}
			since := began.Add(m.lease).UnixMilli()
			n := 0
			for _, e := range run.events {
				if e.isID() && e.parts.Time.UnixMilli() > since {
					n++
				}
			}
			counts = append(counts, fmt.Sprintf("%s %d", m.label, n))
			if n < chaosFlakeProgress {
				missing = append(missing, fmt.Sprintf("%s: %d of %d IDs", m.label, n, chaosFlakeProgress))
			}
		}
		if len(missing) > 0 {
			return errors.New(strings.Join(missing, "; "))
		}
		return nil
	})
	r.t.Logf("minters' phase %q: %v (IDs past the leases held at its start: %s)", phase, time.Since(began).Round(10*time.Millisecond), strings.Join(counts, ", "))
}

// verifyFlake stops the minters still running (each releases its worker and must exit 0),
// checks what all of them wrote and returns the problems found; it sets the schedule's note.
func (r *chaosRun) verifyFlake() []string {
	runs := make([]mintedRun, len(r.flake))
	var problems []string
	for i, m := range r.flake {
		if !m.stopped {
			m.p.stop()
			m.stopped = true
		}
		var err error
		if runs[i], err = readMinted(m.label, m.out); err != nil {
			problems = append(problems, err.Error())
		}
		if runs[i].ids() == 0 {
			problems = append(problems, fmt.Sprintf("%s minted nothing: too little load to check anything", m.label))
		}
	}
	check := checkMinted(runs)
	r.note = fmt.Sprintf("flake={processes=%d %v}", len(runs), check)
	return append(problems, check.problems...)
}
