package main

import (
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// loadavgPath is where Linux says its load averages; elsewhere they go unrecorded.
const loadavgPath = "/proc/loadavg"

// loadAverage is the machine's 1-minute load average, or ok false where it cannot be read.
// A flaky test fails under load, so each run says the load it met.
func loadAverage() (avg float64, ok bool) {
	b, err := os.ReadFile(loadavgPath)
	if err != nil {
		return 0, false
	}
	return parseLoadavg(string(b))
}

// parseLoadavg reads the first field of /proc/loadavg ("0.52 0.58 0.59 1/467 12345").
func parseLoadavg(s string) (float64, bool) {
	fields := strings.Fields(s)
	if len(fields) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(fields[0], 64)
	if err != nil || v < 0 || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// loadRange is the lowest and highest load average seen at the runs' starts and ends.
type loadRange struct {
	min, max float64
	seen     int
}

// note reads the load average now, keeps it in r, and says it as text ("?" when unreadable).
func (r *loadRange) note() string {
	v, ok := loadAverage()
	if !ok {
		return "?"
	}
	r.add(v)
	return fmt.Sprintf("%.1f", v)
}

func (r *loadRange) add(v float64) {
	if r.seen == 0 || v < r.min {
		r.min = v
	}
	if r.seen == 0 || v > r.max {
		r.max = v
	}
	r.seen++
}

// String says the range, or that no load average was read.
func (r loadRange) String() string {
	if r.seen == 0 {
		return "load average not read"
	}
	return fmt.Sprintf("load average %.1f to %.1f", r.min, r.max)
}
