package hilo

import (
	"context"
	"fmt"
)

// MaxBatch is the most numbers one NextNumbers or NextIDs call takes: a bound on what a caller
// can make the generator allocate and hold.
const MaxBatch = 1 << 20

// NextNumbers returns the next n HiLo numbers of the tag (17 where NextID would print
// "orders/17-A"), for callers that key rows by integers, or that insert many rows at once. The
// numbers are taken a range at a time, with one atomic add on each range they come from, not
// one per number: a batch of rows costs the same as one row unless it reaches past the current
// range. They ascend, and are consecutive within each range. A number is unique to its tag
// across the cluster (ranges of a tag never overlap, whichever node grants them), so it can be
// a primary key by itself; the node tag of NextID's form is not needed to tell numbers apart.
// n must be in [1, MaxBatch]. After Close it returns ErrClosed.
func (g *Generator) NextNumbers(ctx context.Context, n int) ([]int64, error) {
	if n < 1 || n > MaxBatch {
		return nil, fmt.Errorf("hilo: NextNumbers(%d): want 1…%d numbers", n, MaxBatch)
	}
	out := make([]int64, 0, n)
	err := g.takeEach(ctx, n, func(_ *span, first, got int64) {
		for v := first; v < first+got; v++ {
			out = append(out, v)
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// NextIDs returns the next n IDs ("orders/17-A", …), taken as NextNumbers takes numbers. n
// must be in [1, MaxBatch]. After Close it returns ErrClosed. A call that fails part way
// returns no IDs; the numbers it took are gaps, which HiLo allows.
func (g *Generator) NextIDs(ctx context.Context, n int) ([]string, error) {
	if n < 1 || n > MaxBatch {
		return nil, fmt.Errorf("hilo: NextIDs(%d): want 1…%d IDs", n, MaxBatch)
	}
	out := make([]string, 0, n)
	err := g.takeEach(ctx, n, func(s *span, first, got int64) {
		for v := first; v < first+got; v++ {
			out = append(out, s.format(v))
		}
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// takeEach takes n numbers, a run from one range at a time, and hands each run to use.
func (g *Generator) takeEach(ctx context.Context, n int, use func(s *span, first, got int64)) error {
	for left := int64(n); left > 0; {
		s, first, got, err := g.takeUpTo(ctx, left)
		if err != nil {
			return err
		}
		use(s, first, got)
		left -= got
	}
	return nil
}
