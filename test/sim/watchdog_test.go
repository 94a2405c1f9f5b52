package sim

import (
	"fmt"
	"os"
	"runtime"
	"time"
)

// hungAfter is how much virtual time a seed may take, cleanup included, before its watchdog
// ends the test binary. A seed needs its simulated minutes, up to a minute of converging and
// its stop: five times that is no wait a healthy seed comes near. Virtual time moves without
// the machine's load, so the bound is as tight under load as on a quiet machine.
const hungAfter = 5 * (simulated + time.Minute)

// watchdog runs in seed's bubble until the returned stop is called. If that takes longer
// than hungAfter in virtual time, the seed is hung: a call that never returns while the
// cluster's timers go on firing, which keeps virtual time moving without end and holds a core
// at full speed where a deadlock would have ended the bubble. It then prints every
// goroutine's stack and panics, naming the seed, since nothing can unblock the seed's own
// goroutines.
func watchdog(seed int64) (stop func()) {
	done := make(chan struct{})
	go func() {
		select {
		case <-done:
		case <-time.After(hungAfter):
			buf := make([]byte, 8<<20)
			buf = buf[:runtime.Stack(buf, true)]
			fmt.Fprintf(os.Stderr, "seed %d still running after %v of virtual time; every goroutine:\n%s\n", seed, hungAfter, buf)
			panic(fmt.Sprintf("seed %d hung: still running after %v of virtual time (rerun: %s -seed %d)", seed, hungAfter, rerunCommand, seed))
		}
	}()
	return func() { close(done) }
}
