package main

import (
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
