package chaostest

// The cluster a chaos suite drives, described once and passed to RunChaosSuite: its nodes
// (tag, compose service, name on the raft network, published port, region) and the region the
// leader should be in. Nodes A, B and C are the services of deploy/docker-compose.yml, run as
// that file has them; a larger cluster adds services D, E … in the suite's compose override
// (chaosOverride), which also gives every node its region when the cluster has regions.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// chaosDeployNodes is how many services deploy/docker-compose.yml defines.
const chaosDeployNodes = 3

// chaosMaxNodes keeps the published ports apart: gRPC on 7071 + i, HTTP on 7081 + i and
// metrics on 9101 + i, so a tenth node's gRPC port would be the first node's HTTP port.
const chaosMaxNodes = 9

// chaosSharedEnv is the environment deploy/docker-compose.yml gives every node (its x-idnode
// block), which a service added by the override repeats; TestSharedEnvMatchesDeploy keeps the
// two the same.
var chaosSharedEnv = [][2]string{
	{"IDNODE_DATA_DIR", "/data"},
	{"IDNODE_GRPC_ADDR", "0.0.0.0:7070"},
	{"IDNODE_RAFT_ADDR", "0.0.0.0:7000"},
	{"IDNODE_HTTP_ADDR", "0.0.0.0:7080"},
	{"IDNODE_METRICS_ADDR", "0.0.0.0:9100"},
	{"IDNODE_LOG_FORMAT", "json"},
	{"IDNODE_ADMIN_TOKEN", "${IDNODE_ADMIN_TOKEN:-}"},
	{"IDNODE_HILO_POOLS", "${IDNODE_HILO_POOLS:-true}"},
}

// ChaosCluster is the compose cluster of a suite.
type ChaosCluster struct {
	nodes     []chaosNode
	preferred string // --preferred-region of every node; "" without regions
	// slot is the chaos slot the cluster runs in (inSlot): its compose project, and how far
	// its published ports and raft subnet are from slot 0's.
	slot e2etest.ChaosSlot
}

// chaosSlotPortStep is how far one chaos slot's published ports are from the slot before's:
// more than chaosMaxNodes, and small enough that every slot's ports stay below the
// ephemeral range.
const chaosSlotPortStep = 100

// inSlot is c as it runs in chaos slot s: its nodes published on ports chaosSlotPortStep × s
// above slot 0's, its raft network on a subnet of its own (raftSubnet), so that the
// clusters of two suites running at once do not meet.
func (c *ChaosCluster) inSlot(s e2etest.ChaosSlot) *ChaosCluster {
	out := &ChaosCluster{preferred: c.preferred, slot: s, nodes: slices.Clone(c.nodes)}
	for i := range out.nodes {
		n := &out.nodes[i]
		n.port = n.port - int(c.slot)*chaosSlotPortStep + int(s)*chaosSlotPortStep
		n.addr = fmt.Sprintf("127.0.0.1:%d", n.port)
	}
	return out
}

// composeFile is deploy/docker-compose.yml (text) with its published ports moved to the
// cluster's slot; it fails unless the file publishes the three ports of each of its nodes.
func (c *ChaosCluster) composeFile(text string) (string, error) {
	out, moved := e2etest.MovePublishedPorts(text, func(orig string) string {
		port, _ := strconv.Atoi(strings.TrimPrefix(orig, "127.0.0.1:")) // digits, by the pattern
		return fmt.Sprintf("127.0.0.1:%d", port+int(c.slot)*chaosSlotPortStep)
	})
	if want := 3 * chaosDeployNodes; moved != want {
		return "", fmt.Errorf("deploy/docker-compose.yml publishes %d ports on 127.0.0.1, want %d (gRPC, HTTP and metrics of %d nodes)", moved, want, chaosDeployNodes)
	}
	return out, nil
}

// chaosNode is one compose service and how the suite reaches it.
type chaosNode struct {
	Tag     string // node tag (--tag)
	Region  string // --region; "" without regions
	service string // compose service
	alias   string // its name on the raft network (raft-a …), kept when it is reconnected
	addr    string // its gRPC port, published on loopback
	port    int    // the gRPC port's number; HTTP is port+10, metrics port+2030
}

