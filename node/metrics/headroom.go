package metrics

import (
	"math"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// WatchHeadroom exports the node's headroom, read from headroom (server.Server.Headroom) when
// Prometheus scrapes: how far the node is from each limit that would make it refuse
// (docs/metrics.md, "Headroom"). Databases past the label bound share "other", with the sum
// of their workers and saturations and the least of their headroom.
func (m *Metrics) WatchHeadroom(headroom func() *idnodev1.Headroom) {
	m.Registry.MustRegister(&headroomCollector{m: m, headroom: headroom})
}

var (
	timeLeftDesc = prometheus.NewDesc("idnode_numeric_time_left_years",
		"Years left until the time bits of a numeric layout (default, js-safe) run out, by this node's clock.", []string{"layout"}, nil)
	workersDesc = prometheus.NewDesc("idnode_numeric_workers",
		"Worker IDs of a database's numeric layout, by state: leased, free (leased before, lapsed or released) and never_used; they add up to 2^worker_bits. Absent before the database's first worker lease.",
		[]string{"database", "state"}, nil)
	saturationsDesc = prometheus.NewDesc("idnode_numeric_sequence_saturations_total",
		"Times this node's numeric minter of a database used up a millisecond's sequence and went on in a millisecond ahead of its clock (where a classic Snowflake minter waits).",
		[]string{"database"}, nil)
	valuesLeftDesc = prometheus.NewDesc("idnode_counter_values_left",
		"Values left between a database's largest identity counter (kind identity) or HiLo Max (kind hilo) and the largest int64.",
		[]string{"database", "kind"}, nil)
	headroomRatioDesc = prometheus.NewDesc("idnode_counter_headroom_ratio",
		"idnode_counter_values_left as a fraction of the int64 range: 1 for an unused database, 0 for a counter at its limit.",
		[]string{"database", "kind"}, nil)
	hiloAbandonedDesc = prometheus.NewDesc("idnode_hilo_abandoned_numbers_total",
		"HiLo numbers this node handed out or reserved and then gave up as gaps, by database.", []string{"database"}, nil)
	diskFreeDesc = prometheus.NewDesc("idnode_data_dir_free_bytes",
		"Free bytes on the file system under the node's data dir.", nil, nil)
	diskFullInDesc = prometheus.NewDesc("idnode_data_dir_full_in_days",
		"Days until the file system under the data dir is full at its growth over the last hour of the node's samples; +Inf while it is not filling.", nil, nil)
	tlsExpiryDesc = prometheus.NewDesc("idnode_tls_expiry_seconds",
		"Seconds until a certificate expires: node (the one the node presents) or ca (the CA it trusts); negative once expired. Absent without TLS.",
		[]string{"kind"}, nil)
)

type headroomCollector struct {
	m        *Metrics
	headroom func() *idnodev1.Headroom
}

func (c *headroomCollector) Describe(ch chan<- *prometheus.Desc) {
	for _, d := range []*prometheus.Desc{timeLeftDesc, workersDesc, saturationsDesc, valuesLeftDesc, headroomRatioDesc,
		hiloAbandonedDesc, diskFreeDesc, diskFullInDesc, tlsExpiryDesc} {
		ch <- d
	}
}

// databaseHeadroom is one database label's figures.
type databaseHeadroom struct {
	numeric                 bool
	leased, free, neverUsed int64
	saturations, abandoned  uint64
	identityLeft, hiloLeft  int64
}

func (c *headroomCollector) Collect(ch chan<- prometheus.Metric) {
	h := c.headroom()
	for layout, years := range h.GetNumericYearsLeft() {
		ch <- prometheus.MustNewConstMetric(timeLeftDesc, prometheus.GaugeValue, years, layout)
	}
	byLabel := map[string]*databaseHeadroom{}
	for _, d := range h.GetDatabases() {
		label := c.m.database(d.GetDatabase())
		dh := byLabel[label]
		if dh == nil {
			dh = &databaseHeadroom{identityLeft: math.MaxInt64, hiloLeft: math.MaxInt64}
			byLabel[label] = dh
		}
		dh.numeric = dh.numeric || d.GetWorkerBits() > 0
		dh.leased += d.GetWorkersLeased()
		dh.free += d.GetWorkersFree()
		dh.neverUsed += d.GetWorkersNeverUsed()
		dh.saturations += d.GetSequenceSaturations()
		dh.abandoned += d.GetHiloAbandoned()
		dh.identityLeft = min(dh.identityLeft, d.GetIdentityValuesLeft())
		dh.hiloLeft = min(dh.hiloLeft, d.GetHiloValuesLeft())
	}
	for db, dh := range byLabel {
		if dh.numeric {
			ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(dh.leased), db, "leased")
			ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(dh.free), db, "free")
			ch <- prometheus.MustNewConstMetric(workersDesc, prometheus.GaugeValue, float64(dh.neverUsed), db, "never_used")
		}
		ch <- prometheus.MustNewConstMetric(saturationsDesc, prometheus.CounterValue, float64(dh.saturations), db)
		ch <- prometheus.MustNewConstMetric(hiloAbandonedDesc, prometheus.CounterValue, float64(dh.abandoned), db)
		for kind, left := range map[string]int64{"identity": dh.identityLeft, "hilo": dh.hiloLeft} {
			ch <- prometheus.MustNewConstMetric(valuesLeftDesc, prometheus.GaugeValue, float64(left), db, kind)
			ch <- prometheus.MustNewConstMetric(headroomRatioDesc, prometheus.GaugeValue, float64(left)/math.MaxInt64, db, kind)
		}
	}
	ch <- prometheus.MustNewConstMetric(diskFreeDesc, prometheus.GaugeValue, float64(h.GetDiskFreeBytes()))
	ch <- prometheus.MustNewConstMetric(diskFullInDesc, prometheus.GaugeValue, h.GetDiskFullInDays())
	now := time.Now()
	for _, cert := range h.GetCertificates() {
		ch <- prometheus.MustNewConstMetric(tlsExpiryDesc, prometheus.GaugeValue, time.UnixMilli(cert.GetNotAfterMs()).Sub(now).Seconds(), cert.GetKind())
	}
}
