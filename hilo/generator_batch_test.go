package hilo

import (
	"errors"
	"sync"
	"testing"
)

// 64 goroutines take batches of 1 to 97 numbers, IDs and single IDs at once: no number twice,
// and together exactly 1…N (one client: its ranges are consecutive and every number of every
// range it finished was handed out), so a batch neither loses nor repeats numbers where it
// reaches past the end of a range.
func TestGeneratorBatchesUnderContention(t *testing.T) {
	const workers, rounds = 64, 150
	src := newFakeSource()
	g := newGen(t, src, "orders")
	ctx := testCtx(t)
	got := make([][]int64, workers)
	gotIDs := make([][]string, workers) // parsed after the goroutines end: number may fail the test
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Go(func() {
			for r := range rounds {
				n := 1 + (w*31+r*7)%97
				switch r % 3 {
				case 0:
					nums, err := g.NextNumbers(ctx, n)
					if err != nil {
						errs[w] = err
						return
					}
					if len(nums) != n {
						errs[w] = errors.New("NextNumbers returned a short batch")
						return
					}
					got[w] = append(got[w], nums...)
				case 1:
					ids, err := g.NextIDs(ctx, n)
					if err != nil {
						errs[w] = err
						return
					}
					if len(ids) != n {
						errs[w] = errors.New("NextIDs returned a short batch")
						return
					}
					gotIDs[w] = append(gotIDs[w], ids...)
				default:
					id, err := g.NextID(ctx)
					if err != nil {
						errs[w] = err
						return
					}
					gotIDs[w] = append(gotIDs[w], id)
				}
			}
		})
	}
	wg.Wait()
	total := 0
	for w := range workers {
		if errs[w] != nil {
			t.Fatalf("worker %d: %v", w, errs[w])
		}
		for _, id := range gotIDs[w] {
			got[w] = append(got[w], number(t, id, "orders"))
		}
		total += len(got[w])
	}
	seen := make([]bool, total+1)
	for w := range workers {
		for _, n := range got[w] {
			if n < 1 || n > int64(total) {
				t.Fatalf("number %d outside 1…%d although %d were taken", n, total, total)
			}
			if seen[n] {
				t.Fatalf("number %d handed out twice", n)
			}
			seen[n] = true
		}
	}
	if st := g.Stats(); st.Fetches < 5 {
		t.Errorf("%d numbers came from %d ranges; want batches across several ranges", total, st.Fetches)
	}
	if p := src.peakInflight(); p != 1 {
		t.Errorf("%d range fetches ran at once, want at most 1 per generator", p)
	}
}

// A batch within one range costs one range, ascends and is consecutive; a batch larger than the
// range goes on in the next one.
func TestGeneratorBatchSpansRanges(t *testing.T) {
	src := newFakeSource()
	g := newGen(t, src, "orders")
	stillClock(g)
	ctx := testCtx(t)
	nums, err := g.NextNumbers(ctx, 10)
	if err != nil {
		t.Fatal(err)
	}
	for i, n := range nums {
		if n != int64(i+1) {
			t.Fatalf("first batch %v, want 1…10", nums)
		}
	}
	// The first range has 32 numbers (fake source's policy): 22 are left, so 40 reach on.
	ids, err := g.NextIDs(ctx, 40)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if n := number(t, id, "orders"); n != int64(11+i) {
			t.Fatalf("second batch's ID %d is %q, want orders/%d-A", i, id, 11+i)
		}
	}
	if st := g.Stats(); st.Fetches < 2 {
		t.Errorf("stats %+v: a batch past the first range fetched no second one", st)
	}
}

func TestGeneratorBatchBoundsAndClose(t *testing.T) {
	g := newGen(t, newFakeSource(), "orders")
	ctx := testCtx(t)
	for _, n := range []int{0, -1, MaxBatch + 1} {
		if _, err := g.NextNumbers(ctx, n); err == nil {
			t.Errorf("NextNumbers(%d) succeeded", n)
		}
		if _, err := g.NextIDs(ctx, n); err == nil {
			t.Errorf("NextIDs(%d) succeeded", n)
		}
	}
	if err := g.Close(ctx); err != nil {
		t.Fatal(err)
	}
	if _, err := g.NextNumbers(ctx, 3); !errors.Is(err, ErrClosed) {
		t.Errorf("NextNumbers after Close = %v, want ErrClosed", err)
	}
	if _, err := g.NextIDs(ctx, 3); !errors.Is(err, ErrClosed) {
		t.Errorf("NextIDs after Close = %v, want ErrClosed", err)
	}
}
