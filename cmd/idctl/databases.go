package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func dbCreateCmd(fs *flag.FlagSet) func(*env, []string) error {
	maxIdentities := fs.Int64("max-identities", 0, "most identity counters the database may have (0: no limit)")
	maxCalls := fs.Float64("max-calls-per-second", 0, "most ID calls a second each node takes for the database (0: no limit)")
	maxClaims := fs.Int64("max-claims", 0, "most claimed IDs the database may hold (0: the default, 1000000)")
	return func(e *env, args []string) error {
		req := &idnodev1.CreateDatabaseRequest{Name: args[0], MaxIdentities: *maxIdentities, MaxCallsPerSecond: *maxCalls, MaxClaims: *maxClaims}
		return e.change("CreateDatabase", func(ctx context.Context, c *client.Client) error {
			return c.Databases().Create(ctx, req)
		}, "created", args[0], fmt.Sprintf("created database %s", args[0]))
	}
}

func dbDeleteCmd(fs *flag.FlagSet) func(*env, []string) error {
	force := fs.Bool("force", false, "delete even a database with counters (they stay as floors: created again, it goes on after them)")
	return func(e *env, args []string) error {
		return e.change("DeleteDatabase", func(ctx context.Context, c *client.Client) error {
			return c.Databases().Delete(ctx, args[0], *force)
		}, "deleted", args[0], fmt.Sprintf("deleted database %s", args[0]))
	}
}

type databaseRow struct {
	Name              string  `json:"name"`
	Identities        int64   `json:"identities"`
	HiLoTags          int64   `json:"hilo_tags"`
	MaxIdentities     int64   `json:"max_identities"`
	MaxCallsPerSecond float64 `json:"max_calls_per_second"`
	Claims            int64   `json:"claims"`
	MaxClaims         int64   `json:"max_claims"`
	// The opaque setting (idctl opaque status), shown for every database: no collections,
	// false and "" for a database without one (docs/opaque-ids.md).
	OpaqueCollections    []string `json:"opaque_collections"`
	OpaqueNumeric        bool     `json:"opaque_numeric"`
	OpaqueKeyFingerprint string   `json:"opaque_key_fingerprint"`
}

// newDatabaseRow is the row of d in idctl db list.
func newDatabaseRow(d *idnodev1.DatabaseStatus) databaseRow {
	collections := d.GetOpaqueCollections()
	if collections == nil {
		collections = []string{} // [] in JSON, as for a database with some, not null
	}
	return databaseRow{Name: d.GetName(), Identities: d.GetIdentities(), HiLoTags: d.GetHiloTags(),
		MaxIdentities: d.GetMaxIdentities(), MaxCallsPerSecond: d.GetMaxCallsPerSecond(), Claims: d.GetClaims(), MaxClaims: d.GetMaxClaims(),
		OpaqueCollections: collections, OpaqueNumeric: d.GetOpaqueNumeric(), OpaqueKeyFingerprint: d.GetOpaqueKeyFingerprint()}
}

func dbListCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		var rows []databaseRow
		if err := e.call("ListDatabases", func(ctx context.Context, c *client.Client) error {
			dbs, err := c.Databases().List(ctx)
			for _, d := range dbs {
				rows = append(rows, newDatabaseRow(d))
			}
			return err
		}); err != nil {
			return err
		}
		limit := func(v float64) string {
			if v == 0 {
				return "-"
			}
			return fmt.Sprint(v)
		}
		return printRows(e, rows, "NAME\tIDENTITIES\tHILO TAGS\tMAX IDENTITIES\tMAX CALLS/S\tCLAIMS\tMAX CLAIMS", func(r databaseRow) string {
			return fmt.Sprintf("%s\t%d\t%d\t%s\t%s\t%d\t%d", r.Name, r.Identities, r.HiLoTags, limit(float64(r.MaxIdentities)), limit(r.MaxCallsPerSecond), r.Claims, r.MaxClaims)
		})
	}
}
