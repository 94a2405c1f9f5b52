package reason

import (
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestAttachAndOf(t *testing.T) {
	err := Error(codes.Unavailable, NoQuorum, "no quorum: …")
	if got := Of(err); got != NoQuorum || status.Code(err) != codes.Unavailable {
		t.Fatalf("Of = %q, code %v; want %s, UNAVAILABLE", got, status.Code(err), NoQuorum)
	}
	if again := Attach(status.Convert(err), InvalidInput); Of(again.Err()) != NoQuorum {
		t.Errorf("a second Attach replaced the reason: %q", Of(again.Err()))
	}
	for code, want := range map[codes.Code]string{
		codes.FailedPrecondition: "FAILED_PRECONDITION", codes.NotFound: "NOT_FOUND",
		codes.DeadlineExceeded: "DEADLINE_EXCEEDED", codes.Unavailable: "UNAVAILABLE",
	} {
		if got := Of(Attach(status.New(code, "x"), "").Err()); got != want {
			t.Errorf("default reason of %v = %q, want %q", code, got, want)
		}
	}
	if Of(errors.New("plain")) != "" || Of(status.Error(codes.Internal, "no details")) != "" {
		t.Error("a reason from an error that carries none")
	}
}

// The refusals about the node alone are the ones a client moves on from for a while; those
// about the cluster or the call are not.
func TestAboutTheNode(t *testing.T) {
	for _, r := range []string{Busy, ShuttingDown, NotCaughtUp, StorageFull, StorageFailed, NotRegistered, ReplicaDiverged} {
		if !AboutTheNode(r) {
			t.Errorf("AboutTheNode(%s) = false; want true", r)
		}
	}
	for _, r := range []string{"", NoQuorum, OutcomeUnknown, InvalidInput, RequestIDReused, Claimed, "DEADLINE_EXCEEDED"} {
		if AboutTheNode(r) {
			t.Errorf("AboutTheNode(%q) = true; want false", r)
		}
	}
}
