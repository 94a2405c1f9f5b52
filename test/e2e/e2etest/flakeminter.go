package e2etest

// Processes that embed the Go client's NumericGenerator (test/flakeminter), and the checks of
// what they minted, shared by clients/numeric_sigstop_test.go and the chaos suite's `flake` schedule.

import (
	"cmp"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/idnode/idnode/flake"
	"github.com/idnode/idnode/flakelease"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/prebuilt"
)

// MaxErrorsKept is how many unexpected errors or problems a check keeps for its report.
const MaxErrorsKept = 20

var flakeMinterBinary = &goBinary{prog: prebuilt.FlakeMinter}

// BuildFlakeMinter finds or builds test/flakeminter once per test binary and returns its path.
func BuildFlakeMinter(t testing.TB) string { t.Helper(); return flakeMinterBinary.build(t) }

// StartFlakeMinter starts a flakeminter named label minting against the nodes at addrs into
// out, with further flags; the proc is killed at the end of the test (its output shown if
// the test failed). Stop it with proc.stop, which requires exit status 0.
func StartFlakeMinter(t testing.TB, label string, addrs []string, out string, flags ...string) *Proc {
	t.Helper()
	p := &Proc{
		t: t, bin: BuildFlakeMinter(t), Logs: NewLogBuffer(), Tag: label,
		Opts: NodeOpts{Dir: t.TempDir()}, env: nodeenv.Clean(),
		Args: append([]string{"-addrs", strings.Join(addrs, ","), "-out", out, "-holder", label}, flags...),
	}
	t.Cleanup(func() {
		p.killIfRunning()
		if t.Failed() {
			t.Logf("flakeminter %s output:\n%s", label, p.Logs.String())
		}
	})
	p.start()
	return p
}

// minterEvent is one line of a flakeminter's file: a grant, an ID or a refusal.
type minterEvent struct {
	Grant *flakelease.Grant
	Id    int64
	Parts flake.Parts // of id
	Err   string
}

func (e minterEvent) IsID() bool { return e.Grant == nil && e.Err == "" }

// MintedRun is what one flakeminter process wrote.
type MintedRun struct {
	label  string
	Events []minterEvent
}

// ReadMinted parses a flakeminter's file. A last line cut short (the process still writing)
// is left out.
func ReadMinted(label, path string) (MintedRun, error) {
	run := MintedRun{label: label}
	data, err := os.ReadFile(path)
	if err != nil {
		return run, err
	}
	lines := strings.Split(string(data), "\n")
	layout := flake.DefaultLayout()
	for i, line := range lines[:len(lines)-1] { // the part after the last newline is unfinished
		kind, rest, _ := strings.Cut(line, " ")
		var e minterEvent
		switch kind {
		case "lease":
			var g flakelease.Grant
			if _, err := fmt.Sscanf(rest, "%d %d %d %d", &g.Worker, &g.Epoch, &g.MinMs, &g.MaxMs); err != nil {
				return run, fmt.Errorf("%s line %d %q: %w", path, i+1, line, err)
			}
			e.Grant = &g
		case "id":
			if e.Id, err = strconv.ParseInt(rest, 10, 64); err == nil {
				e.Parts, err = layout.Decompose(e.Id)
			}
			if err != nil {
				return run, fmt.Errorf("%s line %d %q: %w", path, i+1, line, err)
			}
		case "err":
			e.Err = rest
		default:
			return run, fmt.Errorf("%s line %d %q: not a lease, id or err line", path, i+1, line)
		}
		run.Events = append(run.Events, e)
	}
	return run, nil
}

func (r MintedRun) Ids() int {
	n := 0
	for _, e := range r.Events {
		if e.IsID() {
			n++
		}
	}
	return n
}

// leaseKey is a grant's identity: a worker and its fencing epoch.
type leaseKey struct {
	worker uint32
	epoch  uint64
}

