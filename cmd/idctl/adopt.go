package main

import (
	"context"
	"flag"
	"fmt"
	"math/big"
	"strings"
	"text/tabwriter"
	"time"
	"unicode/utf8"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/docid"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func init() {
	commands = append(commands, command{name: "adopt",
		args:    "--pg DSN|--mysql DSN --table T.COL=identity|hilo[:NAME]... [--margin M] [--apply]",
		summary: "raise identity counters or HiLo maxima above a PostgreSQL or MySQL table's keys; a dry run unless --apply",
		maxArgs: 0, flags: adoptCmd, scope: scopeDatabase})
}

// defaultAdoptMargin is how far above a table's largest key its counter goes: room for the
// rows the old application still writes between the adoption and its switch to idnode.
const defaultAdoptMargin = "1000"

// adoptRow is one table's line of the report.
type adoptRow struct {
	Table      string `json:"table"` // [schema.]table.column
	Kind       string `json:"kind"`  // identity or hilo
	Name       string `json:"name"`
	Current    int64  `json:"current"`          // the counter before: an identity's value, a HiLo Max
	Largest    int64  `json:"largest"`          // the largest key's number, 0 for an empty table
	LargestKey string `json:"largest_key"`      // that key as the table holds it
	New        int64  `json:"new"`              // largest plus the margin
	Raise      bool   `json:"raise"`            // New is above Current; otherwise nothing changes
	Raised     int64  `json:"raised,omitempty"` // with --apply, the counter after the raise
}

func adoptCmd(fs *flag.FlagSet) func(*env, []string) error {
	pgDSN := fs.String("pg", "", "PostgreSQL connection string (a password belongs in PGPASSWORD or ~/.pgpass; default: the PG* environment)")
	myDSN := fs.String("mysql", "", "read MySQL or MariaDB instead: mysql://user@host[:port]/database or the Go driver's DSN (a password belongs in "+mysqlPasswordEnv+")")
	var tables tablesFlag
	fs.Var(&tables, "table", "a key `column` and its counter: [schema.]table.column=identity|hilo[:name] (name: the table's); repeat for more")
	margin := marginFlag{}
	_ = margin.Set(defaultAdoptMargin)
	fs.Var(&margin, "margin", "set each counter this `margin` above its table's largest key: N, P% of it, or N+P%")
	apply := fs.Bool("apply", false, "raise the counters; without it, only print what would change")
	separator := fs.String("separator", "/", "the cluster's separator, between a collection and a number in text keys")
	readTimeout := fs.Duration("read-timeout", time.Minute, "time limit of reading every table from the database")
	return func(e *env, _ []string) error {
		if len(tables) == 0 {
			return usagef("adopt needs at least one --table")
		}
		if *readTimeout <= 0 {
			return usagef("--read-timeout must be positive")
		}
		if *pgDSN != "" && *myDSN != "" {
			return usagef("--pg and --mysql: adopt reads one database at a time")
		}
		sep, size := utf8.DecodeRuneInString(*separator)
		if size == 0 || size != len(*separator) {
			return usagef("--separator must be one character")
		}
		for _, t := range tables {
			if t.kind == kindHiLo {
				if err := docid.ValidateHiLoTag(t.name, sep); err != nil {
					return usagef("--table %s: %v", t, err)
				}
			}
		}
		open := func(ctx context.Context) (keyDatabase, error) { return openPostgres(ctx, *pgDSN) }
		if *myDSN != "" {
			cfg, err := mysqlConfig(*myDSN)
			if err != nil {
				return usagef("%v", err)
			}
			open = func(ctx context.Context) (keyDatabase, error) { return openMySQL(ctx, cfg, tables, *readTimeout) }
		}
		rows, err := planAdoption(e, open, tables, sep, margin, *readTimeout)
		if err != nil {
			return err
		}
		if *apply {
			if err := raiseCounters(e, rows); err != nil {
				return err
			}
		}
		return printAdoption(e, rows, *apply)
	}
}

