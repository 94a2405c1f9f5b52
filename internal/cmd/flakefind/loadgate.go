package main

import (
	"context"
	"fmt"
	"io"
	"time"
)

// A run that starts before the busy loops have raised the load average would be counted as a
// run under load without having met it: the 1-minute average takes a minute or two to follow
// the loops. With -load, each run waits first until the average is at least that.
const (
	loadPoll     = 5 * time.Second // how often the average is read while waiting
	loadPatience = 5 * time.Minute // how long a run waits for it before flakefind gives up
)

// awaitLoad returns once read says a load average of at least min, saying once on progress
// that it waits. It fails when the average cannot be read, or stays below min for
// loadPatience: more load has to come from flakefind's command line, not from waiting longer.
func awaitLoad(ctx context.Context, min float64, read func() (float64, bool), progress io.Writer) error {
	deadline := time.Now().Add(loadPatience)
	said := false
	for {
		v, ok := read()
		switch {
		case !ok:
			return fmt.Errorf("-load %v: the load average cannot be read here (%s)", min, loadavgPath)
		case v >= min:
			return nil
		case !time.Now().Before(deadline):
			return fmt.Errorf("-load %v: the load average stayed below it for %v (last %.1f): raise -busy or add -beside", min, loadPatience, v)
		case !said:
			fmt.Fprintf(progress, "waiting for the load average to reach %v (now %.1f)\n", min, v)
			said = true
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(loadPoll):
		}
	}
}
