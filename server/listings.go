package server

import (
	"context"
	"fmt"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/reason"
)

// Listings (ListIdentities, GetClaims) answer pages a caller sizes, of entries up to 2 KB
// each: 10,000 long names made an answer of 5-7 MB, past the 4 MiB a gRPC client takes by
// default, so the caller got an error and the node built it for nothing. So a page
// ends where its answer would pass maxAnswerBytes, with a page token for the rest, and a node
// builds at most maxListings answers at once.
const (
	// maxAnswerBytes bounds a listing's answer on the wire: a quarter of a client's default
	// receive limit, and still hundreds of entries of the longest names.
	maxAnswerBytes = 1 << 20
	// answerSlack is kept free in an answer for its next_page_token (the base64 of a key of
	// at most 2025 bytes) and framing.
	answerSlack = 4 << 10
	// maxListings is how many listings a node answers at once; each holds a page of the state
	// and its answer (a few MB at most).
	maxListings = 1
	// maxJournalReads is how many series journals a node reads at once (Journal, VerifySeries):
	// each reads a journal through, which may take minutes, so they have slots of their own.
	maxJournalReads = 2
	// listingWait is how long a listing waits for one of them before it is refused NODE_BUSY.
	listingWait = 2 * time.Second
)

// listChunk is how many entries a listing reads from the state at a time, so a page of 10,000
// long names is never held whole when its answer would stop after a few hundred.
const listChunk = 256

// collectPage reads up to size entries after the key after, in chunks of listChunk from
// list (which returns up to n entries after a key, and whether more follow), each made an
// answer entry by entry; it stops where the answer (whose repeated field 1 they are) would
// pass maxAnswerBytes. next is the page token of the rest, "" when nothing follows.
func collectPage[T any, E proto.Message](size int, after string, list func(after string, n int) ([]T, bool, error),
	entry func(T) E, key func(T) string) (entries []E, next string, err error) {
	budget := maxAnswerBytes - answerSlack
	for len(entries) < size {
		chunk, more, err := list(after, min(listChunk, size-len(entries)))
		if err != nil {
			return nil, "", err
		}
		for _, item := range chunk {
			e := entry(item)
			if budget -= protowire.SizeTag(1) + protowire.SizeBytes(proto.Size(e)); budget < 0 && len(entries) > 0 {
				return entries, pageToken(after), nil
			}
			entries, after = append(entries, e), key(item)
		}
		if !more || len(chunk) == 0 {
			return entries, "", nil
		}
	}
	return entries, pageToken(after), nil
}

// leaderPage answers a listing's page on the leader: startPage, then collectPage over list.
func leaderPage[T any, E proto.Message](s *core, ctx context.Context, req pagedRequest, list func(after string, n int) ([]T, bool, error),
	entry func(T) E, key func(T) string) (entries []E, next string, err error) {
	after, release, err := s.startPage(ctx, req.GetPageSize(), req.GetPageToken())
	if err != nil {
		return nil, "", err
	}
	defer release()
	if entries, next, err = collectPage(int(req.GetPageSize()), after, list, entry, key); err != nil {
		return nil, "", toStatus(err)
	}
	return entries, next, nil
}

// listingSlots bounds the listings a node builds at once.
type listingSlots chan struct{}

func newListingSlots(n int) listingSlots { return make(listingSlots, n) }

// acquire waits for a slot, at most listingWait; the caller calls the release it returns.
func (l listingSlots) acquire(ctx context.Context) (release func(), err error) {
	t := time.NewTimer(listingWait)
	defer t.Stop()
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, toStatus(ctx.Err())
	case <-t.C:
		return nil, reason.Error(codes.ResourceExhausted, reason.Busy, fmt.Sprintf(
			"this node is answering %d listings already: retry in a moment, or on another node", cap(l)))
	}
}
