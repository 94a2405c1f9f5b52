package testjson

import (
	"bytes"
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"
	"testing"
)

// TestTallyAndTimingsOverTwoRuns feeds two -json runs of the sample package to a Tally and
// one of them to Timings.
func TestTallyAndTimingsOverTwoRuns(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a sample package")
	}
	dir := samplePackage(t)
	tally := NewTally()
	var timings Timings
	for run := range 2 {
		err := Read(bytes.NewReader(goTest(t, dir, "-json")), func(e Event, ok bool, line []byte) {
			if !ok {
				t.Errorf("not an event: %s", line)
				return
			}
			tally.Event(e)
			if run == 0 {
				timings.Event(e)
			}
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	var failing []string
	for _, o := range tally.Failing() {
		failing = append(failing, o.Test)
		if o.Failed != 2 || o.Passed != 0 {
			t.Errorf("%s: failed %d, passed %d times in two runs; want 2 and 0", o.Test, o.Failed, o.Passed)
		}
		if o.Test == "TestFails" && !strings.Contains(strings.Join(o.FirstFailureOutput, "\n"), "the failure") {
			t.Errorf("TestFails' first failure kept %q; want its log line", o.FirstFailureOutput)
		}
	}
	slices.Sort(failing)
	if want := []string{PackageLevel, "TestFails", "TestParent", "TestParent/bad"}; !slices.Equal(failing, want) {
		t.Errorf("failing %q; want %q", failing, want)
	}
	if len(timings.Packages) != 1 || timings.Packages[0].Action != "fail" {
		t.Errorf("package timings %+v; want the sample's, failed", timings.Packages)
	}
	var tests []string
	for _, tm := range Slowest(timings.Tests, 10) {
		tests = append(tests, tm.Test)
	}
	slices.Sort(tests)
	if want := []string{"TestFails", "TestParent", "TestPasses", "TestSkips"}; !slices.Equal(tests, want) {
		t.Errorf("timed tests %q; want the top-level ones %q", tests, want)
	}
	var report strings.Builder
	if err := timings.WriteSlowest(&report, 2); err != nil || strings.Count(report.String(), "\n") != 5 {
		t.Errorf("WriteSlowest(2) wrote %q, %v; want two headings, one package and two tests", report.String(), err)
	}
}

// TestTallyKeepsAFailuresMessagePastADump: a test's Fatalf followed by more dump lines than a
// Tally keeps is still shown, with the dump's last lines after it.
func TestTallyKeepsAFailuresMessagePastADump(t *testing.T) {
	tally := NewTally()
	ev := func(action, output string) {
		tally.Event(Event{Action: action, Package: "p", Test: "TestX", Output: output})
	}
	ev("run", "")
	ev("output", "    x_test.go:12: step one\n")
	ev("output", "    x_test.go:40: offsets off: A 0.2 (want 0)\n")
	ev("output", "    harness.go:90: node A's log:\n")
	for i := range 2 * maxFailureLines {
		ev("output", fmt.Sprintf("        time=%d level=INFO msg=\"a dump line\"\n", i))
	}
	ev("fail", "")
	failing := tally.Failing()
	if len(failing) != 1 {
		t.Fatalf("failing %+v; want TestX", failing)
	}
	got := failing[0].FailureLines(5)
	want := []string{
		"    x_test.go:12: step one",
		"    x_test.go:40: offsets off: A 0.2 (want 0)",
		"    harness.go:90: node A's log:",
		"    […]",
	}
	for i := range 5 {
		want = append(want, fmt.Sprintf("        time=%d level=INFO msg=\"a dump line\"", 2*maxFailureLines-5+i))
	}
	if !slices.Equal(got, want) {
		t.Errorf("FailureLines(5) =\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// A failure whose message is among its last lines shows it once.
	o := Outcomes{FirstFailureOutput: []string{"a", "    x_test.go:1: m", "b"}, FirstFailureMessages: []string{"    x_test.go:1: m"}}
	if got := o.FailureLines(5); !slices.Equal(got, o.FirstFailureOutput) {
		t.Errorf("FailureLines(5) = %q; want its output %q, once", got, o.FirstFailureOutput)
	}
}

// A test binary that dies under running tests (here go test's -timeout) ends with the
// package's fail alone: the tests still running failed too, and the panic is their output.
func TestTallyFailsTheTestsAPackageDiedUnder(t *testing.T) {
	tally := NewTally()
	for _, e := range []Event{
		{Action: "output", Package: "p", Test: "TestSeeds", Output: "    sim_test.go:70: seeds 1 to 3\n"},
		{Action: "output", Package: "p", Test: "TestSeeds/1", Output: "=== CONT  TestSeeds/1\n"},
		{Action: "output", Package: "p", Test: "TestSeeds/2", Output: "--- PASS: TestSeeds/2 (0.00s)\n"},
		{Action: "pass", Package: "p", Test: "TestSeeds/2"},
		{Action: "output", Package: "p", Test: "TestSeeds/1", Output: "panic: test timed out after 10m0s\n"},
		{Action: "output", Package: "p", Test: "TestSeeds/1", Output: "\t\tTestSeeds/1 (10m0s)\n"},
		{Action: "output", Package: "p", Output: "FAIL\tp\t600.020s\n"},
		{Action: "fail", Package: "p"},
		// The next run of the same package passes: nothing of the first is left to count.
		{Action: "output", Package: "p", Test: "TestSeeds", Output: "    sim_test.go:70: seeds 1 to 3\n"},
		{Action: "pass", Package: "p", Test: "TestSeeds"},
		{Action: "pass", Package: "p"},
	} {
		tally.Event(e)
	}
	got := map[string]Outcomes{}
	for _, o := range tally.Failing() {
		got[o.Test] = o
	}
	if len(got) != 3 {
		t.Errorf("failing %v; want TestSeeds, TestSeeds/1 and the package", slices.Collect(maps.Keys(got)))
	}
	if o := got["TestSeeds/1"]; o.Failed != 1 || !slices.Contains(o.FirstFailureMessages, "panic: test timed out after 10m0s") {
		t.Errorf("TestSeeds/1: %+v; want one failure whose messages hold the panic", o)
	}
	if o := got["TestSeeds"]; o.Failed != 1 || o.Passed != 1 {
		t.Errorf("TestSeeds: %+v; want one failure, then one pass", o)
	}
	if o := got[PackageLevel]; o.Failed != 1 || o.Passed != 1 {
		t.Errorf("package: %+v; want one failure, then one pass", o)
	}
	if len(tally.output) != 0 || len(tally.messages) != 0 {
		t.Errorf("after the runs, the tally still holds the output of %d tests", len(tally.output))
	}
}

// The events test2json wrote for a binary that timed out while parallel subtests' lines
// interleaved: it gave the panic to TestSeeds/0, whose --- PASS line it had read after the
// CONT of TestSeeds/1, and passed TestSeeds/0 only once the binary had died.
var panicInAPassedTest = []Event{
	{Action: "output", Package: "p", Test: "TestSeeds", Output: "    hang_test.go:9: seeds 1 to 3\n"},
	{Action: "output", Package: "p", Test: "TestSeeds/1", Output: "=== CONT  TestSeeds/1\n"},
	{Action: "output", Package: "p", Test: "TestSeeds/0", Output: "--- PASS: TestSeeds/0 (0.00s)\n"},
	{Action: "output", Package: "p", Test: "TestSeeds/0", Output: "panic: test timed out after 2s\n"},
	{Action: "output", Package: "p", Test: "TestSeeds/0", Output: "\trunning tests:\n"},
	{Action: "output", Package: "p", Test: "TestSeeds/0", Output: "\t\tTestSeeds/1 (2s)\n"},
	{Action: "pass", Package: "p", Test: "TestSeeds/0"},
	{Action: "output", Package: "p", Output: "FAIL\tp\t2.008s\n"},
	{Action: "fail", Package: "p"},
}

func TestTallyGivesAPanicInAPassedTestToItsPackage(t *testing.T) {
	tally := NewTally()
	for _, e := range panicInAPassedTest {
		tally.Event(e)
	}
	for _, o := range tally.Failing() {
		if o.Test == PackageLevel {
			lines := o.FailureLines(40)
			if !slices.Contains(lines, "panic: test timed out after 2s") || !slices.Contains(lines, "\t\tTestSeeds/1 (2s)") {
				t.Errorf("the package's failure says %q; want the panic and the test it ran", lines)
			}
			return
		}
	}
	t.Errorf("failing %+v; want the package among them", tally.Failing())
}

func TestPlainPrintsAPanicInAPassedTest(t *testing.T) {
	var out bytes.Buffer
	p := NewPlain(&out, io.Discard)
	for _, e := range panicInAPassedTest {
		p.Event(e)
	}
	if !strings.Contains(out.String(), "panic: test timed out after 2s\n\trunning tests:\n\t\tTestSeeds/1 (2s)\n") {
		t.Errorf("printed:\n%s\nwant the panic and the test it ran", out.String())
	}
}
