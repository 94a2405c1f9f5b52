package e2etest

import (
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"
)

// recordingTB stands in for a test whose failure is the thing checked: Fatalf records and
// ends the goroutine, as testing's does.
type recordingTB struct {
	testing.TB
	fatal string
	logs  int
}

func (r *recordingTB) Helper() {}

func (r *recordingTB) Logf(string, ...any) { r.logs++ }

func (r *recordingTB) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// againWhileTransient runs AgainWhileTransient on its own goroutine, where a Fatalf can end it,
// over outputs (one per try, "" for success), and returns how many tries and mends it made.
func againWhileTransient(tb *recordingTB, outputs ...string) (tries, mends int) {
	done := make(chan struct{})
	go func() {
		defer close(done)
		AgainWhileTransient(tb, "docker pause x", "unable to freeze", func() (string, error) {
			out := outputs[tries]
			tries++
			if out == "" {
				return "", nil
			}
			return out, errors.New("exit status 1")
		}, func() { mends++ })
	}()
	<-done
	return tries, mends
}

func TestAgainWhileTransientTriesAgainOnlyWhatTheMachineFailed(t *testing.T) {
	freeze := "Error response from daemon: OCI runtime pause failed: unable to freeze"
	tb := &recordingTB{}
	if tries, mends := againWhileTransient(tb, freeze, freeze, ""); tries != 3 || mends != 2 || tb.fatal != "" || tb.logs != 2 {
		t.Errorf("two freezes then success: %d tries, %d mends, %d logs, fatal %q; want 3, 2, 2 and none", tries, mends, tb.logs, tb.fatal)
	}
	tb = &recordingTB{}
	if tries, mends := againWhileTransient(tb, "No such container: x", ""); tries != 1 || mends != 0 || !strings.Contains(tb.fatal, "No such container") {
		t.Errorf("another failure: %d tries, %d mends, fatal %q; want 1, 0 and a failure naming it", tries, mends, tb.fatal)
	}
	tb = &recordingTB{}
	if tries, _ := againWhileTransient(tb, freeze, freeze, freeze, ""); tries != transientAttempts || !strings.Contains(tb.fatal, "unable to freeze") {
		t.Errorf("freezes every time: %d tries, fatal %q; want %d and a failure", tries, tb.fatal, transientAttempts)
	}
}
