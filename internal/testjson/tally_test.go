package testjson

import (
	"bytes"
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
