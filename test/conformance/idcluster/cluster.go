package main

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	healthpb "google.golang.org/grpc/health/grpc_health_v1"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/loopback"
)

// portsPerNode are a node's gRPC, HTTP, Raft and metrics ports.
const portsPerNode = 4

const (
	leaderTimeout = 15 * time.Second // nodes agreeing on a leader
	rpcTimeout    = 5 * time.Second  // one call of idcluster's own
	pollEvery     = 25 * time.Millisecond
)

// cluster is the nodes of one start, and what the runner needs to reach them.
type cluster struct {
	dir   string
	nodes []*node
	top   topology
	creds credentials.TransportCredentials // idcluster's own, admin where TLS is mutual
	tls   *clientFiles                     // nil without TLS
	keys  map[string]string                // API key NAME → secret
	// opaque holds the answers of the topology's MakeOpaque calls, in order, in camelCase.
	opaque []map[string]any
	first  string // the leader once the cluster first served
	log    *slog.Logger
}

func startCluster(bin, dir string, top topology, log *slog.Logger) (*cluster, error) {
	cl := &cluster{dir: dir, top: top, creds: insecure.NewCredentials(), keys: map[string]string{}, log: log}
	var sharedArgs []string // every node's: TLS, the admin token
	if top.TLS != tlsNone {
		files, nodeArgs, creds, err := makeCertificates(dir, top.TLS == tlsMutual)
		if err != nil {
			return nil, fmt.Errorf("certificates: %w", err)
		}
		cl.tls, sharedArgs, cl.creds = files, nodeArgs, creds
	}
	if top.AdminToken != "" {
		// A file, not --admin-token: a flag shows in ps, and idnode warns about it.
		tokenFile := filepath.Join(dir, "admin-token")
		if err := os.WriteFile(tokenFile, []byte(top.AdminToken+"\n"), 0o600); err != nil {
			return nil, err
		}
		sharedArgs = append(sharedArgs, "--admin-token-file", tokenFile)
	}
	for attempt := 1; ; attempt++ {
		err := cl.launchNodes(bin, top, sharedArgs)
		if err == nil {
			break
		}
		var exited *exitedError
		if !errors.As(err, &exited) || !exited.lostPort {
			return cl, err
		}
		if attempt == startAttempts {
			return cl, fmt.Errorf("%d starts, each on new ports, lost a port to another process; the last: %w", startAttempts, err)
		}
		// The peers name every node's Raft port, so the whole attempt starts again on new ports.
		log.Warn("a node lost a port to another process; starting the cluster again on other ports",
			"node", exited.tag, "attempt", attempt, "status", exited.status)
		if err := cl.discardNodes(); err != nil {
			return cl, err
		}
	}
	var err error
	if cl.first, err = cl.waitLeader(); err != nil {
		return cl, err
	}
	if err := cl.setUp(); err != nil {
		return cl, err
	}
	return cl, nil
}

// startAttempts bounds the starts of a cluster whose node lost a port to another process.
const startAttempts = 3

// pickPorts chooses the ports of a start; tests take a port it chose before the node binds it.
var pickPorts = freePorts

