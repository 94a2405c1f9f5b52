package fsm

import "math"

// Headroom is how far one database is from the limits that make the cluster refuse it: its
// worker IDs, and the largest identity counter and HiLo Max below the largest int64. The node's
// headroom gauges and Status read it (docs/metrics.md, "Headroom").
type Headroom struct {
	Database string
	// WorkerBits is the database's numeric layout's, 0 before its first worker lease.
	// WorkersLeased, WorkersFree (leased before, lapsed or released: an Acquire may give it
	// again) and WorkersNeverUsed add up to 2^WorkerBits.
	WorkerBits                                   int32
	WorkersLeased, WorkersFree, WorkersNeverUsed int64
	LargestIdentity, LargestHiLo                 string
	LargestIdentityValue, LargestHiLoMax         int64
	IdentityValuesLeft, HiLoValuesLeft           int64
}

// counterMax is the largest value a database's identity counters (or HiLo maxima) reached as
// this state machine applied them, and its name. It is kept as values change, so that the
// headroom gauges read one value per database rather than scan counters that may number
// millions. A counter set lower (SetIdentity with force, a HiLo return) leaves it where it was
// until a restart rebuilds it from the values then held: it errs on the side of less headroom.
type counterMax struct {
	name  string
	value int64
}

func (c *counterMax) note(name string, value int64) {
	if value > c.value {
		c.name, c.value = name, value
	}
}

// Headroom returns the headroom of every live database, by name, with the workers counted at
// nowMs (Unix ms, the reader's clock: a lease lapses by time, with no entry in the log). It
// counts each database's workers one by one: at most 2^MaxWorkerBits of them, and 1,024 in
// the default layout.
func (f *FSM) Headroom(nowMs int64) []Headroom {
	f.mu.RLock()
	defer f.mu.RUnlock()
	var out []Headroom
	for _, name := range sortedKeys(f.st.databases) {
		d := f.st.databases[name]
		if d.deleted {
			continue
		}
		h := Headroom{
			Database:        name,
			LargestIdentity: d.identityName(d.largestIdentity.name), LargestIdentityValue: d.largestIdentity.value,
			IdentityValuesLeft: math.MaxInt64 - d.largestIdentity.value,
			LargestHiLo:        d.largestHiLo.name, LargestHiLoMax: d.largestHiLo.value,
			HiLoValuesLeft: math.MaxInt64 - d.largestHiLo.value,
		}
		if s := d.workers; s != nil {
			h.WorkerBits = s.bits
			h.WorkersNeverUsed = int64(1)<<s.bits - int64(len(s.leases))
			for _, l := range s.leases {
				if l.expiresAtMs > nowMs {
					h.WorkersLeased++
				} else {
					h.WorkersFree++
				}
			}
		}
		out = append(out, h)
	}
	return out
}
