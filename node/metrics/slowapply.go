package metrics

import "github.com/prometheus/client_golang/prometheus"

// SlowApplies registers idnode_fsm_slow_applies_total and returns the hook that counts one
// (cluster.Config.OnSlowApply). Call it once per Metrics.
func (m *Metrics) SlowApplies() func() {
	c := prometheus.NewCounter(prometheus.CounterOpts{
		Name: "idnode_fsm_slow_applies_total",
		Help: "Applies of Raft entries to this node's state machine that ran longer than a second (the log names each): while one runs, nothing else is applied and the node cannot stop cleanly.",
	})
	m.Registry.MustRegister(c)
	return c.Inc
}
