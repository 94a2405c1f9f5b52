package metrics

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/idnode/idnode/fsm"
)

// WatchClusterVersion exports the cluster version f holds and the one this build supports,
// read when Prometheus scrapes: a supported version above the finalised one on every node is
// an upgrade nobody finalised (docs/upgrades.md, "Rolling upgrade").
func (m *Metrics) WatchClusterVersion(f *fsm.FSM) {
	m.Registry.MustRegister(&versionCollector{f: f})
}

var clusterVersionDesc = prometheus.NewDesc("idnode_cluster_version",
	"The cluster version: finalised (the commands the leader may propose, as this node's state machine has it) and supported (this node's build).",
	[]string{"kind"}, nil)

type versionCollector struct{ f *fsm.FSM }

func (c *versionCollector) Describe(ch chan<- *prometheus.Desc) { ch <- clusterVersionDesc }

func (c *versionCollector) Collect(ch chan<- prometheus.Metric) {
	ch <- prometheus.MustNewConstMetric(clusterVersionDesc, prometheus.GaugeValue, float64(c.f.ClusterVersion().Finalised), "finalised")
	ch <- prometheus.MustNewConstMetric(clusterVersionDesc, prometheus.GaugeValue, float64(fsm.CurrentVersion), "supported")
}
