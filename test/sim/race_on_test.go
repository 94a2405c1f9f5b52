//go:build race

package sim

// defaultSeeds is how many seeds TestSimulation runs without -sim.seeds. Under the race
// detector a seed costs about five times the CPU, so the README's `go test -race -p 4 ./...` runs a
// few seeds, for the races they would show, and CI runs the hundreds without it
// (docs/simulation.md#in-ci).
const defaultSeeds = 20
