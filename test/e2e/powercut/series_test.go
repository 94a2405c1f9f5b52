package powercut

import (
	"context"
	"fmt"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/e2e/e2etest"
)

// createSeries creates the load's series on the fresh cluster; its request_id makes a retry
// answer the series created.
func (pc *powerCluster) createSeries() {
	pc.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*e2etest.LeaderTimeout)
	defer cancel()
	if _, err := pc.cl.Series().Create(ctx, &idnodev1.CreateSeriesRequest{Name: seriesName, Format: seriesFormat, RequestId: "powercut-create-" + seriesName}); err != nil {
		pc.t.Fatalf("CreateSeries(%s): %v", seriesName, err)
	}
}

// seriesCheck is what checkSeries found, for the schedule's line.
type seriesCheck struct {
	entries  int    // in the journal after the cut
	verified string // VerifySeries' verdict
}

func (c seriesCheck) String() string {
	return fmt.Sprintf("series_entries=%d series_verify=%s", c.entries, c.verified)
}

// checkSeries reads the series' journal after the cut and reports every broken promise: an
// acknowledged entry missing or changed (another seq, number or hash), a number taken twice
// in the journal, and a hash chain VerifySeries does not pass over the whole journal.
func (pc *powerCluster) checkSeries(ctx context.Context) seriesCheck {
	pc.t.Helper()
	byRequest := map[string]*idnodev1.SeriesEntry{}
	byNumber := map[string]uint64{} // period/number → seq
	var check seriesCheck
	err := pc.cl.Series().Journal(ctx, seriesName, 1, 0, func(e *idnodev1.SeriesEntry) error {
		check.entries++
		key := fmt.Sprintf("%s/%d", e.GetPeriod(), e.GetNumber())
		if first, ok := byNumber[key]; ok && e.GetKind() == idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED {
			pc.problem("series %s: entry %d issues %s again, which entry %d issued", seriesName, e.GetSeq(), e.GetId(), first)
		}
		byNumber[key] = e.GetSeq()
		byRequest[e.GetRequestId()] = e
		return nil
	})
	if err != nil {
		pc.t.Fatalf("Journal(%s) after the cut: %v", seriesName, err)
	}
	for id, told := range pc.led.seriesAcks() {
		got := byRequest[id]
		if got == nil || got.GetSeq() != told.seq || got.GetNumber() != told.number || got.GetPeriod() != told.period || got.GetHash() != told.hash {
			pc.problem("series %s: request %s was answered %s (entry %d, before cut %d); the journal after the cut holds %v",
				seriesName, id, told.printed, told.seq, told.epoch+1, got)
		}
	}
	v, err := pc.cl.Series().Verify(ctx, seriesName)
	if err != nil {
		pc.t.Fatalf("VerifySeries(%s) after the cut: %v", seriesName, err)
	}
	check.verified = "ok"
	if !v.GetOk() || v.GetEntries() != uint64(check.entries) {
		check.verified = "broken"
		pc.problem("series %s: VerifySeries after the cut: ok=%v over %d entries (the journal read has %d); first break at entry %d: %s",
			seriesName, v.GetOk(), v.GetEntries(), check.entries, v.GetBreakSeq(), v.GetBreakReason())
	}
	return check
}
