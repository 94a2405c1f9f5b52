package main

import (
	"context"
	"flag"
	"fmt"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// maxIDsPerCall is the most IDs one claim, release or lookup names (the server's bound).
const maxIDsPerCall = 1000

func claimCmd(fs *flag.FlagSet) func(*env, []string) error {
	owner := fs.String("owner", "", "who holds the claims, named to whoever else tries (optional)")
	return func(e *env, args []string) error {
		if err := e.call("Claim", func(ctx context.Context, c *client.Client) error {
			return c.Claim(ctx, *owner, args...)
		}); err != nil {
			return err
		}
		if e.g.json {
			return printJSON(e.stdout, map[string]any{"claimed": args, "owner": *owner})
		}
		fmt.Fprintf(e.stdout, "claimed %d\n", len(args))
		return nil
	}
}

func releaseCmd(fs *flag.FlagSet) func(*env, []string) error {
	owner := fs.String("owner", "", "release only if every claimed ID is this owner's")
	return func(e *env, args []string) error {
		var released int64
		if err := e.call("Release", func(ctx context.Context, c *client.Client) (err error) {
			released, err = c.Release(ctx, *owner, args...)
			return err
		}); err != nil {
			return err
		}
		if e.g.json {
			return printJSON(e.stdout, map[string]int64{"released": released})
		}
		fmt.Fprintf(e.stdout, "released %d of %d\n", released, len(args))
		return nil
	}
}

func claimsCmd(fs *flag.FlagSet) func(*env, []string) error {
	prefix := fs.String("prefix", "", "list only IDs starting with this (case-insensitive)")
	pageSize := fs.Int("page-size", 1000, "claims per call")
	return func(e *env, args []string) error {
		if *pageSize < 1 {
			return usagef("--page-size must be at least 1")
		}
		if len(args) > 0 && *prefix != "" {
			return usagef("name IDs to look up, or --prefix to list, not both")
		}
		type claim struct {
			ID    string `json:"id"`
			Owner string `json:"owner"`
		}
		all := []claim{}
		if err := allPages(e, "GetClaims", func(ctx context.Context, c *client.Client, token string) (string, int, error) {
			page, err := c.GetClaims(ctx, &idnodev1.GetClaimsRequest{Ids: args, Prefix: *prefix, PageSize: int32(*pageSize), PageToken: token})
			for _, cl := range page.GetClaims() {
				all = append(all, claim{cl.GetId(), cl.GetOwner()})
			}
			return page.GetNextPageToken(), len(page.GetClaims()), err
		}); err != nil {
			return err
		}
		return printRows(e, all, "ID\tOWNER", func(cl claim) string { return cl.ID + "\t" + cl.Owner })
	}
}
