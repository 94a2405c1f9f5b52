package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

func TestParseRefusesNoRunsAndNoPackages(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"-n", "0", "./..."}, "-n 0"},
		{[]string{"-n", "-3", "./..."}, "-n -3"},
		{[]string{"-busy", "1000", "./..."}, "-busy 1000"},
		{[]string{"-load", "-1", "./..."}, "-load -1"},
		{[]string{"-load", "NaN", "./..."}, "-load NaN"},
		{[]string{"-load", "1e9", "./..."}, "-load 1e+09"},
		{nil, "name the packages"},
		{[]string{"./no/such/dir"}, "no/such/dir"},
	} {
		if _, err := parse(c.args); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("parse(%q) = %v; want an error saying %q", c.args, err, c.want)
		}
	}
}

// flaky fails every other run: it counts its runs in the file $FLAKY_COUNTER.
const flaky = `package flaky

import (
	"os"
	"testing"
)

func TestSteady(t *testing.T) {}

func TestEveryOtherRun(t *testing.T) {
	path := os.Getenv("FLAKY_COUNTER")
	b, _ := os.ReadFile(path)
	b = append(b, 'x')
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	if len(b)%2 == 0 {
		t.Errorf("run %d fails", len(b))
	}
}
`

// TestFindCountsAFlakyTest runs a package whose test fails every other run four times,
// beside one busy loop, and checks that only that test is reported, failing twice.
func TestFindCountsAFlakyTest(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a sample package")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module flaky\n\ngo 1.24\n", "flaky_test.go": flaky} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	t.Chdir(dir)
	t.Setenv("FLAKY_COUNTER", filepath.Join(t.TempDir(), "counter"))
	// The sample's go test takes none of the caller's go flags but -trimpath, which changes how
	// every package is compiled: without it, a run under CI's GOFLAGS compiled the standard
	// library once more for the sample (36 CPU seconds on a new machine).
	goflags := ""
	if slices.Contains(strings.Fields(os.Getenv("GOFLAGS")), "-trimpath") {
		goflags = "-trimpath"
	}
	t.Setenv("GOFLAGS", goflags)
	events := filepath.Join(t.TempDir(), "events.json")
	o, err := parse([]string{"-n", "4", "-busy", "1", "-events", events, "."})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var progress strings.Builder
	f, err := find(ctx, o, &progress)
	if err != nil {
		t.Fatal(err)
	}
	failing := f.tally.Failing()
	if len(failing) != 2 || failing[0].Failed != 2 || failing[0].Passed != 2 {
		t.Fatalf("failing %+v; want TestEveryOtherRun and its package, each failing 2 of 4 runs", failing)
	}
	if b, err := os.ReadFile(events); err != nil || strings.Count(string(b), `"Action":"fail","Package":"flaky","Test":"TestEveryOtherRun"`) != 2 {
		t.Errorf("events file (%v):\n%s\nwant the events of the 4 runs, TestEveryOtherRun failing in 2", err, b)
	}
	var out strings.Builder
	report(&out, o, f, failing)
	if !strings.Contains(out.String(), "FAIL 2/4  flaky TestEveryOtherRun") || !strings.Contains(out.String(), "fails") {
		t.Errorf("report:\n%s\nwant TestEveryOtherRun failing 2 of 4, with its failure's line", out.String())
	}
	if _, ok := loadAverage(); ok {
		if f.load.seen != 8 || !strings.Contains(out.String(), "load average ") {
			t.Errorf("report:\n%s\nsaw %d load averages; want 8 (each run's start and end) and their range", out.String(), f.load.seen)
		}
		if n := strings.Count(progress.String(), ", load average "); n != 4 {
			t.Errorf("progress:\n%s\nwant each of 4 runs to say its load average", progress.String())
		}
	}
}

func TestParseLoadavgReadsTheOneMinuteAverage(t *testing.T) {
	for _, c := range []struct {
		in   string
		want float64
		ok   bool
	}{
		{"31.52 28.10 20.07 40/812 99817\n", 31.52, true},
		{"0.00 0.01 0.05 1/100 1", 0, true},
		{"", 0, false},
		{"busy 1 2", 0, false},
		{"-1 0 0", 0, false},
		{"NaN 0 0", 0, false},
	} {
		got, ok := parseLoadavg(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("parseLoadavg(%q) = %v, %v; want %v, %v", c.in, got, ok, c.want, c.ok)
		}
	}
}

func TestLoadRangeKeepsTheLowestAndHighest(t *testing.T) {
	var r loadRange
	if got := r.String(); got != "load average not read" {
		t.Errorf("empty range says %q", got)
	}
	for _, v := range []float64{31.2, 29.5, 40.4, 33} {
		r.add(v)
	}
	if got, want := r.String(), "load average 29.5 to 40.4"; got != want {
		t.Errorf("range says %q; want %q", got, want)
	}
}
