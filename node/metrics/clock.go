package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/idnode/idnode/fsm"
)

// clockMetrics are a node's clock against the leader's (server/clock.go) and the numeric IDs
// its minter refused for a clock behind the last ID's time.
type clockMetrics struct {
	offset      prometheus.Gauge
	clockBehind *prometheus.CounterVec
}

func newClockMetrics(reg prometheus.Registerer) clockMetrics {
	c := clockMetrics{
		offset: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "idnode_clock_offset_seconds",
			Help: "This node's wall clock minus the leader's, in seconds, measured by a probe of the leader (every 10 s) with the round trip halved: " +
				"positive when this node is ahead; 0 on the leader; NaN before the first measurement.",
		}),
		clockBehind: counterVec("idnode_numeric_clock_behind_total",
			"Numeric IDs this node's minter refused because its clock was behind the last ID's time by more than the second it may borrow (flake.ErrClockBehind: "+
				"the clock was set back, or IDs were asked for faster than the layout holds); the caller waits and asks again. By database.",
			"database"),
	}
	c.offset.Set(math.NaN())
	c.clockBehind.WithLabelValues(fsm.DefaultDatabase) // at 0 from the first scrape, so increase() sees the first refusal
	reg.MustRegister(c.offset, c.clockBehind)
	return c
}

// ClockOffset sets idnode_clock_offset_seconds.
func (m *Metrics) ClockOffset(offset time.Duration) { m.clock.offset.Set(offset.Seconds()) }

// NumericClockBehind counts one numeric ID of database ("" is the default) refused for a
// clock behind the last one's time.
func (m *Metrics) NumericClockBehind(database string) {
	m.clock.clockBehind.WithLabelValues(m.database(database)).Inc()
}
