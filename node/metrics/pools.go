package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/idnode/idnode/internal/hilopool"
)

// PoolSource is what the HiLo pool collector reads when Prometheus scrapes; hilopool.Store is one.
type PoolSource interface {
	Keys() []hilopool.Key
	Remaining(key hilopool.Key) int64
}

// WatchHiLoPools exports how many numbers each of p's pools holds.
func (m *Metrics) WatchHiLoPools(p PoolSource) {
	m.Registry.MustRegister(&poolCollector{m: m, p: p})
}

var poolSizeDesc = prometheus.NewDesc("idnode_hilo_pool_size",
	"HiLo numbers in this node's pool, by database and tag (the first 256 tags; \"other\" sums the rest): what the node can still grant while cut off from the majority.",
	[]string{"database", "tag"}, nil)

type poolCollector struct {
	m *Metrics
	p PoolSource
}

func (c *poolCollector) Describe(ch chan<- *prometheus.Desc) { ch <- poolSizeDesc }

func (c *poolCollector) Collect(ch chan<- prometheus.Metric) {
	type labels struct{ database, tag string }
	sizes := map[labels]int64{}
	for _, k := range c.p.Keys() {
		db, tag := c.m.poolLabels(k.Database, k.Tag)
		sizes[labels{db, tag}] += c.p.Remaining(k)
	}
	for l, n := range sizes {
		ch <- prometheus.MustNewConstMetric(poolSizeDesc, prometheus.GaugeValue, float64(n), l.database, l.tag)
	}
}
