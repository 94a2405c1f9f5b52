package history

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

const checkTimeout = 10 * time.Second

// ms is a timestamp on the Recorder's clock, for hand-built histories.
func ms(n int) time.Duration { return time.Duration(n) * time.Millisecond }

// known adds an acknowledged identity operation [call, ret] → [first, last].
func known(r *Recorder, prefix string, call, ret int, first, last int64) {
	r.AddIdentity(IdentityRecord{Prefix: prefix, Count: last - first + 1, Call: ms(call), Return: ms(ret), Known: true, First: first, Last: last})
}

// unknown adds an identity operation of count values without an answer.
func unknown(r *Recorder, prefix string, call, ret int, count int64) {
	r.AddIdentity(IdentityRecord{Prefix: prefix, Count: count, Call: ms(call), Return: ms(ret)})
}

func TestPassingHistory(t *testing.T) {
	r := New()
	// Sequential, with blocks, on one counter spelt two ways.
	known(r, "users", 0, 10, 1, 1)
	known(r, "Users", 20, 30, 2, 4)
	known(r, "users", 40, 50, 5, 5)
	// Concurrent calls may be numbered in either order.
	known(r, "users", 60, 100, 7, 7)
	known(r, "users", 70, 90, 6, 6)
	// Another prefix has its own counter: the same numbers again are no duplicates.
	known(r, "orders", 0, 5, 1, 1)
	known(r, "orders", 6, 8, 2, 2)
	r.ServerSideID(0, "users/0000000000000000001-A", "A", 1)
	r.ServerSideID(0, "users/0000000000000000001-B", "B", 1)
	r.ServerSideID(0, "orders/0000000000000000002-A", "A", 2)
	r.GUID("0194f1f0-7d5c-7a3b-9c1e-1234567890ab")
	r.GUID("0194f1f0-7d5c-7a3b-9c1e-1234567890ac")
	r.HiLoRange("orders", 1, 32)
	r.HiLoRange("Orders", 33, 96)
	r.HiLoRange("invoices", 1, 32)

	rep := r.Check(checkTimeout)
	if !rep.OK() || rep.Err() != nil {
		t.Fatalf("a correct history fails: %v", rep.Err())
	}
	want := "ids=14 identities=9 hilo_ranges=3 duplicates=0 linearizable=true"
	if got := rep.String(); got != want {
		t.Errorf("String() = %q, want %q", got, want)
	}
	if rep.IdentityOps != 7 || rep.ServerSideIDs != 3 || rep.GUIDs != 2 || rep.UnknownOps != 0 {
		t.Errorf("report counts: %+v", rep)
	}
	if v, ok := r.MaxIdentity("USERS"); !ok || v != 7 {
		t.Errorf("MaxIdentity(USERS) = %d, %v; want 7", v, ok)
	}
	if _, ok := r.MaxIdentity("invoices"); ok {
		t.Errorf("MaxIdentity of a prefix never used reports a value")
	}
	if got := r.MaxHiLo("ORDERS"); got != 96 {
		t.Errorf("MaxHiLo(ORDERS) = %d, want 96", got)
	}
	if got := r.MaxEtag("A"); got != 2 {
		t.Errorf("MaxEtag(A) = %d, want 2", got)
	}
}

func TestEmptyHistoryPasses(t *testing.T) {
	rep := New().Check(checkTimeout)
	if !rep.OK() || rep.String() != "ids=0 identities=0 hilo_ranges=0 duplicates=0 linearizable=true" {
		t.Fatalf("empty history: %v", rep)
	}
}

func TestDuplicateIdentity(t *testing.T) {
	r := New()
	known(r, "users", 0, 10, 1, 1)
	known(r, "users", 20, 30, 2, 3)
	known(r, "USERS", 40, 50, 3, 3) // 3 again, spelt differently: the same counter
	known(r, "orders", 0, 10, 3, 3) // another counter: not a duplicate
	dups, examples := r.Duplicates()
	if dups != 1 || len(examples) != 1 || !strings.Contains(examples[0], "identity users") {
		t.Fatalf("Duplicates() = %d %q; want 1 in identity users", dups, examples)
	}
	rep := r.Check(checkTimeout)
	if rep.OK() || rep.Duplicates != 1 || rep.Linearizable {
		t.Fatalf("Check: %v", rep.Err())
	}
	if !strings.Contains(rep.Err().Error(), "duplicate: identity users") {
		t.Errorf("Err() does not describe the duplicate: %v", rep.Err())
	}
}

