// Package sim runs a three-node idnode cluster (the real FSM, replicated by hashicorp/raft
// over its in-memory transport and stores) inside a testing/synctest bubble, where time is
// virtual: elections, leases and timeouts take no wall time, and a seed decides which faults
// hit the cluster when. Its tests are the package (docs/simulation.md).
package sim
