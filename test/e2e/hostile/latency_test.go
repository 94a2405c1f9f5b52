package hostile

import (
	"slices"
	"time"
)

// p99 is the 99th percentile of lat by nearest rank (0 for none).
func p99(lat []time.Duration) time.Duration {
	if len(lat) == 0 {
		return 0
	}
	s := slices.Clone(lat)
	slices.Sort(s)
	return s[(len(s)*99+99)/100-1]
}

// A normal client's p99 while hostile callers attack its node (hostile_*_test.go) may be
// hostileP99Factor times its quiet p99, plus hostileSlack for the scheduling noise of a shared
// 2-core machine on which the attackers, the node and the client all run. Under a load average
// of 10–14 from other tests the p99 of a gRPC client reached 160 ms with the bounds working;
// without them the same attacks took it to 2.5 s and more, which the slack still fails.
const (
	hostileP99Factor = 5
	hostileSlack     = 250 * time.Millisecond
)

// hostileP99Limit is the most a normal client's p99 under attack may be, given its quiet p99.
func hostileP99Limit(quiet time.Duration) time.Duration {
	return hostileP99Factor*quiet + hostileSlack
}
