//go:build !unix

package e2etest

import "time"

// chaosLock: no flock here; runs are not serialized.
func ChaosLock(string, time.Duration) (func(), error) { return func() {}, nil }