// launchNodes starts the topology's nodes on new ports and waits until each serves. When a
// node exits first, it returns at once an *exitedError that says how, rather than waiting out
// the others: they may never serve without it, as a new cluster forms only once every peer
// answers.
func (cl *cluster) launchNodes(bin string, top topology, sharedArgs []string) error {
	ports, err := pickPorts(portsPerNode * top.Nodes)
	if err != nil {
		return err
	}
	var peers []string
	for i := range top.Nodes {
		tag := string(rune('A' + i))
		p := ports[portsPerNode*i:]
		n := &node{tag: tag, bin: bin, dir: filepath.Join(cl.dir, tag),
			grpc: p[0], http: p[1], raft: p[2], metrics: p[3]}
		n.logPath = filepath.Join(n.dir, "idnode.log")
		if err := os.MkdirAll(n.dir, 0o700); err != nil {
			return err
		}
		cl.nodes = append(cl.nodes, n)
		peers = append(peers, tag+"="+n.raft)
	}
	for _, n := range cl.nodes {
		n.args = []string{"--tag", n.tag, "--data-dir", filepath.Join(n.dir, "data"),
			"--grpc-addr", n.grpc, "--http-addr", n.http, "--metrics-addr", n.metrics, "--log-format", "json",
			fmt.Sprintf("--hilo-pools=%t", top.hiloPools())}
		if top.Nodes == 1 {
			n.args = append(n.args, "--raft-addr", n.raft)
		} else {
			n.args = append(n.args, "--peers", strings.Join(peers, ","))
		}
		if len(top.HTTPAllowedOrigins) > 0 {
			n.args = append(n.args, "--http-allowed-origins", strings.Join(top.HTTPAllowedOrigins, ","))
		}
		if region := top.Regions[n.tag]; region != "" {
			n.args = append(n.args, "--region", region)
		}
		n.args = append(n.args, sharedArgs...)
		if err := n.launch(); err != nil {
			return fmt.Errorf("node %s: %w", n.tag, err)
		}
	}
	for _, n := range cl.nodes {
		if err := cl.waitServing(n, true, cl.nodes...); err != nil {
			return err
		}
	}
	return nil
}

// discardNodes kills the nodes of a failed start attempt and removes their data, keeping
// their logs (a later attempt's process appends to its node's).
func (cl *cluster) discardNodes() error {
	cl.killNodes()
	for _, n := range cl.nodes {
		if err := os.RemoveAll(filepath.Join(n.dir, "data")); err != nil {
			return err
		}
	}
	cl.nodes = nil
	return nil
}

// setUp creates the topology's databases and keys through the leader.
func (cl *cluster) setUp() error {
	if len(cl.top.Databases) == 0 && len(cl.top.Keys) == 0 && len(cl.top.Opaque) == 0 {
		return nil
	}
	conn, err := cl.dial(cl.byTag(cl.first))
	if err != nil {
		return err
	}
	defer conn.Close()
	admin := idnodev1.NewClusterServiceClient(conn)
	ctx, cancel := context.WithTimeout(context.Background(), leaderTimeout)
	defer cancel()
	// Each call is made again after a refusal for want of a leader (whileNoLeader): a database
	// an earlier attempt created is then ALREADY_EXISTS, a key an earlier attempt created
	// stays unused beside the one answered, and MakeOpaque answers the setting again.
	for _, db := range cl.top.Databases {
		retried, err := whileNoLeader(ctx, func(ctx context.Context) error {
			_, err := admin.CreateDatabase(ctx, &idnodev1.CreateDatabaseRequest{Name: db})
			return err
		})
		if err != nil && !(retried && status.Code(err) == codes.AlreadyExists) {
			return fmt.Errorf("database %s: %w", db, err)
		}
	}
	for _, name := range cl.top.keyNames() {
		k := cl.top.Keys[name]
		var resp *idnodev1.CreateKeyResponse
		if _, err := whileNoLeader(ctx, func(ctx context.Context) (err error) {
			resp, err = admin.CreateKey(ctx, &idnodev1.CreateKeyRequest{Database: k.Database, Role: k.Role})
			return err
		}); err != nil {
			return fmt.Errorf("key %s: %w", name, err)
		}
		cl.keys[name] = resp.GetKey()
	}
	for _, o := range cl.top.Opaque {
		var resp *idnodev1.OpaqueStatus
		if _, err := whileNoLeader(ctx, func(ctx context.Context) (err error) {
			resp, err = admin.MakeOpaque(ctx, &idnodev1.MakeOpaqueRequest{Database: o.Database, Collections: o.Collections, Numeric: o.Numeric})
			return err
		}); err != nil {
			return fmt.Errorf("opaque %s %v: %w", o.Database, o.Collections, err)
		}
		cl.opaque = append(cl.opaque, map[string]any{"database": resp.GetDatabase(), "collections": resp.GetCollections(),
			"numeric": resp.GetNumeric(), "keyFingerprint": resp.GetKeyFingerprint()})
	}
	return nil
}

