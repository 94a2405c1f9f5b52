package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strconv"
	"text/tabwriter"
	"time"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/opaque"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Numeric IDs and worker leases.

func init() {
	commands = append(commands,
		command{name: "explain", args: "<id> [--db D]", summary: "what an ID is: a numeric ID's time, worker and sequence; a string ID's strategy and parts; an opaque ID's value (admin)",
			minArgs: 1, maxArgs: 1, flags: explainCmd, scope: scopeDatabase},
		command{name: "worker acquire", args: "[--holder h] [--worker-bits 10] [--lease 30s]", summary: "lease a worker ID for minting numeric IDs in-process; prints the lease",
			maxArgs: 0, flags: workerAcquireCmd, scope: scopeDatabase},
		command{name: "worker renew", args: "<worker> <epoch> [--lease 30s]", summary: "extend a worker lease",
			minArgs: 2, maxArgs: 2, flags: workerRenewCmd, scope: scopeDatabase},
		command{name: "worker release", args: "<worker> <epoch>", summary: "end a worker lease now, so the worker may go to another holder",
			minArgs: 2, maxArgs: 2, flags: workerReleaseCmd, scope: scopeDatabase},
		command{name: "worker list", args: "", summary: "every worker ever leased: epoch, holder, range and expiry (linearizable)",
			maxArgs: 0, flags: workerListCmd, scope: scopeDatabase},
	)
}

// nextNumeric is `idctl next --numeric`: the node's numeric IDs in the chosen text form.
func (e *env) nextNumeric(n int64, encoding string) error {
	encode, ok := map[string]func(int64) string{
		"decimal": func(id int64) string { return strconv.FormatInt(id, 10) }, "base62": flake.EncodeBase62, "crockford": flake.EncodeCrockford,
	}[encoding]
	if !ok {
		return usagef("--encoding must be decimal, base62 or crockford, not %q", encoding)
	}
	var resp *idnodev1.GenerateResponse
	if err := e.call("Generate", func(ctx context.Context, c *client.Client) (err error) {
		resp, err = c.GenerateRaw(ctx, &idnodev1.GenerateRequest{Numeric: true, Count: n})
		return err
	}); err != nil {
		return err
	}
	ids := make([]string, len(resp.GetIds()))
	for i, s := range resp.GetIds() {
		id, err := strconv.ParseInt(s, 10, 64)
		switch {
		case err != nil && len(s) == opaque.IdentityLen:
			ids[i] = s // an opaque-numeric database's form: the only text it has (docs/opaque-ids.md)
		case err != nil:
			return fmt.Errorf("the node answered %q, not a numeric ID: %w", s, err)
		default:
			ids[i] = encode(id)
		}
	}
	if e.g.json {
		return printJSON(e.stdout, map[string][]string{"ids": ids})
	}
	for _, id := range ids {
		fmt.Fprintln(e.stdout, id)
	}
	return nil
}

func explainCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		return answered(e, "Explain", func(ctx context.Context, c *client.Client) (*idnodev1.ExplainResponse, error) {
			return c.Explain(ctx, args[0])
		}, func(w io.Writer, resp *idnodev1.ExplainResponse) error {
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			row := func(k, v string) {
				if v != "" {
					fmt.Fprintf(tw, "%s\t%s\n", k, v)
				}
			}
			row("kind", resp.GetKind())
			if resp.GetOpaque() {
				row("opaque", "yes")
			}
			if resp.GetKind() == "numeric" && (!resp.GetOpaque() || resp.GetValue() != 0) {
				row("value", strconv.FormatInt(resp.GetValue(), 10))
				row("read as", resp.GetEncoding())
				row("layout", resp.GetLayout())
				row("worker", strconv.FormatUint(uint64(resp.GetWorker()), 10))
				row("sequence", strconv.FormatUint(resp.GetSequence(), 10))
				row("base62", flake.EncodeBase62(resp.GetValue()))
				row("crockford", flake.EncodeCrockford(resp.GetValue()))
			}
			row("time", resp.GetTime())
			row("prefix", resp.GetPrefix())
			row("number", resp.GetNumber())
			row("node tag", resp.GetNodeTag())
			if v := resp.GetGuidVersion(); v != 0 {
				row("uuid version", strconv.Itoa(int(v)))
			}
			for _, n := range resp.GetNotes() {
				row("note", n)
			}
			return tw.Flush()
		})
	}
}

