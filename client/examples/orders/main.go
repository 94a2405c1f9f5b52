// Command orders shows the idnode Go client in a few lines: dial, NextID, AssignID, Close.
//
//	go run ./cmd/idnode &          # a single-node cluster on 127.0.0.1:7070
//	go run ./client/examples/orders       # or: go run ./client/examples/orders -addrs 127.0.0.1:7071,127.0.0.1:7072,127.0.0.1:7073
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
	addrs := flag.String("addrs", "127.0.0.1:7070", "comma-separated gRPC addresses of any idnode nodes")
	flag.Parse()
	if err := run(strings.Split(*addrs, ",")); err != nil {
		fmt.Fprintln(os.Stderr, "orders:", err)
		os.Exit(1)
	}
}

func run(addrs []string) error {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c, err := client.Dial(ctx, addrs)
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
	fmt.Println(id, order.ID, invoice.ID)
	return c.Close(ctx)
}
