package testjson

import (
	"bytes"
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// sample is a package whose tests pass, fail, skip and fail in a subtest, each logging.
const sample = `package sample

import "testing"

func TestPasses(t *testing.T) { t.Log("passing quietly") }

func TestFails(t *testing.T) {
	t.Log("before the failure")
	t.Error("the failure")
}

func TestSkips(t *testing.T) { t.Skip("skipped") }

func TestParent(t *testing.T) {
	t.Log("the parent's own line")
	t.Run("good", func(t *testing.T) { t.Log("a good subtest") })
	t.Run("bad", func(t *testing.T) { t.Error("a bad subtest") })
	t.Log("the parent after its subtests")
}
`

// goTestTimeout bounds one go test of the sample package (a build on a cold cache).
const goTestTimeout = 2 * time.Minute

// TestPlainPrintsWhatPlainGoTestPrints runs go test on a sample package twice, plainly and
// with -json, and checks that Plain, given the second run's events, prints the first run's
// lines (durations aside).
func TestPlainPrintsWhatPlainGoTestPrints(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a sample package")
	}
	dir := samplePackage(t)
	want := goTest(t, dir)
	var got, errOut bytes.Buffer
	p := NewPlain(&got, &errOut)
	err := Read(bytes.NewReader(goTest(t, dir, "-json")), func(e Event, ok bool, line []byte) {
		if ok {
			p.Event(e)
		} else {
			p.Line(line)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	p.End()
	if g, w := withoutDurations(got.String()), withoutDurations(string(want)); g != w {
		t.Errorf("Plain printed:\n%s\nplain go test printed:\n%s", g, w)
	}
	if errOut.Len() > 0 {
		t.Errorf("Plain wrote to errOut, with no build error: %s", errOut.Bytes())
	}
}

// samplePackage writes the sample package into a module of its own and returns its dir.
func samplePackage(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module sample\n\ngo 1.24\n", "sample_test.go": sample} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// goTest runs go test with args in dir and returns its standard output; the sample fails.
func goTest(t *testing.T, dir string, args ...string) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), goTestTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", append(append([]string{"test", "-count=1"}, args...), ".")...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=", "GOTOOLCHAIN=local")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if _, failed := err.(*exec.ExitError); err != nil && !failed {
		t.Fatalf("go test %s: %v\n%s", strings.Join(args, " "), err, stderr.Bytes())
	}
	return out
}

var duration = regexp.MustCompile(`[0-9]+\.[0-9]+s`)

func withoutDurations(s string) string { return duration.ReplaceAllString(s, "Ns") }

// hanging is a package whose test outlives go test's -timeout.
const hanging = `package hanging

import "testing"

func TestHangs(t *testing.T) { select {} }
`

// TestPlainShowsThePanicOfATimedOutPackageBeforeItsFAIL checks that the panic of a test
// binary that timed out, which go test -json gives as the running test's output, is printed
// before the package's closing FAIL line, as plain go test prints it.
func TestPlainShowsThePanicOfATimedOutPackageBeforeItsFAIL(t *testing.T) {
	if testing.Short() {
		t.Skip("runs go test on a sample package")
	}
	dir := t.TempDir()
	for name, text := range map[string]string{"go.mod": "module hanging\n\ngo 1.24\n", "hanging_test.go": hanging} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var got bytes.Buffer
	p := NewPlain(&got, io.Discard)
	err := Read(bytes.NewReader(goTest(t, dir, "-json", "-timeout", "1s")), func(e Event, ok bool, line []byte) {
		if ok {
			p.Event(e)
		}
	})
	if err != nil {
		t.Fatal(err)
	}
	out := got.String()
	panicAt, failAt := strings.Index(out, "panic: test timed out"), strings.Index(out, "FAIL\thanging\t")
	if panicAt < 0 || failAt < panicAt {
		t.Errorf("Plain printed the panic at %d and the package's FAIL line at %d; want both, the panic first:\n%s", panicAt, failAt, out)
	}
}
