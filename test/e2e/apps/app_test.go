//go:build linux

package apps

import (
	"bufio"
	"encoding/json"
	"fmt"
	"maps"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Bounds of one application run.
const (
	maxLine     = 64 << 10         // one output line; a row's line is under 100 bytes
	appStopWait = 60 * time.Second // SIGTERM until the application has printed done and exited
)

// The error classes of the applications' output (docs/orm.md, "The application drill").
const (
	classUniqueViolation = "unique_violation"
	classIdnode          = "idnode"
	classOther           = "other"
)

// line is one line an application prints: a committed row, a failed batch, or done.
type line struct {
	Table   string          `json:"table"`
	ID      json.RawMessage `json:"id"`
	Error   string          `json:"error"`
	Message string          `json:"message"`

	Done          bool             `json:"done"`
	Rows          int64            `json:"rows"`
	Seconds       float64          `json:"seconds"`
	RowsPerSecond float64          `json:"rows_per_second"`
	Errors        map[string]int64 `json:"errors"`
}

// app is one running application process and what it has printed so far.
type app struct {
	lang string
	cmd  *exec.Cmd
	logs *e2etest.LogBuffer // stderr
	exit chan struct{}      // closed once stdout is read to its end and the process reaped
	err  error              // the process's exit, once exit is closed

	mu        sync.Mutex
	committed map[string]map[string]bool // table → keys (as PostgreSQL prints them) reported committed
	errors    map[string]int64           // error class → failed batches reported
	samples   map[string]string          // error class → the first message of that class
	bad       []string                   // lines that are not the contract's
	done      *line
	rowTimes  []time.Time // when each committed row's line was read, in order
	failures  []failure   // every failed batch reported, in order
}

// failure is a failed batch as the drill read it: when, its error class and its message.
type failure struct {
	at      time.Time
	class   string
	message string
}

// startApp runs the application command with the drill's flags and reads its output.
func startApp(t *testing.T, lang string, argv []string, env []string) *app {
	t.Helper()
	a := &app{
		lang: lang, logs: e2etest.NewLogBuffer(), exit: make(chan struct{}),
		committed: map[string]map[string]bool{}, errors: map[string]int64{}, samples: map[string]string{},
	}
	a.cmd = exec.Command(argv[0], argv[1:]...)
	a.cmd.Env = env
	a.cmd.Stderr = a.logs
	a.cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := a.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := a.cmd.Start(); err != nil {
		t.Fatalf("starting the %s application %v: %v", lang, argv, err)
	}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 4096), maxLine)
		for sc.Scan() {
			a.record(sc.Bytes())
		}
		if err := sc.Err(); err != nil {
			a.mu.Lock()
			a.bad = append(a.bad, "reading stdout: "+err.Error())
			a.mu.Unlock()
		}
		a.err = a.cmd.Wait()
		close(a.exit)
	}()
	t.Cleanup(func() {
		_ = a.cmd.Process.Kill()
		<-a.exit
		if t.Failed() {
			t.Logf("the %s application's stderr:\n%s", lang, a.logs.String())
		}
	})
	return a
}

// record takes one output line.
func (a *app) record(raw []byte) {
	var l line
	err := json.Unmarshal(raw, &l)
	a.mu.Lock()
	defer a.mu.Unlock()
	switch {
	case err != nil:
		a.bad = append(a.bad, fmt.Sprintf("%q: %v", raw, err))
	case l.Done:
		a.done = &l
	case l.Error != "":
		a.errors[l.Error]++
		a.failures = append(a.failures, failure{time.Now(), l.Error, l.Table + ": " + l.Message})
		if _, ok := a.samples[l.Error]; !ok {
			a.samples[l.Error] = l.Table + ": " + l.Message
		}
	case l.Table != "" && len(l.ID) > 0:
		id, err := keyText(l.ID)
		if err != nil {
			a.bad = append(a.bad, fmt.Sprintf("%q: %v", raw, err))
			return
		}
		if a.committed[l.Table] == nil {
			a.committed[l.Table] = map[string]bool{}
		}
		a.committed[l.Table][id] = true
		a.rowTimes = append(a.rowTimes, time.Now())
	default:
		a.bad = append(a.bad, fmt.Sprintf("%q: neither a row, an error nor done", raw))
	}
}

// keyText is a key as PostgreSQL prints it: a JSON string's text, a JSON integer's digits.
func keyText(raw json.RawMessage) (string, error) {
	if raw[0] == '"' {
		var s string
		err := json.Unmarshal(raw, &s)
		return s, err
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		return "", fmt.Errorf("an integer key that is not an int64: %w", err)
	}
	return strconv.FormatInt(n, 10), nil
}

// keysIn is the keys of the rows of table the application reported committed so far.
func (a *app) keysIn(table string) map[string]bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return maps.Clone(a.committed[table])
}

// rowsIn is how many rows of table the application reported committed.
func (a *app) rowsIn(table string) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	return len(a.committed[table])
}

// during is what the application reported between from and to: the rows committed, the
// longest time without a commit, the failed batches by class and the first message of each.
func (a *app) during(from, to time.Time) (rows int, stall time.Duration, failed map[string]int, first map[string]string) {
	a.mu.Lock()
	defer a.mu.Unlock()
	last := from
	for _, at := range a.rowTimes {
		if at.Before(from) || at.After(to) {
			continue
		}
		rows++
		stall = max(stall, at.Sub(last))
		last = at
	}
	stall = max(stall, to.Sub(last))
	failed, first = map[string]int{}, map[string]string{}
	for _, f := range a.failures {
		if !f.at.Before(from) && !f.at.After(to) {
			failed[f.class]++
			if _, ok := first[f.class]; !ok {
				first[f.class] = f.message
			}
		}
	}
	return rows, stall, failed, first
}

// stop sends SIGTERM and waits until the application printed done and exited.
func (a *app) stop(t *testing.T) {
	t.Helper()
	_ = a.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-a.exit:
	case <-time.After(appStopWait):
		t.Fatalf("the %s application still runs %v after SIGTERM", a.lang, appStopWait)
	}
	if a.err != nil {
		t.Errorf("the %s application: %v", a.lang, a.err)
	}
	if a.done == nil {
		t.Errorf("the %s application exited without its done line", a.lang)
	}
	if len(a.bad) > 0 {
		t.Errorf("the %s application printed lines outside the contract:\n%s", a.lang, strings.Join(a.bad, "\n"))
	}
}