func (cl *cluster) describe() map[string]any {
	nodes := make([]map[string]string, 0, len(cl.nodes))
	for _, n := range cl.nodes {
		d := map[string]string{"tag": n.tag, "grpc": n.grpc, "http": n.http, "raft": n.raft, "metrics": n.metrics}
		if region := cl.top.Regions[n.tag]; region != "" {
			d["region"] = region
		}
		nodes = append(nodes, d)
	}
	d := map[string]any{"nodes": nodes, "leader": cl.first, "keys": cl.keys}
	if len(cl.opaque) > 0 {
		d["opaque"] = cl.opaque
	}
	if cl.tls != nil {
		d["tls"] = cl.tls
	}
	return d
}

func (cl *cluster) byTag(tag string) *node {
	for _, n := range cl.nodes {
		if n.tag == tag {
			return n
		}
	}
	return nil
}

// selectNodes resolves a selector (README: SEL); which filters the nodes "all", "follower"
// and "followers" may name by state. A tag names its node whatever its state.
func (cl *cluster) selectNodes(sel string, which stateFilter) ([]*node, error) {
	pick := func(keep func(*node) bool) []*node {
		var out []*node
		for _, n := range cl.nodes {
			if s, _, _ := n.current(); which(s) && keep(n) {
				out = append(out, n)
			}
		}
		return out
	}
	switch sel {
	case "":
		return nil, errors.New(`no node: give "node" (a tag, "leader", "follower", "followers" or "all")`)
	case "all":
		return pick(func(*node) bool { return true }), nil
	case "leader", "follower", "followers":
		leader, err := cl.waitLeader()
		if err != nil {
			return nil, err
		}
		if sel == "leader" {
			return []*node{cl.byTag(leader)}, nil
		}
		others := pick(func(n *node) bool { return n.tag != leader })
		if len(others) == 0 {
			return nil, fmt.Errorf("no follower of leader %s fits", leader)
		}
		if sel == "follower" {
			return others[:1], nil
		}
		return others, nil
	}
	if n := cl.byTag(sel); n != nil {
		return []*node{n}, nil
	}
	return nil, fmt.Errorf("no node %q: the tags are A… up to the topology's nodes, or leader, follower, followers, all", sel)
}

// waitLeader waits until every running node names the same leader, itself running; an
// isolated node, which knows none, is left out.
func (cl *cluster) waitLeader() (string, error) {
	deadline := time.Now().Add(leaderTimeout)
	last := "no running node"
	for time.Now().Before(deadline) {
		leader, why := cl.agreedLeader()
		if leader != "" {
			return leader, nil
		}
		last = why
		time.Sleep(pollEvery)
	}
	return "", fmt.Errorf("no leader agreed within %v: %s", leaderTimeout, last)
}

// agreedLeader asks every running node whom it follows; "" and why when they do not agree.
func (cl *cluster) agreedLeader() (string, string) {
	leader, seen := "", 0
	for _, n := range cl.nodes {
		if s, _, _ := n.current(); s != stateRunning || n.isIsolated() {
			continue
		}
		got, err := cl.leaderOf(n)
		switch {
		case err != nil:
			return "", fmt.Sprintf("node %s: %v", n.tag, err)
		case got == "":
			return "", fmt.Sprintf("node %s knows no leader", n.tag)
		case leader != "" && got != leader:
			return "", fmt.Sprintf("nodes name leaders %s and %s", leader, got)
		}
		leader = got
		seen++
	}
	if seen == 0 {
		return "", "no running node"
	}
	if l := cl.byTag(leader); l == nil {
		return "", fmt.Sprintf("the leader named, %s, is none of this cluster's", leader)
	} else if s, _, _ := l.current(); s != stateRunning || l.isIsolated() {
		return "", fmt.Sprintf("the nodes still name %s, which is %s", leader, s)
	}
	return leader, ""
}

func (cl *cluster) leaderOf(n *node) (string, error) {
	conn, err := cl.dial(n)
	if err != nil {
		return "", err
	}
	defer conn.Close()
	ctx, cancel := context.WithTimeout(context.Background(), rpcTimeout)
	defer cancel()
	st, err := idnodev1.NewClusterServiceClient(conn).Status(ctx, &idnodev1.StatusRequest{})
	return st.GetLeader(), err
}