func TestDuplicateIdentityCountsEveryRepeat(t *testing.T) {
	r := New()
	known(r, "a", 0, 1, 1, 10)
	known(r, "a", 0, 1, 5, 6)   // 2 repeats
	known(r, "a", 0, 1, 6, 12)  // 5 and 6 … 10: 5 repeats
	known(r, "a", 0, 1, 12, 12) // 1 repeat
	if dups, _ := r.Duplicates(); dups != 8 {
		t.Fatalf("Duplicates() = %d, want 8", dups)
	}
}

func TestOverlappingHiLoRanges(t *testing.T) {
	for _, tc := range []struct {
		name   string
		ranges []HiLoRange
		want   int
	}{
		{"disjoint", []HiLoRange{{"orders", 1, 32}, {"orders", 33, 64}}, 0},
		{"one shared number", []HiLoRange{{"orders", 1, 32}, {"orders", 32, 64}}, 1},
		{"same range twice", []HiLoRange{{"orders", 1, 32}, {"orders", 1, 32}}, 32},
		{"contained", []HiLoRange{{"orders", 1, 100}, {"orders", 40, 50}}, 11},
		{"tags compare case-insensitively", []HiLoRange{{"orders", 1, 32}, {"Orders", 10, 40}}, 23},
		{"other tags are other numbers", []HiLoRange{{"orders", 1, 32}, {"invoices", 1, 32}}, 0},
		{"out of order", []HiLoRange{{"orders", 65, 96}, {"orders", 1, 32}, {"orders", 20, 70}}, 13 + 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := New()
			for _, h := range tc.ranges {
				r.HiLoRange(h.Tag, h.Low, h.High)
			}
			rep := r.Check(checkTimeout)
			if rep.Duplicates != tc.want || rep.OK() != (tc.want == 0) {
				t.Fatalf("duplicates = %d (%q), want %d", rep.Duplicates, rep.DuplicateExamples, tc.want)
			}
			if tc.want > 0 && !strings.Contains(rep.DuplicateExamples[0], "HiLo orders") {
				t.Errorf("example %q does not name the tag", rep.DuplicateExamples[0])
			}
		})
	}
}

func TestHiLoReturnedTailMayBeGrantedAgain(t *testing.T) {
	r := New()
	r.HiLoRange("orders", 1, 32)
	r.HiLoReturn("orders", 32, 7) // 8 … 32 given back
	r.HiLoRange("orders", 8, 71)
	if rep := r.Check(checkTimeout); !rep.OK() {
		t.Fatalf("re-granted returned tail: %v", rep.Err())
	}
	r.HiLoReturn("orders", 71, 0) // the whole range given back
	r.HiLoRange("orders", 8, 100)
	if rep := r.Check(checkTimeout); !rep.OK() {
		t.Fatalf("re-granted a wholly returned range: %v", rep.Err())
	}
	r.HiLoRange("orders", 1, 5) // but 1 … 7 were kept
	if rep := r.Check(checkTimeout); rep.Duplicates != 5 {
		t.Fatalf("kept numbers granted again: duplicates = %d, want 5", rep.Duplicates)
	}
}

