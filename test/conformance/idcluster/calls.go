package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// callsMetric is the series calls sums: the IdService calls a node received, refused ones
// included, counted by the node itself (its /metrics) since its process started.
const (
	callsMetric  = "grpc_server_started_total{"
	callsService = `grpc_service="idnode.v1.IdService"`
	maxMetrics   = 4 << 20 // bytes of a /metrics answer read at most
)

// calls answers, for each node selected, how many IdService calls it received since its
// process started: which nodes a client tried, as the nodes count it.
func (c *controller) calls(req request) (map[string]any, error) {
	nodes, err := c.cl.selectNodes(req.Node, running)
	if err != nil {
		return nil, err
	}
	tags := make([]string, 0, len(nodes))
	counts := map[string]int64{}
	for _, n := range nodes {
		got, err := idServiceCalls(n.metrics)
		if err != nil {
			return nil, fmt.Errorf("node %s: %w", n.tag, err)
		}
		tags = append(tags, n.tag)
		counts[n.tag] = got
	}
	return map[string]any{"nodes": tags, "calls": counts}, nil
}

// idServiceCalls reads the node's /metrics at addr and sums callsMetric over the IdService's
// methods.
func idServiceCalls(addr string) (int64, error) {
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/metrics", nil)
	if err != nil {
		return 0, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return 0, fmt.Errorf("/metrics answered %s", resp.Status)
	}
	var total int64
	sc := bufio.NewScanner(io.LimitReader(resp.Body, maxMetrics))
	for sc.Scan() {
		line := sc.Text()
		if !strings.HasPrefix(line, callsMetric) || !strings.Contains(line, callsService) {
			continue
		}
		value := line[strings.LastIndexByte(line, ' ')+1:]
		v, err := strconv.ParseFloat(value, 64)
		if err != nil {
			return 0, fmt.Errorf("/metrics line %q: %w", line, err)
		}
		total += int64(v)
	}
	return total, sc.Err()
}
