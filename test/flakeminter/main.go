// Command flakeminter mints numeric IDs with the Go client's NumericGenerator, as an
// application embedding it would, and writes what it minted to a file, for the tests in
// test/e2e (clients/numeric_sigstop_test.go, and the chaos suite's `flake` schedule) to check across
// processes:
//
//	flakeminter -addrs HOST:PORT,... -out FILE [-lease 1s] [-holder NAME] [-batch 10] [-pace 1ms]
//
// It mints a batch, writes it, and pauses, until SIGTERM or SIGINT (or -duration, or -max
// IDs), then closes the generator (releasing its worker) and exits 0. Errors of Next that a
// caller waits out (lease expired or lost, clock behind, lease used up) are written and
// retried after the pause; any other error exits 1. The file has one line per event, flushed
// after each batch:
//
//	lease WORKER EPOCH MIN_MS MAX_MS   the grant minted under from here on (written again when a renewal raises MAX_MS)
//	id ID                               an ID, in decimal
//	err MESSAGE                         Next refused (written once per run of the same error)
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/flakelease"
)

// Bounds of one run.
const (
	startTimeout = 30 * time.Second // the first lease
	closeTimeout = 5 * time.Second  // releasing the worker at the end
	callTimeout  = time.Second      // one attempt on one node: a dead node must not eat a renewal
)

type config struct {
	addrs    []string
	out      string
	lease    time.Duration
	holder   string
	batch    int
	pace     time.Duration
	duration time.Duration
	max      int
}

func main() {
	var cfg config
	var addrs string
	flag.StringVar(&addrs, "addrs", "", "the nodes' gRPC addresses, comma-separated (required)")
	flag.StringVar(&cfg.out, "out", "", "file to write the leases, IDs and errors to (required)")
	flag.DurationVar(&cfg.lease, "lease", time.Second, "worker lease length (1s..1h)")
	flag.StringVar(&cfg.holder, "holder", "flakeminter", "holder name shown in the cluster's worker list")
	flag.IntVar(&cfg.batch, "batch", 10, "IDs minted between two pauses")
	flag.DurationVar(&cfg.pace, "pace", time.Millisecond, "pause after each batch and after a refused Next")
	flag.DurationVar(&cfg.duration, "duration", 5*time.Minute, "stop after this long even without a signal")
	flag.IntVar(&cfg.max, "max", 2_000_000, "stop after this many IDs even without a signal")
	flag.Parse()
	if addrs == "" || cfg.out == "" || cfg.batch < 1 || cfg.pace <= 0 {
		fmt.Fprintln(os.Stderr, "flakeminter: -addrs and -out are required, -batch and -pace must be positive")
		os.Exit(2)
	}
	cfg.addrs = strings.Split(addrs, ",")
	ctx, stop := signal.NotifyContext(context.Background(), syscall.SIGTERM, os.Interrupt)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "flakeminter:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, cfg config) error {
	f, err := os.Create(cfg.out)
	if err != nil {
		return err
	}
	defer f.Close()
	w := bufio.NewWriter(f)

	c, err := client.Dial(ctx, cfg.addrs, client.WithCallTimeout(callTimeout))
	if err != nil {
		return err
	}
	defer c.Close(context.Background())
	startCtx, cancel := context.WithTimeout(ctx, startTimeout)
	g, err := c.NewNumericGenerator(startCtx, client.NumericOptions{Holder: cfg.holder, Lease: cfg.lease})
	cancel()
	if err != nil {
		return fmt.Errorf("first lease: %w", err)
	}

	mintErr := mint(ctx, cfg, g, w)
	closeCtx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	closeErr := g.Close(closeCtx)
	if err := errors.Join(mintErr, w.Flush(), f.Sync()); err != nil {
		return err
	}
	if closeErr != nil {
		// The worker lapses on its own; the IDs written are what the tests check.
		fmt.Fprintln(os.Stderr, "flakeminter: releasing the worker:", closeErr)
	}
	return nil
}

// mint is the loop: a batch, a flush, a pause, until ctx ends or a bound is reached.
func mint(ctx context.Context, cfg config, g *client.NumericGenerator, w *bufio.Writer) error {
	deadline := time.Now().Add(cfg.duration)
	var leases leaseLog
	defer leases.note(w, g) // a renewal that came after the last ID
	lastErr := ""
	minted := 0
	for minted < cfg.max && time.Now().Before(deadline) {
		for range cfg.batch {
			id, err := g.Next()
			leases.note(w, g)
			if err != nil {
				if !waitOut(err) {
					return fmt.Errorf("minting the ID after %d: %w", minted, err)
				}
				if msg := err.Error(); msg != lastErr {
					lastErr = msg
					fmt.Fprintf(w, "err %s\n", msg)
				}
				break
			}
			lastErr = ""
			minted++
			fmt.Fprintf(w, "id %d\n", id)
		}
		if err := w.Flush(); err != nil {
			return err
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(cfg.pace):
		}
	}
	return nil
}

// leaseLog writes the generator's grant whenever it changed. It is read after each Next: the
// grant an ID was minted under is on a line above it, or (a renewal installed but not yet
// reported) on the next lease line of the same worker and epoch.
type leaseLog struct{ last flakelease.Grant }

func (l *leaseLog) note(w *bufio.Writer, g *client.NumericGenerator) {
	if cur := g.Lease(); cur != l.last {
		l.last = cur
		fmt.Fprintf(w, "lease %d %d %d %d\n", cur.Worker, cur.Epoch, cur.MinMs, cur.MaxMs)
	}
}

// waitOut reports whether Next's error passes with time or a new lease.
func waitOut(err error) bool {
	return errors.Is(err, flake.ErrLeaseExpired) || errors.Is(err, client.ErrWorkerLeaseLost) ||
		errors.Is(err, flake.ErrClockBehind) || errors.Is(err, flake.ErrLeaseExhausted)
}