// DeployCluster is deploy/docker-compose.yml's three nodes, without regions.
var DeployCluster = mustChaosCluster("", "", "", "")

// NewChaosCluster describes a cluster of one node per entry of regions, in that region: node i
// has tag 'A'+i, service idnode-<tag>, alias raft-<tag> and gRPC port 7071+i. Either every node
// has a region or none has; preferred, "" without regions, must be one of them.
func NewChaosCluster(preferred string, regions ...string) (*ChaosCluster, error) {
	if n := len(regions); n < chaosDeployNodes || n > chaosMaxNodes {
		return nil, fmt.Errorf("a chaos cluster has %d to %d nodes (the first %d are deploy/docker-compose.yml's), not %d", chaosDeployNodes, chaosMaxNodes, chaosDeployNodes, n)
	}
	withRegions := regions[0] != ""
	c := &ChaosCluster{preferred: preferred}
	for i, region := range regions {
		if (region != "") != withRegions {
			return nil, fmt.Errorf("node %d of %q: either every node has a region or none has", i, regions)
		}
		if strings.ContainsAny(region, " \"'\\:{}[],#\n") {
			return nil, fmt.Errorf("region %q: a chaos cluster's regions are plain words", region)
		}
		tag := string(rune('A' + i))
		lower := strings.ToLower(tag)
		port := 7071 + i
		c.nodes = append(c.nodes, chaosNode{Tag: tag, Region: region, service: "idnode-" + lower, alias: "raft-" + lower,
			addr: fmt.Sprintf("127.0.0.1:%d", port), port: port})
	}
	if (preferred != "") != withRegions || (withRegions && !slices.Contains(regions, preferred)) {
		return nil, fmt.Errorf("preferred region %q: with regions %q it must be one of them, without regions empty", preferred, regions)
	}
	return c, nil
}

func mustChaosCluster(preferred string, regions ...string) *ChaosCluster {
	c, err := NewChaosCluster(preferred, regions...)
	if err != nil {
		panic(err)
	}
	return c
}

// Tags lists the nodes' tags in order.
func (c *ChaosCluster) Tags() []string {
	tags := make([]string, len(c.nodes))
	for i, n := range c.nodes {
		tags[i] = n.Tag
	}
	return tags
}

// Others lists the nodes whose tags are not among tags, in order.
func (c *ChaosCluster) Others(tags ...string) []string {
	var out []string
	for _, n := range c.nodes {
		if !slices.Contains(tags, n.Tag) {
			out = append(out, n.Tag)
		}
	}
	return out
}

// InRegion lists the nodes of region, in order.
func (c *ChaosCluster) InRegion(region string) []string {
	var out []string
	for _, n := range c.nodes {
		if n.Region == region {
			out = append(out, n.Tag)
		}
	}
	return out
}

// RegionOf is node tag's region.
func (c *ChaosCluster) RegionOf(tag string) string { return c.node(tag).Region }

// PreferredRegion is the region every node was told the leader should be in.
func (c *ChaosCluster) PreferredRegion() string { return c.preferred }

// spare is the tag and raft alias of the node after the last (D and raft-d of three): a node
// that tries to join, which no node of the cluster is.
func (c *ChaosCluster) spare() (tag, alias string) {
	tag = string(rune('A' + len(c.nodes)))
	return tag, "raft-" + strings.ToLower(tag)
}

func (c *ChaosCluster) node(tag string) chaosNode {
	return c.nodes[c.index(tag)]
}

// index is the position of tag in the cluster's nodes.
func (c *ChaosCluster) index(tag string) int {
	for i, n := range c.nodes {
		if n.Tag == tag {
			return i
		}
	}
	panic("chaos: no node " + tag)
}

