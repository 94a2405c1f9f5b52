package faulttable

import (
	"context"
	"io"
	"log/slog"
	"testing"

	"github.com/idnode/idnode/client"
)

// Dial is the client of the application whose faults a table shows: the default options, with
// the gaps its Close logs going where nobody reads them. Closing it is the caller's, since
// closing is one of the situations measured.
func Dial(t testing.TB, addrs []string) *client.Client {
	t.Helper()
	c, err := client.Dial(context.Background(), addrs, client.WithLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		t.Fatal(err)
	}
	return c
}
