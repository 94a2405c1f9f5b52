package e2etest

import (
	"context"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/history"
)

// GrantedRanges records granted HiLo ranges in a history, whose checker counts every number
// granted twice.
type GrantedRanges struct{ rec *history.Recorder }

func NewGrantedRanges() GrantedRanges { return GrantedRanges{history.New()} }

func (g GrantedRanges) Add(tag string, r *idnodev1.NextHiLoResponse) {
	g.rec.HiLoRange(tag, r.GetLow(), r.GetHigh())
}

func (g GrantedRanges) CheckDisjoint(t *testing.T) {
	t.Helper()
	if rep := g.rec.Check(RPCTimeout); rep.Duplicates != 0 {
		t.Errorf("%d HiLo numbers granted twice: %s", rep.Duplicates, rep)
	}
}

// NextRange asks via for one range of tag, keeping the range size at 32 (a previous range of
// 32 granted a minute ago: the policy keeps it).
func NextRange(ctx context.Context, ids idnodev1.IdServiceClient, tag string) (*idnodev1.NextHiLoResponse, error) {
	return ids.NextHiLo(ctx, &idnodev1.NextHiLoRequest{Tag: tag, LastBatchSize: 32, LastRangeAt: time.Now().Add(-45 * time.Second).UnixMilli()})
}
