package main

import (
	"context"
	"crypto/rand"
	"fmt"
	"strconv"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// createSeries makes the series the series strategy issues into: <prefix>, or <prefix>-0 …
// <prefix>-<names-1> with --names. One that exists already is used as it is, so runs can
// follow each other on one cluster.
func createSeries(ctx context.Context, cfg *config, cc grpc.ClientConnInterface) error {
	client := idnodev1.NewSeriesServiceClient(cc)
	names := []string{cfg.prefix}
	if cfg.names > 0 {
		names = names[:0]
		for i := range cfg.names {
			names = append(names, cfg.prefix+"-"+strconv.FormatInt(i, 10))
		}
	}
	for _, name := range names {
		cctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		_, err := client.CreateSeries(cctx, &idnodev1.CreateSeriesRequest{Name: name, Format: "B-{n:010}"})
		cancel()
		if err != nil && status.Code(err) != codes.AlreadyExists {
			return fmt.Errorf("create series %s: %w", name, err)
		}
	}
	return nil
}

// seriesOp issues one number per call, each under a request id of its own (a run's random
// prefix, the caller, its sequence), into the series names takes in turn.
func seriesOp(cfg *config, client idnodev1.SeriesServiceClient, caller int, names *nameCycle) op {
	run := rand.Text()[:8]
	req := &idnodev1.IssueRequest{DocumentHash: "00"}
	var seq int64
	return func(ctx context.Context) (int64, error) {
		ctx, cancel := context.WithTimeout(ctx, cfg.timeout)
		defer cancel()
		req.Series = names.name()
		req.RequestId = run + "-" + strconv.Itoa(caller) + "-" + strconv.FormatInt(seq, 10)
		seq++
		resp, err := client.Issue(ctx, req)
		if err != nil {
			return 0, err
		}
		if resp.GetEntry().GetNumber() < 1 {
			return 0, fmt.Errorf("%w: Issue(%s) answered number %d", errBadResponse, req.Series, resp.GetEntry().GetNumber())
		}
		return 1, nil
	}
}