// Grants are the run's grants by worker and epoch, each with the highest MaxMs any of its
// lines showed (renewals raise it), in the order they first appeared.
func (r MintedRun) Grants() ([]leaseKey, map[leaseKey]flakelease.Grant) {
	var order []leaseKey
	by := map[leaseKey]flakelease.Grant{}
	for _, e := range r.Events {
		if e.Grant == nil {
			continue
		}
		k := leaseKey{e.Grant.Worker, e.Grant.Epoch}
		g, seen := by[k]
		if !seen {
			order = append(order, k)
			g = *e.Grant
		}
		g.MaxMs = max(g.MaxMs, e.Grant.MaxMs)
		by[k] = g
	}
	return order, by
}

// grantOf is the grant of the run whose time range holds the ID's (each worker's grants
// have disjoint ranges), or false.
func grantOf(by map[leaseKey]flakelease.Grant, p flake.Parts) (leaseKey, bool) {
	ms := p.Time.UnixMilli()
	for k, g := range by {
		if uint64(k.worker) == p.Worker && ms > g.MinMs && ms <= g.MaxMs {
			return k, true
		}
	}
	return leaseKey{}, false
}

// mintedCheck is what checkMinted found, for a test's log or a schedule's line.
type mintedCheck struct {
	ids, grants, refusals int
	recycled              int // grants of a worker someone held before (epoch above 1)
	duplicates            int
	Problems              []string
}

func (c mintedCheck) String() string {
	return fmt.Sprintf("ids=%d grants=%d recycled=%d refusals=%d duplicates=%d", c.ids, c.grants, c.recycled, c.refusals, c.duplicates)
}

// CheckMinted checks the runs of several processes against each other:
//   - no ID twice, in one process or two;
//   - each process's IDs strictly increasing (the generator's promise, across its leases), so
//     those of each worker and epoch too;
//   - each ID inside a grant its own process was given for the ID's worker: time above the
//     grant's MinMs, at most its MaxMs;
//   - no worker and epoch given to two processes, and the grants of one worker, whoever got
//     them, over disjoint times: what keeps two holders of a worker from minting one ID.
func CheckMinted(runs []MintedRun) mintedCheck {
	var c mintedCheck
	fail := func(format string, args ...any) {
		if len(c.Problems) < MaxErrorsKept {
			c.Problems = append(c.Problems, fmt.Sprintf(format, args...))
		}
	}
	seen := map[int64]string{}
	type held struct {
		label string
		g     flakelease.Grant
	}
	byWorker := map[uint32][]held{}
	for _, r := range runs {
		order, by := r.Grants()
		c.grants += len(order)
		for _, k := range order {
			if k.epoch > 1 {
				c.recycled++
			}
			byWorker[k.worker] = append(byWorker[k.worker], held{r.label, by[k]})
		}
		last := int64(-1)
		for _, e := range r.Events {
			switch {
			case e.Err != "":
				c.refusals++
				continue
			case !e.IsID():
				continue
			}
			c.ids++
			if other, dup := seen[e.Id]; dup {
				c.duplicates++
				fail("ID %d (%v) minted by %s and by %s", e.Id, e.Parts, other, r.label)
			}
			seen[e.Id] = r.label
			if e.Id <= last {
				fail("%s: ID %d (%v) after %d: not increasing", r.label, e.Id, e.Parts, last)
			}
			last = e.Id
			if _, ok := grantOf(by, e.Parts); !ok {
				fail("%s: ID %d (%v) is outside every grant it was given for worker %d", r.label, e.Id, e.Parts, e.Parts.Worker)
			}
		}
	}
	for w, hs := range byWorker {
		slices.SortFunc(hs, func(a, b held) int { return cmp.Compare(a.g.MinMs, b.g.MinMs) })
		for i := 1; i < len(hs); i++ {
			a, b := hs[i-1], hs[i]
			if a.g.Epoch == b.g.Epoch || b.g.MinMs < a.g.MaxMs {
				fail("worker %d: %s got epoch %d for (%d, %d] ms and %s epoch %d for (%d, %d] ms: overlapping grants",
					w, a.label, a.g.Epoch, a.g.MinMs, a.g.MaxMs, b.label, b.g.Epoch, b.g.MinMs, b.g.MaxMs)
			}
		}
	}
	return c
}
