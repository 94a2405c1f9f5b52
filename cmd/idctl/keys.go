package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/idnode/idnode/client"
)

func keyCreateCmd(fs *flag.FlagSet) func(*env, []string) error {
	role := fs.String("role", "writer", "reader (list identities), writer (also take IDs) or admin (also seed)")
	return func(e *env, _ []string) error {
		var id, key string
		if err := e.call("CreateKey", func(ctx context.Context, c *client.Client) (err error) {
			id, key, err = c.Databases().CreateKey(ctx, e.g.db, *role)
			return err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printJSON(e.stdout, map[string]string{"id": id, "key": key})
		}
		fmt.Fprintln(e.stdout, key)
		fmt.Fprintf(e.stderr, "API key %s: %s of database %s. It is shown only now; the cluster keeps only its hash.\n", id, *role, dbOrDefault(e.g.db))
		return nil
	}
}

func dbOrDefault(db string) string {
	if db == "" {
		return "default"
	}
	return db
}

func keyDeleteCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, args []string) error {
		return e.change("DeleteKey", func(ctx context.Context, c *client.Client) error {
			return c.Databases().DeleteKey(ctx, args[0])
		}, "deleted", args[0], fmt.Sprintf("deleted API key %s", args[0]))
	}
}

type keyRow struct {
	ID       string `json:"id"`
	Database string `json:"database"`
	Role     string `json:"role"`
}

func keyListCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		var rows []keyRow
		if err := e.call("ListKeys", func(ctx context.Context, c *client.Client) error {
			keys, err := c.Databases().ListKeys(ctx)
			for _, k := range keys {
				rows = append(rows, keyRow{ID: k.GetId(), Database: k.GetDatabase(), Role: k.GetRole()})
			}
			return err
		}); err != nil {
			return err
		}
		return printRows(e, rows, "ID\tDATABASE\tROLE", func(r keyRow) string { return r.ID + "\t" + r.Database + "\t" + r.Role })
	}
}