func TestDuplicateServerSideID(t *testing.T) {
	r := New()
	r.ServerSideID(0, "users/0000000000000000001-A", "A", 1)
	r.ServerSideID(0, "users/0000000000000000001-B", "B", 1) // other node: fine
	rep := r.Check(checkTimeout)
	if !rep.OK() {
		t.Fatalf("distinct server-side IDs: %v", rep.Err())
	}
	r.ServerSideID(0, "users/0000000000000000001-A", "A", 1)
	rep = r.Check(checkTimeout)
	if rep.Duplicates != 1 || !strings.Contains(rep.DuplicateExamples[0], "users/0000000000000000001-A") {
		t.Fatalf("repeated server-side ID: %v", rep.Err())
	}
	// The same etag under another prefix is a repeat of the node's counter.
	r2 := New()
	r2.ServerSideID(0, "users/0000000000000000009-A", "A", 9)
	r2.ServerSideID(0, "orders/0000000000000000009-A", "A", 9)
	if rep := r2.Check(checkTimeout); rep.Duplicates != 1 || !strings.Contains(rep.DuplicateExamples[0], "etag of node A") {
		t.Fatalf("one etag under two prefixes: %v", rep.Err())
	}
}

func TestDuplicateGUID(t *testing.T) {
	r := New()
	r.GUID("0194f1f0-7d5c-7a3b-9c1e-1234567890ab")
	r.GUID("0194F1F0-7D5C-7A3B-9C1E-1234567890AB")
	if rep := r.Check(checkTimeout); rep.Duplicates != 1 || rep.OK() {
		t.Fatalf("repeated GUID: %v", rep)
	}
}

func TestNotLinearizableStaleValue(t *testing.T) {
	// 2 is acknowledged, then a call sent afterwards gets 1: no duplicate, but the order is
	// impossible for one counter.
	r := New()
	known(r, "users", 0, 10, 2, 2)
	known(r, "users", 20, 30, 1, 1)
	rep := r.Check(checkTimeout)
	if rep.Duplicates != 0 {
		t.Fatalf("duplicates = %d, want 0", rep.Duplicates)
	}
	if rep.Linearizable || len(rep.LinearizabilityProblems) != 1 {
		t.Fatalf("stale value accepted: %+v", rep)
	}
	p := rep.LinearizabilityProblems[0]
	if !strings.Contains(p, `prefix "users"`) || !strings.Contains(p, "op #0 got [2, 2]") {
		t.Errorf("problem %q does not name the prefix and the witness", p)
	}
	if err := r.Linearizable(checkTimeout); err == nil {
		t.Errorf("Linearizable() = nil")
	}
	// The same two answers for concurrent calls are fine.
	r2 := New()
	known(r2, "users", 0, 30, 2, 2)
	known(r2, "users", 20, 40, 1, 1)
	if err := r2.Linearizable(checkTimeout); err != nil {
		t.Fatalf("concurrent calls in either order: %v", err)
	}
}

func TestNotLinearizableSameValue(t *testing.T) {
	r := New()
	known(r, "users", 0, 30, 1, 1)
	known(r, "users", 10, 40, 1, 1)
	rep := r.Check(checkTimeout)
	if rep.Linearizable || rep.Duplicates != 1 {
		t.Fatalf("two concurrent calls with the same value: %+v", rep)
	}
}

func TestNotLinearizableGap(t *testing.T) {
	// A value skipped with no call that could have taken it.
	r := New()
	known(r, "users", 0, 10, 1, 1)
	known(r, "users", 20, 30, 3, 3)
	if err := r.Linearizable(checkTimeout); err == nil {
		t.Fatal("a gap with no unanswered call accepted")
	}
	// A block must be exactly count consecutive values.
	r2 := New()
	r2.AddIdentity(IdentityRecord{Prefix: "users", Count: 3, Call: 0, Return: ms(10), Known: true, First: 1, Last: 2})
	if err := r2.Linearizable(checkTimeout); err == nil {
		t.Fatal("a block of 2 for count 3 accepted")
	}
}

