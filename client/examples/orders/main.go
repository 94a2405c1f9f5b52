// Command orders shows the idnode Go client in a few lines: dial, NextID, AssignID, Close.
//
//	go run ./cmd/idnode &          # a single-node cluster on 127.0.0.1:7070
//	go run ./client/examples/orders       # or: go run ./client/examples/orders -addrs 127.0.0.1:7071,127.0.0.1:7072,127.0.0.1:7073
//
// With -region, each address names its node's region after '=', and the client keeps what
// any node answers in its own (client.WithRegion):
//
//	go run ./client/examples/orders -region west -addrs 127.0.0.1:7071=east,127.0.0.1:7072=west,127.0.0.1:7073=south
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/idnode/idnode/client"
)

// Order is an entity: AssignID fills its ID, from the collection "orders".
type Order struct {
	ID       string
	Customer string
}

func main() {
	addrs := flag.String("addrs", "127.0.0.1:7070", "comma-separated gRPC addresses of any idnode nodes, each ADDR=REGION with -region")
	region := flag.String("region", "", "the client's region (then give each address its node's region)")
	flag.Parse()
	if err := run(strings.Split(*addrs, ","), *region); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

func run(addrs []string, region string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	var opts []client.Option
	if region != "" {
		nodeRegions := map[string]string{}
		for i, a := range addrs {
			addr, nodeRegion, _ := strings.Cut(a, "=")
			addrs[i], nodeRegions[addr] = addr, nodeRegion
		}
		opts = append(opts, client.WithRegion(region, nodeRegions))
	}
	c, err := client.Dial(ctx, addrs, opts...)
	if err != nil {
		return err
	}
	defer c.Close(ctx) // gives the unused rest of the HiLo ranges back

	id, err := c.NextID(ctx, "orders") // "orders/1-A": a HiLo ID, no network round trip per ID
	if err != nil {
		return err
	}
	order := &Order{Customer: "ayende"}
	if _, err := c.AssignID(ctx, order); err != nil { // empty ID → "orders/2-A"
		return err
	}
	invoice := &Order{ID: "invoices|"}
	if _, err := c.AssignID(ctx, invoice); err != nil { // "invoices|" → the identity "invoices/1"
		return err
	}
	ids, err := c.Generate(ctx, "users/", 1) // a server-side ID, from a node of the client's region with -region
	if err != nil {
		return err
	}
	fmt.Println(id, order.ID, invoice.ID, ids[0])
	return c.Close(ctx)
}
