package fsm

import "google.golang.org/protobuf/proto"

// The state's domains. Each domain's commands, and the steps only they take, are methods of a
// view of the state named after it, so the state type keeps what the domains share (the
// databases, how names are keyed, the request table) and each domain reads as its own
// file's type. A view holds nothing but the state: the command table (fsm.go) makes one per
// entry, and the snapshot and restore code that belongs to a domain does the same.
type (
	// workerLeases is the worker leases of numeric IDs (workers.go).
	workerLeases struct{ *state }
	// fiscalSeries is the fiscal series and their journal (series.go).
	fiscalSeries struct{ *state }
	// hiloTags is the HiLo tags: ranges, their grants and returns, seeds and node pools
	// (hilo.go, hilo_grant.go, pools.go).
	hiloTags struct{ *state }
	// claimBook is the claimed IDs and their index by identity prefix (claims.go).
	claimBook struct{ *state }
)

// handleIn makes a table entry from the apply function of a domain's view (domains.go).
func handleIn[D ~struct{ *state }, M any, PM interface {
	*M
	proto.Message
}](apply func(D, PM) any) command {
	return handle(func(st *state, m PM) any { return apply(D{st}, m) })
}