func workerAcquireCmd(fs *flag.FlagSet) func(*env, []string) error {
	holder := fs.String("holder", "idctl", "who holds the lease, shown in listings")
	bits := fs.Int("worker-bits", int(flake.DefaultLayout().WorkerBits), "the layout's worker bits (default layout 10, js-safe 5)")
	lease := fs.Duration("lease", client.DefaultWorkerLease, "how long the lease runs, 1s..1h")
	return func(e *env, _ []string) error {
		req := &idnodev1.AcquireWorkerRequest{Holder: *holder, WorkerBits: int32(*bits), LeaseMs: lease.Milliseconds()}
		return e.printLease("AcquireWorker", func(ctx context.Context, c *client.Client) (*idnodev1.WorkerLease, error) {
			return c.Workers().Acquire(ctx, req)
		})
	}
}

func workerRenewCmd(fs *flag.FlagSet) func(*env, []string) error {
	lease := fs.Duration("lease", client.DefaultWorkerLease, "how long the lease runs from now, 1s..1h")
	return func(e *env, args []string) error {
		worker, epoch, err := workerArgs(args)
		if err != nil {
			return err
		}
		req := &idnodev1.RenewWorkerRequest{Worker: worker, Epoch: epoch, LeaseMs: lease.Milliseconds()}
		return e.printLease("RenewWorker", func(ctx context.Context, c *client.Client) (*idnodev1.WorkerLease, error) {
			return c.Workers().Renew(ctx, req)
		})
	}
}

func workerReleaseCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		worker, epoch, err := workerArgs(args)
		if err != nil {
			return err
		}
		return e.change("ReleaseWorker", func(ctx context.Context, c *client.Client) error {
			return c.Workers().Release(ctx, &idnodev1.ReleaseWorkerRequest{Worker: worker, Epoch: epoch})
		}, "released", args[0], fmt.Sprintf("released worker %d (epoch %d)", worker, epoch))
	}
}

func workerListCmd(fs *flag.FlagSet) func(*env, []string) error {
	pageSize := fs.Int("page-size", 1000, "workers per call")
	return func(e *env, _ []string) error {
		if *pageSize < 1 {
			return usagef("--page-size must be at least 1")
		}
		all := []*idnodev1.WorkerLease{}
		if err := allPages(e, "ListWorkers", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
			page, err := c.Workers().List(ctx, &idnodev1.ListWorkersRequest{PageSize: int32(*pageSize), PageToken: token})
			all = append(all, page.GetWorkers()...)
			return page.GetNextPageToken(), len(page.GetWorkers()), err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printProto(e.stdout, &idnodev1.ListWorkersResponse{Workers: all})
		}
		return printColumns(e.stdout, all, "WORKER\tEPOCH\tHOLDER\tMIN_MS\tMAX_MS\tEXPIRES_AT", func(w *idnodev1.WorkerLease) string {
			return fmt.Sprintf("%d\t%d\t%s\t%d\t%d\t%s", w.GetWorker(), w.GetEpoch(), w.GetHolder(), w.GetMinMs(), w.GetMaxMs(),
				time.UnixMilli(w.GetExpiresAtMs()).UTC().Format(time.RFC3339Nano))
		})
	}
}

func workerArgs(args []string) (uint32, uint64, error) {
	worker, err := strconv.ParseUint(args[0], 10, 32)
	if err != nil {
		return 0, 0, usagef("worker must be a number: %v", err)
	}
	epoch, err := strconv.ParseUint(args[1], 10, 64)
	if err != nil {
		return 0, 0, usagef("epoch must be a number: %v", err)
	}
	return uint32(worker), epoch, nil
}

func (e *env) printLease(method string, do func(context.Context, *client.Client) (*idnodev1.WorkerLease, error)) error {
	return answered(e, method, do, func(w io.Writer, wl *idnodev1.WorkerLease) error {
		_, err := fmt.Fprintf(w, "worker %d epoch %d (%s): mint above %d up to %d (Unix ms), expires at %d\n",
			wl.GetWorker(), wl.GetEpoch(), wl.GetHolder(), wl.GetMinMs(), wl.GetMaxMs(), wl.GetExpiresAtMs())
		return err
	})
}
