package server_test

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/test/helpers/poll"
)

// retryUnavailable sends call again while it answers UNAVAILABLE, for up to convergeTimeout,
// as a client does while the cluster elects a leader, and returns call's last error. On a busy
// machine under -race the leader's 200 ms lease can lapse in the middle of a test that loads
// the cluster, and every node refuses with NO_QUORUM or OUTCOME_UNKNOWN until a new leader is
// known; that is the cluster working, not what such a test is about. call must send the same
// request_id every time, so that a request that took effect before its answer was lost
// answers what it did instead of taking effect again: the test still sees every number given.
func retryUnavailable(call func() error) error {
	var last error
	_ = poll.Wait(convergeTimeout, harnessPoll, func() error {
		last = call()
		if status.Code(last) == codes.Unavailable {
			return last
		}
		return nil
	})
	return last
}
