package e2etest

import (
	"context"
	"flag"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// ComposeProjectLabel is the label compose puts on every container, network and volume of a
// project; the tests put it on what they start without compose too.
const ComposeProjectLabel = "com.docker.compose.project"

// OwnedContainerArgs are the `docker run` flags that make a container started outside compose
// one of project's, for the sweep and the leftovers check: its label, and a /data volume
// labelled too. The image declares VOLUME /data, so every container gets a volume there; an
// unlabelled one would outlive a container removed without -v, and no sweep could tell it from
// another project's.
func OwnedContainerArgs(project string) []string {
	label := ComposeProjectLabel + "=" + project
	return []string{"--label", label, "--mount", "type=volume,dst=/data,volume-label=" + label}
}

// sweepCmdTimeout bounds one docker command of a sweep.
const sweepCmdTimeout = 30 * time.Second

// SweepMargin is how long before -test.timeout a run removes what its tests started: go
// test's timer panics without running t.Cleanup (or TestMain's end), so a compose project
// left up then would hold its ports for every later run. A quarter of the
// timeout when that is shorter.
const SweepMargin = 30 * time.Second

// sweeping runs the sweeps of a run: the chaos projects a run killed before may have left,
// each while no chaos suite holds its slot (their names and ports are fixed; other projects'
// names are their run's own), then, shortly before -test.timeout and once the tests are done, every
// project this run started. It returns what TestMain calls when the tests are done.
// flag.Parse must have run.
func sweeping() (done func()) {
	if _, err := exec.LookPath("docker"); err != nil {
		return func() {}
	}
	for s := range ChaosSlot(ChaosSlots) {
		if release, err := s.tryLock(); err == nil {
			SweepProject(s.Project())
			release()
		}
	}
	var timer *time.Timer
	if f := flag.Lookup("test.timeout"); f != nil {
		if timeout, ok := f.Value.(flag.Getter).Get().(time.Duration); ok && timeout > 0 {
			timer = time.AfterFunc(timeout-min(SweepMargin, timeout/4), sweepOwnProjects)
		}
	}
	return func() {
		if timer != nil {
			timer.Stop()
		}
		sweepOwnProjects()
	}
}

// ownProjects are the compose projects this test binary started: what a sweep removes.
var ownProjects struct {
	sync.Mutex
	names map[string]bool
}

// OwnProject records that this run starts compose project name.
func OwnProject(name string) {
	ownProjects.Lock()
	defer ownProjects.Unlock()
	if ownProjects.names == nil {
		ownProjects.names = map[string]bool{}
	}
	ownProjects.names[name] = true
}

// sweepOwnProjects removes every project this run started, a chaos slot's project only while
// this run holds the slot (sweepable).
func sweepOwnProjects() {
	ownProjects.Lock()
	names := make([]string, 0, len(ownProjects.names))
	for name := range ownProjects.names {
		if sweepable(name) {
			names = append(names, name)
		}
	}
	ownProjects.Unlock()
	for _, name := range names {
		SweepProject(name)
	}
}

// SweepProject removes the containers, networks and volumes labelled as compose project
// name's, by label alone: it needs neither the compose files nor the test that started them.
func SweepProject(name string) {
	filter := "label=" + ComposeProjectLabel + "=" + name
	for _, kind := range []struct{ list, remove []string }{
		{[]string{"ps", "-aq", "--filter", filter}, []string{"rm", "-f", "-v"}},
		{[]string{"network", "ls", "-q", "--filter", filter}, []string{"network", "rm"}},
		{[]string{"volume", "ls", "-q", "--filter", filter}, []string{"volume", "rm", "-f"}},
	} {
		ids := strings.Fields(docker(kind.list...))
		if len(ids) > 0 {
			docker(append(kind.remove, ids...)...)
		}
	}
}

// docker runs a docker command within sweepCmdTimeout and returns its output; a sweep has no
// one to report a failure to, and the next run's sweep tries again.
func docker(args ...string) string {
	ctx, cancel := context.WithTimeout(context.Background(), sweepCmdTimeout)
	defer cancel()
	out, _ := exec.CommandContext(ctx, "docker", args...).Output()
	return string(out)
}

// sweepable reports whether project name is still this run's to remove: every project a run
// names is its own, but a chaos slot's name is fixed, and once this run let the slot go,
// another package of the same `go test ./...` may be running its cluster there.
func sweepable(name string) bool {
	s, chaos := chaosSlotOf(name)
	return !chaos || slotHeld(s)
}
