package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"strings"

	"github.com/idnode/idnode/client"
	"github.com/idnode/idnode/fsm"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Opaque IDs (docs/opaque-ids.md): turning a database's collections opaque, and showing what
// is opaque. The key never leaves the cluster; its fingerprint tells two clusters' keys apart.

func init() {
	commands = append(commands,
		command{name: "opaque make", args: "[--numeric] [collection...]", summary: "turn collections of the database (--numeric: its numeric IDs) opaque, for good (admin)",
			maxArgs: fsm.MaxOpaqueCollections, flags: opaqueMakeCmd, scope: scopeDatabase},
		command{name: "opaque status", args: "", summary: "the database's opaque collections, numeric IDs and key fingerprint",
			maxArgs: 0, flags: opaqueStatusCmd, scope: scopeDatabase},
	)
}

func opaqueMakeCmd(fs *flag.FlagSet) func(*env, []string) error {
	numeric := fs.Bool("numeric", false, "make the database's numeric IDs opaque too (only before its first worker lease)")
	return func(e *env, args []string) error {
		if len(args) == 0 && !*numeric {
			return usagef("name a collection to make opaque, or --numeric")
		}
		return answered(e, "MakeOpaque", func(ctx context.Context, c *client.Client) (*idnodev1.OpaqueStatus, error) {
			return client.MakeOpaque(ctx, c, "", args, *numeric)
		}, printOpaqueStatus)
	}
}

func opaqueStatusCmd(*flag.FlagSet) func(*env, []string) error {
	return func(e *env, _ []string) error {
		db := dbOrDefault(e.g.db)
		return answered(e, "ListDatabases", func(ctx context.Context, c *client.Client) (*idnodev1.OpaqueStatus, error) {
			dbs, err := c.Databases().List(ctx)
			if err != nil {
				return nil, err
			}
			for _, d := range dbs {
				if strings.EqualFold(d.GetName(), db) {
					return &idnodev1.OpaqueStatus{Database: d.GetName(), Collections: d.GetOpaqueCollections(), Numeric: d.GetOpaqueNumeric(),
						KeyFingerprint: d.GetOpaqueKeyFingerprint()}, nil
				}
			}
			return nil, fmt.Errorf("the cluster has no database %q (idctl db list)", db)
		}, printOpaqueStatus)
	}
}

// printOpaqueStatus writes a database's opaque setting, one fact a line.
func printOpaqueStatus(w io.Writer, s *idnodev1.OpaqueStatus) error {
	if s.GetKeyFingerprint() == "" {
		_, err := fmt.Fprintf(w, "database %s has no opaque IDs (idctl opaque make)\n", s.GetDatabase())
		return err
	}
	collections, numeric := "none", "plain"
	if len(s.GetCollections()) > 0 {
		collections = strings.Join(s.GetCollections(), ", ")
	}
	if s.GetNumeric() {
		numeric = "opaque"
	}
	_, err := fmt.Fprintf(w, "database:           %s\nopaque collections: %s\nnumeric IDs:        %s\nkey fingerprint:    %s\n",
		s.GetDatabase(), collections, numeric, s.GetKeyFingerprint())
	return err
}