func TestUnknownOutcomeAcceptedBothWays(t *testing.T) {
	t.Run("consumed", func(t *testing.T) {
		r := New()
		known(r, "users", 0, 10, 1, 1)
		unknown(r, "users", 15, 16, 2) // took 2 and 3, the answer was lost
		known(r, "users", 20, 30, 4, 4)
		if rep := r.Check(checkTimeout); !rep.OK() || rep.UnknownOps != 1 {
			t.Fatalf("%v (%+v)", rep.Err(), rep)
		}
	})
	t.Run("not applied", func(t *testing.T) {
		r := New()
		known(r, "users", 0, 10, 1, 1)
		unknown(r, "users", 15, 16, 2)
		known(r, "users", 20, 30, 2, 2)
		if rep := r.Check(checkTimeout); !rep.OK() {
			t.Fatal(rep.Err())
		}
	})
	t.Run("applied late", func(t *testing.T) {
		// The client gave up at 16, but the entry committed after a later call: an unknown
		// outcome may take effect any time after its call.
		r := New()
		known(r, "users", 0, 10, 1, 1)
		unknown(r, "users", 15, 16, 2)
		known(r, "users", 20, 30, 2, 2)
		known(r, "users", 40, 50, 5, 5)
		if rep := r.Check(checkTimeout); !rep.OK() {
			t.Fatal(rep.Err())
		}
	})
	t.Run("pending counts as unknown", func(t *testing.T) {
		r := New()
		known(r, "users", 0, 10, 1, 1)
		r.BeginIdentity("users", 1) // never finished
		later := r.Now() + time.Hour
		r.AddIdentity(IdentityRecord{Prefix: "users", Count: 1, Call: later, Return: later + time.Millisecond, Known: true, First: 3, Last: 3})
		if rep := r.Check(checkTimeout); !rep.OK() || rep.UnknownOps != 1 {
			t.Fatalf("%v (%+v)", rep.Err(), rep)
		}
	})
	t.Run("only as many as asked for", func(t *testing.T) {
		r := New()
		known(r, "users", 0, 10, 1, 1)
		unknown(r, "users", 15, 16, 2)
		known(r, "users", 20, 30, 3, 3) // a gap of 1: neither 0 nor 2
		if err := r.Linearizable(checkTimeout); err == nil {
			t.Fatal("a gap of 1 explained by an unknown call of count 2")
		}
	})
	t.Run("not before it was called", func(t *testing.T) {
		r := New()
		known(r, "users", 0, 10, 1, 1)
		known(r, "users", 20, 30, 4, 4)
		unknown(r, "users", 40, 41, 2) // too late to explain the gap before 4
		if err := r.Linearizable(checkTimeout); err == nil {
			t.Fatal("a gap explained by a call made after it")
		}
	})
}

func TestRetriedOperationIsOneOperation(t *testing.T) {
	r := New()
	op := r.BeginIdentity("users", 2)
	op.Retry()
	op.Retry()
	op.Done(1, 2)
	op.Unknown() // too late: the first outcome stands
	op2 := r.BeginIdentity("users", 1)
	op2.Done(3, 3)
	rep := r.Check(checkTimeout)
	if !rep.OK() || rep.IdentityOps != 2 || rep.Identities != 3 || rep.UnknownOps != 0 || rep.Retries != 2 {
		t.Fatalf("%v (%+v)", rep.Err(), rep)
	}
}

func TestSeeds(t *testing.T) {
	seed := func(r *Recorder, name string, value int64, force bool, call, ret int, known bool, result int64) {
		r.AddSeed(SeedRecord{Name: name, Value: value, Force: force, Call: ms(call), Return: ms(ret), Known: known, Result: result})
	}
	r := New()
	known(r, "invoices", 0, 10, 1, 3)
	seed(r, "invoices", 654, false, 20, 30, true, 654)
	seed(r, "invoices", 100, false, 40, 50, true, 654) // a plain seed only raises
	known(r, "Invoices", 60, 70, 655, 655)
	seed(r, "invoices", 10, true, 80, 90, true, 10)
	seed(r, "invoices", 500, true, 100, 110, false, 0) // unanswered …
	known(r, "invoices", 120, 130, 501, 501)           // … but it happened
	seed(r, "invoices", 900, true, 140, 150, false, 0) // unanswered, and it did not happen
	known(r, "invoices", 160, 170, 502, 502)
	if rep := r.Check(checkTimeout); !rep.OK() || rep.UnknownOps != 2 {
		t.Fatalf("seeds: %v (%+v)", rep.Err(), rep)
	}

	r2 := New()
	seed(r2, "invoices", 100, false, 0, 10, true, 100)
	seed(r2, "invoices", 50, false, 20, 30, true, 50) // a plain seed must not lower
	if err := r2.Linearizable(checkTimeout); err == nil {
		t.Fatal("a seed without force lowered the counter")
	}
	r3 := New()
	seed(r3, "invoices", 100, false, 0, 10, true, 100)
	known(r3, "invoices", 20, 30, 1, 1) // the seed was acknowledged before this call
	if err := r3.Linearizable(checkTimeout); err == nil {
		t.Fatal("an identity below an acknowledged seed accepted")
	}
}