// planAdoption checks every table and reads every counter before anything changes: the first
// table that cannot be adopted refuses the whole run.
func planAdoption(e *env, open func(context.Context) (keyDatabase, error), tables tablesFlag, sep rune, margin marginFlag, readTimeout time.Duration) ([]adoptRow, error) {
	ctx, cancel := context.WithTimeout(e.ctx, readTimeout)
	defer cancel()
	db, err := open(ctx)
	if err != nil {
		return nil, err
	}
	keys, err := readLargestKeys(ctx, db, tables, sep)
	if err != nil {
		return nil, err
	}
	rows := make([]adoptRow, len(tables))
	for i, t := range tables {
		n, ok := addMargin(keys[i].number, margin)
		if !ok {
			return nil, fmt.Errorf("%s: largest key %d plus margin %s passes the largest int64: nothing raised", t, keys[i].number, margin.String())
		}
		rows[i] = adoptRow{Table: t.String(), Kind: string(t.kind), Name: t.name, Largest: keys[i].number, LargestKey: keys[i].key, New: n}
		if rows[i].Current, err = currentCounter(e, t); err != nil {
			return nil, err
		}
		rows[i].Raise = rows[i].New > rows[i].Current
	}
	return rows, nil
}

// addMargin is n + add + ceil(n × percent / 100), as a restore's margin is
// (docs/decisions/0040-restore-margin.md), and whether it fits an int64.
func addMargin(n int64, m marginFlag) (int64, bool) {
	sum := new(big.Int).Mul(big.NewInt(n), big.NewInt(m.margin.GetPercent()))
	sum.Add(sum, big.NewInt(99)).Quo(sum, big.NewInt(100))
	sum.Add(sum, big.NewInt(n)).Add(sum, big.NewInt(m.margin.GetAdd()))
	return sum.Int64(), sum.IsInt64()
}

// currentCounter is t's counter now: the identity's value or the HiLo tag's Max, 0 for one
// the cluster has never seen. Names compare without regard to case, as idnode's do.
func currentCounter(e *env, t adoptTable) (int64, error) {
	var value int64
	if t.kind == kindIdentity {
		return value, allPages(e, "ListIdentities", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
			page, err := c.ListIdentities(ctx, &idnodev1.ListIdentitiesRequest{Prefix: t.name, PageToken: token})
			for _, id := range page.GetIdentities() {
				if strings.EqualFold(id.GetName(), t.name) {
					value = id.GetValue()
				}
			}
			return page.GetNextPageToken(), len(page.GetIdentities()), err
		})
	}
	return value, allPages(e, "ListHiLo", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
		page, err := c.ListHiLo(ctx, &idnodev1.ListHiLoRequest{Prefix: t.name, PageToken: token})
		for _, tag := range page.GetTags() {
			if strings.EqualFold(tag.GetTag(), t.name) {
				value = tag.GetMax()
			}
		}
		return page.GetNextPageToken(), len(page.GetTags()), err
	})
}

// raiseCounters seeds every counter that must rise. Seeds only raise, so a run that stops
// part-way (a node lost) is finished by running it again.
func raiseCounters(e *env, rows []adoptRow) error {
	for i := range rows {
		r := &rows[i]
		if !r.Raise {
			continue
		}
		var err error
		if r.Kind == string(kindIdentity) {
			err = e.call("SeedIdentity", func(ctx context.Context, c *client.Client) (err error) {
				r.Raised, err = c.SeedIdentity(ctx, r.Name, r.New, false)
				return err
			})
		} else {
			err = e.call("SeedHiLo", func(ctx context.Context, c *client.Client) (err error) {
				r.Raised, err = c.SeedHiLo(ctx, r.Name, r.New)
				return err
			})
		}
		if err != nil {
			return fmt.Errorf("%s: %w (the counters before it were raised; run adopt --apply again to finish)", r.Table, err)
		}
	}
	return nil
}

func printAdoption(e *env, rows []adoptRow, applied bool) error {
	if e.g.json {
		return printJSON(e.stdout, map[string]any{"applied": applied, "tables": rows})
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "KEY COLUMN\tCOUNTER\tCURRENT\tLARGEST KEY\tNEW")
	raise := 0
	for _, r := range rows {
		key := r.LargestKey
		if key == "" {
			key = "(none)"
		}
		next := fmt.Sprint(r.New)
		switch {
		case !r.Raise:
			next = fmt.Sprintf("%d (no change: %d is at or above it)", r.New, r.Current)
		case applied:
			next = fmt.Sprint(r.Raised) // the node's answer: above New if another raised it meanwhile
		}
		if r.Raise {
			raise++
		}
		fmt.Fprintf(tw, "%s\t%s %s\t%d\t%s\t%s\n", r.Table, r.Kind, r.Name, r.Current, key, next)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	if applied {
		_, err := fmt.Fprintf(e.stdout, "raised %d of %d counters\n", raise, len(rows))
		return err
	}
	_, err := fmt.Fprintf(e.stdout, "dry run: nothing changed; --apply raises %d of %d counters\n", raise, len(rows))
	return err
}
