package e2etest

// The chaos suite's clients: concurrent callers of every strategy, each as a careful
// application would be, recording everything they are told in a history.Recorder.

import (
	"time"
)

const (
	ChaosIdentityWorkers = 4 // homes A, B, C, A; the fourth spells the prefix "Orders"
	ChaosDBWorkers       = 2 // identity workers in chaosDatabase, homes B and C
	ChaosHiLoWorkers     = 2 // both on one tag: their ranges must never meet
	ChaosPace            = 5 * time.Millisecond
	ChaosHiLoPace        = 40 * time.Millisecond
	ChaosLocalPace       = 20 * time.Millisecond // server-side IDs and GUIDs
	ChaosAttempt         = 2 * time.Second       // one attempt; then the next node is tried
	ChaosOpBudget        = 40 * time.Second      // one logical call, all retries included
	ChaosBackoffMin      = 20 * time.Millisecond
	ChaosBackoffMax      = 250 * time.Millisecond
	ChaosMaxOps          = 50_000 // per worker and schedule: a bound, never reached in practice
	ChaosMaxErrors       = 20     // unexpected errors kept for the report

	ChaosPrefix   = "orders"   // identity counter (Generate "orders|" and NextIdentity "orders")
	ChaosDatabase = "billing"  // a second database, with its own "orders" and its own history
	ChaosHiLoTag  = "invoices" // HiLo tag
	ChaosSSPrefix = "users"    // server-side IDs
)
