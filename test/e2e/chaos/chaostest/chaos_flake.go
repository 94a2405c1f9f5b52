package chaostest

// The chaos suite's numeric IDs: processes embedding the Go client's
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

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/poll"
)

const (
	chaosFlakeBatch    = "4"                    // IDs a minter mints between two pauses
	chaosFlakePace     = "2ms"                  // its pause: a few thousand IDs a second each
	chaosFlakeDuration = "4m"                   // a minter stops by itself after this long
	chaosFlakeProgress = 200                    // IDs each minter mints per phase, past its lease at the phase's start
	chaosFlakePoll     = 500 * time.Millisecond // reading the minters' files
)

// flakeMinter is one minter process of the schedule and its file.
type flakeMinter struct {
	P       *e2etest.Proc
	Label   string
	out     string
	Lease   time.Duration
	Stopped bool // stopped before the end (replaced): no more progress expected of it
}

// StartMinter starts a minter with lease, given every node's published port.
func (r *ChaosRun) StartMinter(lease time.Duration) {
	r.T.Helper()
	var addrs []string
	for _, n := range r.Cluster.nodes {
		addrs = append(addrs, n.addr)
	}
	label := fmt.Sprintf("minter-%d-%v", len(r.Flake)+1, lease)
	out := filepath.Join(r.T.TempDir(), label+".txt")
	p := e2etest.StartFlakeMinter(r.T, label, addrs, out, "-lease="+lease.String(),
		"-batch="+chaosFlakeBatch, "-pace="+chaosFlakePace, "-duration="+chaosFlakeDuration)
	r.Flake = append(r.Flake, &flakeMinter{P: p, Label: label, out: out, Lease: lease})
}

// FlakeProgress waits until each running minter has minted chaosFlakeProgress IDs at times
// past the phase's start plus its lease: a lease held at the start ends by then, so those IDs
// were minted under one renewed or acquired during the phase.
func (r *ChaosRun) FlakeProgress(phase string) {
	r.T.Helper()
	began := time.Now()
	var counts []string
	poll.Until(r.T, "minters' phase "+phase, chaosProgressWait, chaosFlakePoll, func() error {
		counts = counts[:0]
		var missing []string
		for _, m := range r.Flake {
			if m.Stopped {
				continue
			}
			run, err := e2etest.ReadMinted(m.Label, m.out)
			if err != nil {
				return err
			}
			since := began.Add(m.Lease).UnixMilli()
			n := 0
			for _, e := range run.Events {
				if e.IsID() && e.Parts.Time.UnixMilli() > since {
					n++
				}
			}
			counts = append(counts, fmt.Sprintf("%s %d", m.Label, n))
			if n < chaosFlakeProgress {
				missing = append(missing, fmt.Sprintf("%s: %d of %d IDs", m.Label, n, chaosFlakeProgress))
			}
		}
		if len(missing) > 0 {
			return errors.New(strings.Join(missing, "; "))
		}
		return nil
	})
	r.T.Logf("minters' phase %q: %v (IDs past the leases held at its start: %s)", phase, time.Since(began).Round(10*time.Millisecond), strings.Join(counts, ", "))
}

// verifyFlake stops the minters still running (each releases its worker and must exit 0),
// checks what all of them wrote and returns the problems found; it sets the schedule's note.
func (r *ChaosRun) verifyFlake() []string {
	runs := make([]e2etest.MintedRun, len(r.Flake))
	var problems []string
	for i, m := range r.Flake {
		if !m.Stopped {
			m.P.Stop()
			m.Stopped = true
		}
		var err error
		if runs[i], err = e2etest.ReadMinted(m.Label, m.out); err != nil {
			problems = append(problems, err.Error())
		}
		if runs[i].Ids() == 0 {
			problems = append(problems, fmt.Sprintf("%s minted nothing: too little load to check anything", m.Label))
		}
	}
	check := e2etest.CheckMinted(runs)
	r.Note = fmt.Sprintf("flake={processes=%d %v}", len(runs), check)
	return append(problems, check.Problems...)
}
