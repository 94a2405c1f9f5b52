//go:build !race

package sim

// defaultSeeds is how many seeds TestSimulation runs without -sim.seeds: without the race
// detector, the number CI runs (docs/simulation.md#in-ci).
const defaultSeeds = 300