// waitServing waits until n's health answers: SERVING when serving is set (a node of a
// cluster with its majority), any answer otherwise (a node restarted without one). It stops
// at once with an *exitedError when n, or one of the others it watches, has exited.
func (cl *cluster) waitServing(n *node, serving bool, watch ...*node) error {
	conn, err := cl.dial(n)
	if err != nil {
		return err
	}
	defer conn.Close()
	hc := healthpb.NewHealthClient(conn)
	watch = append([]*node{n}, watch...)
	deadline := time.Now().Add(serveTimeout)
	last := "no answer"
	for time.Now().Before(deadline) {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		resp, err := hc.Check(ctx, &healthpb.HealthCheckRequest{})
		cancel()
		switch {
		case err != nil:
			last = err.Error()
		case !serving || resp.GetStatus() == healthpb.HealthCheckResponse_SERVING:
			return nil
		default:
			last = resp.GetStatus().String()
		}
		for _, w := range watch {
			if err := w.exited(); err != nil {
				return err
			}
		}
		time.Sleep(pollEvery)
	}
	return fmt.Errorf("node %s did not serve within %v (last answer: %s); its log ends:\n%s", n.tag, serveTimeout, last, n.tail())
}

func (cl *cluster) dial(n *node) (*grpc.ClientConn, error) {
	opts := []grpc.DialOption{grpc.WithTransportCredentials(cl.creds)}
	if cl.top.AdminToken != "" {
		opts = append(opts, grpc.WithPerRPCCredentials(client.AdminTokenCredentials(cl.top.AdminToken)))
	}
	return grpc.NewClient(n.grpc, opts...)
}

// restart starts a stopped node again with its data and ports, and waits until it serves
// (until it answers at all, when a majority of the nodes is not running).
func (cl *cluster) restart(n *node) error {
	if err := n.launch(); err != nil {
		return err
	}
	return cl.waitServing(n, cl.quorate())
}

// restartIsolated starts a stopped node again with its data, its client ports and its
// peers, but listening for Raft on a port its peers do not know, as a node behind a firewall
// that drops what comes in on its Raft port: no leader reaches it, so it never catches up and
// knows no leader, while its own calls out still reach its peers. Those calls may win it an
// election when its log is as long as theirs, so a scenario has the cluster write something
// after the node stopped (README). It waits until the node answers at all (its health is not
// SERVING without a leader).
func (cl *cluster) restartIsolated(n *node) error {
	// A new reservation is never the node's own Raft port, which this process holds already.
	unknown, err := freePorts(1)
	if err != nil {
		return err
	}
	if err := n.launch("--raft-addr", unknown[0]); err != nil {
		return err
	}
	return cl.waitServing(n, false)
}

// quorate reports whether a majority of the nodes is running.
func (cl *cluster) quorate() bool {
	up := 0
	for _, n := range cl.nodes {
		if s, _, _ := n.current(); s == stateRunning {
			up++
		}
	}
	return 2*up > len(cl.nodes)
}

func (cl *cluster) teardown() {
	cl.killNodes()
	if err := os.RemoveAll(cl.dir); err != nil {
		cl.log.Warn("teardown", "dir", cl.dir, "err", err)
	}
}

// killNodes kills every node still running or paused.
func (cl *cluster) killNodes() {
	for _, n := range cl.nodes {
		if s, _, _ := n.current(); s != stateStopped {
			if err := n.kill(); err != nil {
				cl.log.Warn("teardown", "node", n.tag, "err", err)
			}
		}
	}
}

// freePorts returns count loopback addresses, all different, reserved to this process until
// it ends (test/helpers/loopback). Several idclusters run at once, one per client suite: a
// port merely found free would be free again while its node is down, and another idcluster
// could take it before the node restarts.
func freePorts(count int) ([]string, error) {
	out := make([]string, 0, count)
	for range count {
		port, err := loopback.Reserve()
		if err != nil {
			return nil, err
		}
		out = append(out, net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	}
	return out, nil
}

// tlsCreds is idcluster's own client side of a TLS cluster.
func tlsCreds(caPEM, certPEM, keyPEM []byte) (credentials.TransportCredentials, error) {
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the CA certificate does not parse")
	}
	pair, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return nil, err
	}
	return credentials.NewTLS(&tls.Config{RootCAs: pool, Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}), nil
}
