package e2e

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