func TestEtagsIncreasing(t *testing.T) {
	r := New()
	add := func(id string, etag uint64, call, ret int) {
		r.AddServerSideID(ServerSideRecord{ID: id, Tag: "A", Etag: etag, Call: ms(call), Return: ms(ret)})
	}
	add("users/0000000000000000005-A", 5, 0, 30)
	add("users/0000000000000000003-A", 3, 10, 20) // concurrent with 5: either order
	add("users/0000000000000000100-A", 100, 40, 50)
	r.AddServerSideID(ServerSideRecord{ID: "users/0000000000000000001-B", Tag: "B", Etag: 1, Call: ms(60), Return: ms(70)})
	if err := r.EtagsIncreasing("A"); err != nil {
		t.Fatal(err)
	}
	add("users/0000000000000000099-A", 99, 60, 70) // sent after 100 was acknowledged
	err := r.EtagsIncreasing("A")
	if err == nil || !strings.Contains(err.Error(), "users/0000000000000000100-A") || !strings.Contains(err.Error(), "users/0000000000000000099-A") {
		t.Fatalf("EtagsIncreasing(A) = %v; want the pair 100, 99", err)
	}
	if err := r.EtagsIncreasing("B"); err != nil {
		t.Fatalf("node B: %v", err)
	}
	// An etag repeated in acknowledgement order is not an increase either.
	r2 := New()
	r2.AddServerSideID(ServerSideRecord{ID: "users/0000000000000000007-A", Tag: "A", Etag: 7, Call: ms(0), Return: ms(1)})
	r2.AddServerSideID(ServerSideRecord{ID: "orders/0000000000000000007-A", Tag: "A", Etag: 7, Call: ms(2), Return: ms(3)})
	if err := r2.EtagsIncreasing("A"); err == nil {
		t.Fatal("a repeated etag counted as increasing")
	}
}

// TestConcurrentRecording drives the recorder from many goroutines against a correct
// counter (run it with -race).
func TestConcurrentRecording(t *testing.T) {
	r := New()
	var (
		mu      sync.Mutex
		counter int64
		etag    uint64
	)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 150 {
				count := int64(1 + (w+i)%3)
				op := r.BeginIdentity([]string{"users", "Users", "orders"}[i%3], count)
				if i%17 == 5 {
					op.Retry()
				}
				mu.Lock()
				var first, last int64
				if i%3 == 2 {
					first, last = 0, 0 // orders: its own counter below
				} else {
					first, last = counter+1, counter+count
					counter = last
				}
				mu.Unlock()
				if i%3 == 2 {
					op.Unknown() // the orders counter never moves: unknown ops not applied
					continue
				}
				op.Done(first, last)
				call := r.Now()
				mu.Lock()
				etag++
				e := etag
				mu.Unlock()
				r.ServerSideID(call, fmt.Sprintf("users/%019d-A", e), "A", e)
				r.GUID(fmt.Sprintf("g-%d-%d", w, i))
				r.BeginClaim("carts", fmt.Sprintf("o-%d-%d", w, i), int64(w*1000+i+1)).Won() // values nobody else claims
				_ = r.ClaimedValues("carts")
				if i%50 == 0 {
					mu.Lock()
					r.HiLoRange("orders", int64(w*10_000+i*10+1), int64(w*10_000+i*10+10))
					mu.Unlock()
				}
				_, _ = r.MaxIdentity("users")
				_ = r.Acknowledged()
			}
		})
	}
	wg.Wait()
	rep := r.Check(30 * time.Second)
	if !rep.OK() {
		t.Fatal(rep.Err())
	}
	if err := r.EtagsIncreasing("A"); err != nil {
		t.Fatal(err)
	}
	t.Log(rep)
}

