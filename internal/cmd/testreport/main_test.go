package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/testjson"
)

// TestExitStatusIsTheCommandsOwn checks that run's status is go test's as a shell reports it:
// its exit code, or 128 and the signal that killed it.
func TestExitStatusIsTheCommandsOwn(t *testing.T) {
	for _, c := range []struct {
		script string
		want   int
	}{
		{"exit 0", 0},
		{"exit 1", 1},
		{"exit 2", 2},
		{"kill -9 $$", 128 + 9},
	} {
		if got := exitStatus(exec.Command("sh", "-c", c.script).Run()); got != c.want {
			t.Errorf("sh -c %q: status %d, want %d", c.script, got, c.want)
		}
	}
}

// TestTimingsAddUpAcrossFiles checks that the events of two runs' files are ranked together,
// as .ci/run's two go test runs are.
func TestTimingsAddUpAcrossFiles(t *testing.T) {
	dir := t.TempDir()
	files := map[string]string{
		"a.json": `{"Action":"pass","Package":"example.com/a","Elapsed":3}` + "\n",
		"b.json": `{"Action":"pass","Package":"example.com/b","Elapsed":7}` + "\n" +
			`{"Action":"fail","Package":"example.com/b","Test":"TestB","Elapsed":6}` + "\n",
	}
	var timings testjson.Timings
	for _, name := range []string{"a.json", "b.json"} {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(files[name]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := readTimings(path, &timings); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	if err := timings.WriteSlowest(&got, 10); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"7.0s  pass  example.com/b", "3.0s  pass  example.com/a", "6.0s  fail  example.com/b TestB", "(of 2)"} {
		if !strings.Contains(got.String(), want) {
			t.Errorf("slowest of both files lacks %q:\n%s", want, got.String())
		}
	}
	if err := readTimings(filepath.Join(dir, "missing.json"), &timings); err == nil {
		t.Error("a missing file read without an error")
	}
}

// TestFailuresKeepEachFailedTestsLastLines checks that a failed test's last lines are kept,
// bounded, and a passing test's are not.
func TestFailuresKeepEachFailedTestsLastLines(t *testing.T) {
	var stream strings.Builder
	stream.WriteString(`{"Action":"output","Package":"example.com/a","Test":"TestOK","Output":"fine\n"}` + "\n")
	stream.WriteString(`{"Action":"pass","Package":"example.com/a","Test":"TestOK","Elapsed":1}` + "\n")
	for i := range failureLines + 5 {
		fmt.Fprintf(&stream, `{"Action":"output","Package":"example.com/a","Test":"TestBad","Output":"line %d\n"}`+"\n", i)
	}
	fmt.Fprintf(&stream, `{"Action":"output","Package":"example.com/a","Test":"TestBad","Output":"%s\n"}`+"\n", strings.Repeat("x", failureLineSize+10))
	stream.WriteString(`{"Action":"fail","Package":"example.com/a","Test":"TestBad","Elapsed":2}` + "\n")
	stream.WriteString(`{"Action":"fail","Package":"example.com/a","Elapsed":3}` + "\n")

	dir := t.TempDir()
	stdout := os.Stdout
	devnull, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer devnull.Close()
	os.Stdout = devnull
	tally := record(strings.NewReader(stream.String()), filepath.Join(dir, "events.json"))
	os.Stdout = stdout
	path := filepath.Join(dir, "failures.txt")
	if err := appendFailures(path, tally.Failing()); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	got := string(b)
	for _, want := range []string{"--- FAIL: example.com/a TestBad\n", "(6 lines before)", "line 24\n", strings.Repeat("x", failureLineSize) + " …\n", "--- FAIL: example.com/a (package)\n"} {
		if !strings.Contains(got, want) {
			t.Errorf("failures lack %q:\n%s", want, got)
		}
	}
	for _, unwanted := range []string{"fine", "line 5\n", "TestOK"} {
		if strings.Contains(got, unwanted) {
			t.Errorf("failures hold %q:\n%s", unwanted, got)
		}
	}
}
