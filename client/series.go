package client

import (
	"context"
	"errors"
	"io"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// Series makes the calls of fiscal series: gapless, audited numbering (docs/series.md). Every
// call goes to the leader and is retried on another node like the others; Issue and Void carry
// a request_id so a retry answers the first attempt's entry instead of taking another number.
// Get one from Client.Series; it shares the Client's connections and is as safe for
// concurrent use.
type Series struct{ fo *failover }

// Series is the fiscal series' calls, in the Client's database.
func (c *Client) Series() Series { return Series{&c.failover} }

// Create creates a series in the Client's database (an admin key's call once the
// cluster has keys). Without a request_id the Client makes one, so a retry after a lost
// answer returns the series rather than ALREADY_EXISTS.
func (s Series) Create(ctx context.Context, req *idnodev1.CreateSeriesRequest) (*idnodev1.Series, error) {
	if req.GetRequestId() == "" {
		req.RequestId = newRequestID()
	}
	resp, err := unaryCall(ctx, s.fo.callLeaderRepeatable, seriesOf, idnodev1.SeriesServiceClient.CreateSeries, req)
	return resp.GetSeries(), err
}

// List lists the series of the Client's database and where each stands.
func (s Series) List(ctx context.Context) ([]*idnodev1.Series, error) {
	resp, err := unaryCall(ctx, s.fo.callLeaderRepeatable, seriesOf, idnodev1.SeriesServiceClient.ListSeries, &idnodev1.ListSeriesRequest{})
	return resp.GetSeries(), err
}

// Issue assigns the next number of req.Series to a document and returns its journal entry
// (entry.Id is the number as printed). Give every document its own req.RequestId, kept with
// the document before the call: after a crash, calling Issue again with it returns the same
// number, whether or not the first call's answer arrived. Without one the Client makes one,
// which covers its own retries only.
func (s Series) Issue(ctx context.Context, req *idnodev1.IssueRequest) (*idnodev1.SeriesEntry, error) {
	if req.GetRequestId() == "" {
		req.RequestId = newRequestID()
	}
	resp, err := unaryCall(ctx, s.fo.callLeaderRepeatable, seriesOf, idnodev1.SeriesServiceClient.Issue, req)
	return resp.GetEntry(), err
}

// Void records req.Number of req.Period as void, with req.Reason; see SeriesService/Void.
func (s Series) Void(ctx context.Context, req *idnodev1.VoidRequest) (*idnodev1.SeriesEntry, error) {
	if req.GetRequestId() == "" {
		req.RequestId = newRequestID()
	}
	resp, err := unaryCall(ctx, s.fo.callLeaderRepeatable, seriesOf, idnodev1.SeriesServiceClient.Void, req)
	return resp.GetEntry(), err
}

// Verify recomputes a series' hash chain and numbering on the leader and reports the
// first break.
func (s Series) Verify(ctx context.Context, series string) (*idnodev1.VerifySeriesResponse, error) {
	return unaryCall(ctx, s.fo.callLeaderRepeatable, seriesOf, idnodev1.SeriesServiceClient.VerifySeries, &idnodev1.VerifySeriesRequest{Series: series})
}

// Journal calls fn with a series' entries from seq from to seq to (0: the end), in order. A
// stream cut short is resumed after the last entry fn saw, on another node if need be, so fn
// sees each entry once. An error from fn ends the walk and is returned.
func (s Series) Journal(ctx context.Context, series string, from, to uint64, fn func(*idnodev1.SeriesEntry) error) error {
	var fnErr error
	next := from
	err := s.fo.callLeaderRepeatable(ctx, func(ctx context.Context, n *node) error {
		stream, err := n.series.Journal(ctx, &idnodev1.JournalRequest{Series: series, FromSeq: next, ToSeq: to})
		if err != nil {
			return err
		}
		for {
			e, err := stream.Recv()
			if errors.Is(err, io.EOF) {
				return nil
			}
			if err != nil {
				return err
			}
			next = e.GetSeq() + 1
			if fnErr = fn(e); fnErr != nil {
				return nil
			}
		}
	})
	if fnErr != nil {
		return fnErr
	}
	return err
}
