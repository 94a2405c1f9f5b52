package e2etest

// The chaos suite's side of Docker: build the image through the Makefile, bring the compose
// cluster of deploy/ up and down, and inject faults into its containers with the docker CLI
// (network disconnect/connect, kill, start, pause, unpause, restart). See chaos_test.go.

import (
	"errors"
	"time"
)

const (
	// chaosProject is the compose project: its own containers, networks (idnode-chaos_raft,
	// idnode-chaos_client) and volumes, apart from `make cluster-up`'s project "idnode".
	ChaosProject = "idnode-chaos"
	// chaosImage is built by `make image IMAGE=idnode:chaos` and run by compose through
	// IDNODE_IMAGE, so a developer's idnode:dev is left alone.
	ChaosImage = "idnode:chaos"
	// chaosAdminToken is the compose cluster's admin token: the suite's admin calls come from
	// the host (or a container), not from a node's own loopback.
	ChaosAdminToken = "chaos-admin-token"

	ChaosDockerInfoTimeout = 20 * time.Second // `docker info`
	ChaosCmdTimeout        = 60 * time.Second // any other docker or compose command
	ChaosBuildTimeout      = 5 * time.Minute  // make image (go build on a cold cache, docker build)
	ChaosStopGrace         = 10               // seconds docker restart waits after SIGTERM (as compose's stop_grace_period)
	ChaosLogTail           = "80"             // log lines per node shown when a schedule fails

	// chaosRaftSubnet is the raft network's subnet in the suite's compose override. Docker
	// lets `network connect --ip` put a container back at its old address only on a network
	// with a configured subnet; see chaosDocker.connect.
	chaosRaftSubnet = "10.231.77.0/24"
	// chaosOverride is that override, added to deploy/docker-compose.yml with a second -f. It
	// also turns the compose file's restart policy off: the suite kills and starts nodes
	// itself, and a node that refuses to start must stay exited (wipeAndRestart). No version
	// key, like the compose file: docker-compose v1 refuses files whose versions differ.
	ChaosOverride = `services:
  idnode-a: {restart: "no"}
  idnode-b: {restart: "no"}
  idnode-c: {restart: "no"}
networks:
  raft:
    ipam:
      config:
        - subnet: ` + chaosRaftSubnet + `
`
	// chaosNewIPsEnv=1 makes every reconnect move the node to a new address instead
	// (chaosNewIPBase + 1, + 2, …): the daemon's open peer connections, to or from the old
	// address, then have to notice that it is gone.
	ChaosNewIPsEnv = "IDNODE_CHAOS_NEW_IPS"
	ChaosNewIPBase = "10.231.77.100"
)

// errChaosLockBusy: another chaos suite on this machine holds the lock (see chaosLock).
var ErrChaosLockBusy = errors.New("another chaos suite run on this machine holds the lock")