func TestUndecidedIsAFailure(t *testing.T) {
	r := New()
	// Many overlapping unanswered calls make the search large; no time at all to do it.
	for i := range 200 {
		unknown(r, "users", i, 10_000, 1)
	}
	known(r, "users", 0, 20_000, 150, 150)
	rep := r.Check(time.Nanosecond)
	if rep.Linearizable || len(rep.LinearizabilityProblems) != 1 {
		t.Fatalf("a check that ran out of time passed: %+v", rep)
	}
	if p := rep.LinearizabilityProblems[0]; !strings.Contains(p, "ran out") && !strings.Contains(p, "undecided") {
		t.Errorf("problem %q does not say the check ran out of time", p)
	}
}

func TestVisualizeOnFailure(t *testing.T) {
	r := New()
	known(r, "users", 0, 10, 2, 2)
	known(r, "users", 20, 30, 1, 1)
	dir := t.TempDir()
	rep := r.CheckWith(CheckOptions{Timeout: checkTimeout, VisualizeDir: dir})
	if rep.Linearizable {
		t.Fatal("stale value accepted")
	}
	path := filepath.Join(dir, "identity-users.html")
	if fi, err := os.Stat(path); err != nil || fi.Size() == 0 {
		t.Fatalf("no visualization at %s: %v", path, err)
	}
	if !strings.Contains(rep.LinearizabilityProblems[0], path) {
		t.Errorf("problem %q does not point at %s", rep.LinearizabilityProblems[0], path)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		id     string
		prefix string
		n      int64
		ok     bool
	}{
		{"orders/17", "orders", 17, true},
		{"eu/orders/1", "eu/orders", 1, true},
		{"Users/3", "Users", 3, true},
		{"orders/", "", 0, false},
		{"orders/017", "", 0, false},
		{"orders/-1", "", 0, false},
		{"/5", "", 0, false},
		{"orders", "", 0, false},
		{"orders/0000000000000000001-A", "", 0, false},
	} {
		prefix, n, err := ParseIdentityID(tc.id, '/')
		if (err == nil) != tc.ok || prefix != tc.prefix || n != tc.n {
			t.Errorf("ParseIdentityID(%q) = %q, %d, %v", tc.id, prefix, n, err)
		}
	}
	if p, n, err := ParseIdentityID("a:b:9", ':'); err != nil || p != "a:b" || n != 9 {
		t.Errorf("ParseIdentityID with ':' = %q, %d, %v", p, n, err)
	}
	for _, tc := range []struct {
		id          string
		prefix, tag string
		etag        uint64
		ok          bool
	}{
		{"users/0000000000000000001-A", "users", "A", 1, true},
		{"a/b/0000000000000012345-ZZA", "a/b", "ZZA", 12345, true},
		{"users/0000000000000000001-a", "", "", 0, false},
		{"users/000000000000000001-A", "", "", 0, false},
		{"users/0000000000000000000-A", "", "", 0, false},
		{"users/0000000000000000001-ABCDE", "", "", 0, false},
		{"users/0000000000000000001", "", "", 0, false},
		{"/0000000000000000001-A", "", "", 0, false},
		{"users/17", "", "", 0, false},
	} {
		prefix, tag, etag, err := ParseServerSideID(tc.id, '/')
		if (err == nil) != tc.ok || prefix != tc.prefix || tag != tc.tag || etag != tc.etag {
			t.Errorf("ParseServerSideID(%q) = %q, %q, %d, %v", tc.id, prefix, tag, etag, err)
		}
	}
}
