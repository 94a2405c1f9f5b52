package reason

import (
	"context"
	"errors"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestMoreTellingPrefersARefusalToATransportError(t *testing.T) {
	refusal := Error(codes.Unavailable, NoQuorum, "no quorum")
	busy := Error(codes.ResourceExhausted, Busy, "busy")
	down := status.Error(codes.Unavailable, "connection refused")
	for _, tc := range []struct {
		kept, err, want error
	}{
		{nil, down, down},
		{refusal, down, refusal},
		{down, refusal, refusal},
		{refusal, busy, busy}, // of two refusals, the newer
		{down, down, down},
		{down, nil, down},
		{nil, nil, nil},
	} {
		if got := MoreTelling(tc.kept, tc.err); got != tc.want {
			t.Errorf("MoreTelling(%v, %v) = %v; want %v", tc.kept, tc.err, got, tc.want)
		}
	}
}

func TestEndedHasTheContextsCodeAndTheRefusalsReason(t *testing.T) {
	refusal := Error(codes.Unavailable, NotCaughtUp, "behind")
	err := Ended(context.DeadlineExceeded, refusal)
	if status.Code(err) != codes.DeadlineExceeded || Of(err) != NotCaughtUp {
		t.Errorf("Ended = %v/%q; want DeadlineExceeded/NOT_CAUGHT_UP", status.Code(err), Of(err))
	}
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, refusal) {
		t.Errorf("errors.Is does not see both the context's end and the refusal in %v", err)
	}
	if err := Ended(context.Canceled, nil); status.Code(err) != codes.Canceled || Of(err) != "" || !errors.Is(err, context.Canceled) {
		t.Errorf("Ended without a refusal = %v/%q; want Canceled and no reason", status.Code(err), Of(err))
	}
}

func TestRecordKeepsTheMostTellingNote(t *testing.T) {
	var r Record
	ctx := WithRecord(context.Background(), &r)
	refusal := Error(codes.Unavailable, NoQuorum, "no quorum")
	Note(ctx, refusal)
	Note(ctx, status.Error(codes.Unavailable, "connection refused"))
	Note(context.Background(), Error(codes.Unavailable, Busy, "not recorded: no Record"))
	if got := r.Err(); got != refusal {
		t.Errorf("Record.Err = %v; want %v", got, refusal)
	}
}