// raftSubnet is the raft network's subnet in the suite's compose override, 10.231.77.0/24 in
// slot 0 and the next /24 in each slot after. Docker lets `network connect --ip` put a
// container back at its old address only on a network with a configured subnet; see
// chaosDocker.Connect.
func (c *ChaosCluster) raftSubnet() string { return c.raftAddr(0) + "/24" }

// raftAddr is host's address in the raft network's subnet.
func (c *ChaosCluster) raftAddr(host byte) string {
	return fmt.Sprintf("10.231.%d.%d", 77+int(c.slot), host)
}

// override is the suite's compose file added to deploy/docker-compose.yml with a second -f.
// It turns the compose file's restart policy off: the suite kills and starts nodes itself, and
// a node that refuses to start must stay exited (wipeAndRestart). It turns the image's health
// check off: the suite asks each node's gRPC health itself, and Docker's check, a process run
// in each container every second, cost a CI run 23 CPU seconds in its own processes and more
// in runc's and the daemons', which the schedules had to share
// (docs/suite-cpu.md#where-the-rest-goes); test/e2e/ops still runs the image with it.
// It has every node compare replicas at the shortest interval (chaosReplicaCheckInterval). It
// gives the raft network a subnet (raftSubnet). A cluster with regions or more than
// deploy's nodes also gets every node's peers, region and preferred region, and the services
// after deploy's three. No version key, like the compose file: docker-compose v1 refuses files
// whose versions differ.
func (c *ChaosCluster) override() string {
	var b strings.Builder
	b.WriteString("services:\n")
	extended := len(c.nodes) > chaosDeployNodes || c.preferred != ""
	var peers []string
	for _, n := range c.nodes {
		peers = append(peers, n.Tag+"="+n.alias+":7000")
	}
	for i, n := range c.nodes {
		fmt.Fprintf(&b, "  %s:\n    restart: \"no\"\n    healthcheck: {disable: true}\n", n.service)
		b.WriteString("    environment:\n")
		fmt.Fprintf(&b, "      IDNODE_REPLICA_CHECK_INTERVAL: %q\n", chaosReplicaCheckInterval.String())
		if !extended {
			continue
		}
		fmt.Fprintf(&b, "      IDNODE_PEERS: %q\n", strings.Join(peers, ","))
		if i >= chaosDeployNodes { // deploy/docker-compose.yml gives its own nodes the rest
			for _, kv := range chaosSharedEnv {
				fmt.Fprintf(&b, "      %s: %q\n", kv[0], kv[1])
			}
		}
		command := []string{"--tag", n.Tag, "--grpc-advertise", n.alias + ":7070"}
		if n.Region != "" {
			command = append(command, "--region", n.Region, "--preferred-region", c.preferred)
		}
		fmt.Fprintf(&b, "    command: [%s]\n", quoteAll(command))
		if i < chaosDeployNodes {
			continue // the rest is deploy/docker-compose.yml's
		}
		fmt.Fprintf(&b, "    image: \"${IDNODE_IMAGE:-idnode:dev}\"\n    stop_grace_period: 10s\n    hostname: %s\n", n.service)
		fmt.Fprintf(&b, "    networks:\n      client: {}\n      raft: {aliases: [%s]}\n", n.alias)
		fmt.Fprintf(&b, "    ports: [\"127.0.0.1:%d:7070\", \"127.0.0.1:%d:7080\", \"127.0.0.1:%d:9100\"]\n", n.port, n.port+10, n.port+2030)
		fmt.Fprintf(&b, "    volumes: [\"%s-data:/data\"]\n", n.service)
	}
	b.WriteString("networks:\n  raft:\n    ipam:\n      config:\n        - subnet: " + c.raftSubnet() + "\n")
	if len(c.nodes) > chaosDeployNodes {
		b.WriteString("volumes:\n")
		for _, n := range c.nodes[chaosDeployNodes:] {
			fmt.Fprintf(&b, "  %s-data: {}\n", n.service)
		}
	}
	return b.String()
}

func quoteAll(words []string) string {
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = fmt.Sprintf("%q", w)
	}
	return strings.Join(quoted, ", ")
}
