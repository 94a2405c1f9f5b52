package main

import (
	"context"
	"io"
	"os"
	"path/filepath"
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
	t.Setenv("GOFLAGS", "")
	o, err := parse([]string{"-n", "4", "-busy", "1", "."})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	tally, err := find(ctx, o, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	failing := tally.Failing()
	if len(failing) != 2 || failing[0].Failed != 2 || failing[0].Passed != 2 {
		t.Fatalf("failing %+v; want TestEveryOtherRun and its package, each failing 2 of 4 runs", failing)
	}
	var out strings.Builder
	report(&out, o, tally, failing)
	if !strings.Contains(out.String(), "FAIL 2/4  flaky TestEveryOtherRun") || !strings.Contains(out.String(), "fails") {
		t.Errorf("report:\n%s\nwant TestEveryOtherRun failing 2 of 4, with its failure's line", out.String())
	}
}
