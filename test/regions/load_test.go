package regions

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// retryPause is how long a caller of a tolerant load waits after a refused call, so that
// an election does not turn the callers into a busy loop.
const retryPause = 50 * time.Millisecond

// tags are the tags of the running nodes.
func (c *wanCluster) tags() []string {
	var tags []string
	for tag := range c.nodes {
		tags = append(tags, tag)
	}
	return tags
}

// load starts callers goroutines taking identities through the nodes with tags, in turn,
// until until is closed or fires. The function it returns waits for them, and returns the
// IDs they were given and the calls that failed: with stopOnError a caller stops at its first
// failure; without, it pauses and goes on, and only each caller's first failure is kept.
func (c *wanCluster) load(t testing.TB, callers int, tags []string, until <-chan time.Time, stopOnError bool) (wait func() (ids []string, errs []error)) {
	clients := make([]idnodev1.IdServiceClient, len(tags))
	for i, tag := range tags {
		clients[i] = c.client(t, tag)
	}
	var (
		mu   sync.Mutex
		wg   sync.WaitGroup
		done = make(chan struct{})
		ids  []string
		errs []error
	)
	go func() {
		<-until
		close(done)
	}()
	for i := range callers {
		wg.Go(func() {
			client := clients[i%len(clients)]
			var (
				mine  []string
				first error
			)
			for {
				select {
				case <-done:
					mu.Lock()
					ids = append(ids, mine...)
					if first != nil {
						errs = append(errs, first)
					}
					mu.Unlock()
					return
				default:
				}
				ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
				resp, err := client.Generate(ctx, &idnodev1.GenerateRequest{Id: "orders|"})
				cancel()
				if err == nil {
					mine = append(mine, resp.GetIds()...)
					continue
				}
				if first == nil {
					first = fmt.Errorf("caller %d through %s: %w", i, tags[i%len(tags)], err)
				}
				if stopOnError {
					<-done
					continue
				}
				select {
				case <-done:
				case <-time.After(retryPause):
				}
			}
		})
	}
	return func() ([]string, []error) {
		wg.Wait()
		return ids, errs
	}
}

// checkUnique fails the test for every ID in ids that is there twice.
func checkUnique(t testing.TB, ids []string) {
	t.Helper()
	seen := make(map[string]bool, len(ids))
	for _, id := range ids {
		if seen[id] {
			t.Errorf("%s was handed out twice", id)
		}
		seen[id] = true
	}
}
