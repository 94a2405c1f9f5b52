package series

import (
	"fmt"
	"strings"

	"go.etcd.io/bbolt"

	raftv1 "github.com/idnode/idnode/proto/idnode/raft/v1"
)

// Create makes a series, the command at raft index index. A retry (the same request_id and
// the same definition) answers the series; any other use of the name is ErrSeriesExists.
func (tx *Tx) Create(index uint64, c *raftv1.CreateSeries) (*raftv1.SeriesDefinition, error) {
	if !tx.apply(index) {
		return tx.retriedCreate(c, ErrReplayed)
	}
	if err := CheckCreate(c); err != nil {
		return nil, err
	}
	if tx.tx.Bucket(bucketSeries).Bucket(seriesKey(c.GetDatabase(), c.GetName())) != nil {
		return tx.retriedCreate(c, ErrSeriesExists)
	}
	if n := tx.countSeries(c.GetDatabase()); n >= maxSeriesPerDB {
		return nil, fmt.Errorf("%w: %q holds %d series", ErrTooManySeries, databaseName(c.GetDatabase()), n)
	}
	b, err := tx.tx.Bucket(bucketSeries).CreateBucket(seriesKey(c.GetDatabase(), c.GetName()))
	if err != nil {
		return nil, fmt.Errorf("series: create %q: %w", c.GetName(), err)
	}
	def := &raftv1.SeriesDefinition{
		Database: databaseName(c.GetDatabase()), Name: c.GetName(), Format: c.GetFormat(),
		Period: c.GetPeriod(), Policy: c.GetPolicy(),
		CreatedAtMs: c.GetProposedAtMs(), CreatedBy: c.GetCreatedBy(), ClockMs: c.GetProposedAtMs(),
		RequestId: c.GetRequestId(),
	}
	if err := initSeriesBucket(b, def); err != nil {
		return nil, err
	}
	return def, nil
}

// initSeriesBucket writes a new series' definition and makes its buckets.
func initSeriesBucket(b *bbolt.Bucket, def *raftv1.SeriesDefinition) error {
	v, err := marshal.Marshal(def)
	if err != nil {
		return fmt.Errorf("series: encode %q: %w", def.GetName(), err)
	}
	if err := b.Put(keyDef, v); err != nil {
		return fmt.Errorf("series: write %q: %w", def.GetName(), err)
	}
	for _, name := range [][]byte{bucketEntries, bucketRequests, bucketNumbers} {
		if _, err := b.CreateBucket(name); err != nil {
			return fmt.Errorf("series: create %q: %w", def.GetName(), err)
		}
	}
	return nil
}

// retriedCreate answers a Create of a name that exists: the series if the command is its
// creation again, else refused with err.
func (tx *Tx) retriedCreate(c *raftv1.CreateSeries, refusal error) (*raftv1.SeriesDefinition, error) {
	b := tx.tx.Bucket(bucketSeries).Bucket(seriesKey(c.GetDatabase(), c.GetName()))
	if b == nil {
		return nil, fmt.Errorf("%w: no series %q was created", refusal, c.GetName())
	}
	def, err := readDefinition(b)
	if err != nil {
		return nil, err
	}
	same := c.GetRequestId() != "" && def.GetRequestId() == c.GetRequestId() &&
		def.GetName() == c.GetName() && def.GetFormat() == c.GetFormat() &&
		def.GetPeriod() == c.GetPeriod() && def.GetPolicy() == c.GetPolicy()
	if !same {
		return nil, fmt.Errorf("%w: %q in database %q (created as %q)", refusal, c.GetName(), def.GetDatabase(), def.GetName())
	}
	if o := tx.open[string(seriesKey(c.GetDatabase(), c.GetName()))]; o != nil {
		return o.def, nil
	}
	return def, nil
}

// countSeries counts a database's series, at most maxSeriesPerDB of them.
func (tx *Tx) countSeries(db string) int {
	prefix := databasePrefix(db)
	c := tx.tx.Bucket(bucketSeries).Cursor()
	n := 0
	for k, _ := c.Seek(prefix); k != nil && strings.HasPrefix(string(k), string(prefix)) && n < maxSeriesPerDB; k, _ = c.Next() {
		n++
	}
	return n
}
