// Command ormapp is the Go application of the application drill and the ORM benchmark: workers
// insert rows through GORM into tables whose primary keys come from idnode (through the
// idnodegorm plugin) or from PostgreSQL's own sequence, and print every committed row's key
// on stdout, one JSON object a line, then a summary.
//
//	ormapp --nodes 127.0.0.1:7071,127.0.0.1:7072 --dsn postgres://u@127.0.0.1:5432/db \
//	  --tables orders,invoices,events --workers 8 --batch 1 --duration 20s --max-rows 200000
//
// Exit status 0 when it ran to the end (failed batches are lines, not an exit status), 2 for
// bad flags. SIGTERM stops it starting batches; the one in flight finishes, the plugin and the
// client close (the HiLo ranges' unused numbers go back) and the summary is printed.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"gorm.io/driver/postgres"
	"gorm.io/gorm"
	"gorm.io/gorm/logger"

	"github.com/idnode/idnode/client"
	idnodegorm "github.com/idnode/idnode/contrib/gorm"
)

// Bounds on the flags: a hostile command line cannot ask for unbounded goroutines or rows.
const (
	maxWorkers = 1024
	maxBatch   = 10000
	// batchTimeout bounds one batch: its keys (a HiLo range, an identity through Raft) and its
	// transaction. A batch that runs out of it fails and is reported.
	batchTimeout = 30 * time.Second
	closeTimeout = 10 * time.Second
)

type config struct {
	nodes    []string
	dsn      string
	tables   []table
	workers  int
	batch    int
	duration time.Duration
	maxRows  int64
	lang     string
	quiet    bool
}

func main() {
	cfg, err := parseFlags(os.Args[1:], os.Stderr)
	if err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "ormapp:", err)
		}
		os.Exit(2)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, os.Interrupt)
	if err := run(cfg, stop, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "ormapp:", err)
		os.Exit(1)
	}
}

func parseFlags(args []string, stderr io.Writer) (config, error) {
	fs := flag.NewFlagSet("ormapp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	nodes := fs.String("nodes", "127.0.0.1:7071,127.0.0.1:7072,127.0.0.1:7073", "idnode gRPC addresses, comma-separated")
	dsn := fs.String("dsn", "", "PostgreSQL DSN (postgres://user@127.0.0.1:PORT/db?sslmode=disable)")
	tablesFlag := fs.String("tables", "orders,invoices,events", "tables to insert into, round robin per batch: orders, invoices, events, counters, serials")
	workers := fs.Int("workers", 8, "concurrent inserters")
	batch := fs.Int("batch", 1, "rows per INSERT")
	duration := fs.Duration("duration", 20*time.Second, "stop starting batches after this long")
	maxRows := fs.Int64("max-rows", 200000, "stop after this many rows in all")
	lang := fs.String("lang", "go", "written into every row's lang column")
	quiet := fs.Bool("quiet", false, "print only the summary line (benchmark mode)")
	if err := fs.Parse(args); err != nil {
		return config{}, err
	}
	if fs.NArg() > 0 {
		return config{}, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	cfg := config{dsn: *dsn, workers: *workers, batch: *batch, duration: *duration, maxRows: *maxRows, lang: *lang, quiet: *quiet}
	for n := range strings.SplitSeq(*nodes, ",") {
		if n = strings.TrimSpace(n); n != "" {
			cfg.nodes = append(cfg.nodes, n)
		}
	}
	var err error
	switch {
	case len(cfg.nodes) == 0:
		return config{}, errors.New("--nodes: no address")
	case cfg.dsn == "":
		return config{}, errors.New("--dsn is required")
	case cfg.workers < 1 || cfg.workers > maxWorkers:
		return config{}, fmt.Errorf("--workers %d: want 1…%d", cfg.workers, maxWorkers)
	case cfg.batch < 1 || cfg.batch > maxBatch:
		return config{}, fmt.Errorf("--batch %d: want 1…%d", cfg.batch, maxBatch)
	case cfg.duration <= 0:
		return config{}, fmt.Errorf("--duration %v: want more than 0", cfg.duration)
	case cfg.maxRows < 1:
		return config{}, fmt.Errorf("--max-rows %d: want at least 1", cfg.maxRows)
	case cfg.lang == "":
		return config{}, errors.New("--lang is empty")
	}
	if cfg.tables, err = parseTables(*tablesFlag); err != nil {
		return config{}, err
	}
	return cfg, nil
}

// run connects, inserts until the duration, the row budget or a signal on stop ends it, closes
// the plugin and the client, and prints the summary.
func run(cfg config, stop <-chan os.Signal, stdout io.Writer) error {
	ctx := context.Background()
	c, err := client.Dial(ctx, cfg.nodes)
	if err != nil {
		return err
	}
	plugin := idnodegorm.New(c, idnodegorm.WithNumericOptions(client.NumericOptions{Holder: "ormapp-go"}))
	db, err := gorm.Open(postgres.Open(cfg.dsn), &gorm.Config{Logger: logger.Discard})
	if err != nil {
		_ = c.Close(ctx)
		return fmt.Errorf("opening %s: %w", cfg.dsn, err)
	}
	if err := db.Use(plugin); err != nil {
		_ = c.Close(ctx)
		return err
	}
	sqlDB, err := db.DB()
	if err != nil {
		_ = c.Close(ctx)
		return err
	}
	sqlDB.SetMaxIdleConns(cfg.workers)

	out := newOutput(stdout, cfg.quiet)
	r := &runner{cfg: cfg, db: db, out: out, budget: cfg.maxRows, stopping: make(chan struct{})}
	start := time.Now()
	finished := make(chan struct{})
	go func() {
		timer := time.NewTimer(cfg.duration)
		defer timer.Stop()
		select {
		case <-timer.C:
		case <-stop:
		case <-finished:
		}
		r.stop()
	}()
	r.insert()
	close(finished)
	seconds := time.Since(start).Seconds()

	closeCtx, cancel := context.WithTimeout(ctx, closeTimeout)
	defer cancel()
	// The plugin first (its numeric worker goes back), then the client: HiLo tails go back.
	closeErr := errors.Join(plugin.Close(closeCtx), c.Close(closeCtx), sqlDB.Close())
	if closeErr != nil {
		fmt.Fprintln(os.Stderr, "ormapp: closing:", closeErr)
	}
	return out.done(r.rows.Load(), seconds)
}
