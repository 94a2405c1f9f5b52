package main

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// TestCPUOfATestBinaryAndItsChildrenIsKept runs a "test binary" (a shell) that spends CPU in a
// child it waits for, as a test spends it in the nodes it starts, and checks that measure
// passes on its exit status and keeps a line naming the folder it ran in with that CPU.
func TestCPUOfATestBinaryAndItsChildrenIsKept(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("CPU times are kept on Linux only")
	}
	file := filepath.Join(t.TempDir(), "events.json"+cpuSuffix)
	busy := `sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; exit 3`
	if got := measure([]string{file, "sh", "-c", busy}); got != 3 {
		t.Errorf("status %d, want the binary's 3", got)
	}
	if got := measure([]string{file, "true"}); got != 0 {
		t.Errorf("status %d, want 0", got)
	}
	uses, err := readCPU(file, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir, _ := os.Getwd()
	if len(uses) != 2 || uses[0].Dir != dir || uses[0].User+uses[0].System <= uses[1].User+uses[1].System {
		t.Fatalf("kept %+v; want two lines in %s, the busy one's CPU above true's", uses, dir)
	}
}

// TestMostCPURanksPackagesAcrossRuns checks the ranking of two runs' lines, their folders
// shown below the root, and that a run without a CPU file adds none.
func TestMostCPURanksPackagesAcrossRuns(t *testing.T) {
	dir := t.TempDir()
	for name, text := range map[string]string{
		"a.json" + cpuSuffix: `{"dir":"/repo/server","user_s":40,"system_s":2}` + "\n",
		"b.json" + cpuSuffix: `{"dir":"/repo/test/e2e/ops","user_s":9,"system_s":1}` + "\n" + `{"dir":"/elsewhere/x","user_s":70,"system_s":0}` + "\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	var uses []cpuUse
	var err error
	for _, name := range []string{"a.json", "b.json", "missing.json"} {
		if uses, err = readCPU(filepath.Join(dir, name+cpuSuffix), uses); err != nil {
			t.Fatal(err)
		}
	}
	var got strings.Builder
	if err := writeMostCPU(&got, uses, 2, "/repo"); err != nil {
		t.Fatal(err)
	}
	want := "the 2 packages that used the most CPU (of 3, 2m2s in all;"
	lines := strings.Split(strings.TrimSpace(got.String()), "\n")
	if len(lines) != 3 || !strings.HasPrefix(lines[0], want) || lines[1] != "      70.0s  /elsewhere/x" || lines[2] != "      42.0s  server" {
		t.Errorf("report:\n%s\nwant a heading starting %q, then /elsewhere/x and server", got.String(), want)
	}
	if err := os.WriteFile(filepath.Join(dir, "bad"+cpuSuffix), []byte("not json\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := readCPU(filepath.Join(dir, "bad"+cpuSuffix), nil); err == nil {
		t.Error("a line that is not JSON was read")
	}
}

// TestExecFlagRefusesAQuoteInAPath checks that a path go test would split wrongly is refused.
func TestExecFlagRefusesAQuoteInAPath(t *testing.T) {
	if _, err := execFlag(`/tmp/it's/events.json.cpu`); err == nil {
		t.Error("a quote in the CPU file's path was taken")
	}
	got, err := execFlag("/tmp/a b/events.json.cpu")
	if err != nil || !strings.HasSuffix(got, " cpu '/tmp/a b/events.json.cpu'") {
		t.Errorf("execFlag = %q, %v; want the path in single quotes", got, err)
	}
}
