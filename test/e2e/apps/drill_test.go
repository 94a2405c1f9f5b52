//go:build linux

package apps

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/conformance/conformancetest"
	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/netns"
	"github.com/idnode/idnode/test/helpers/nodeenv"
	"github.com/idnode/idnode/test/helpers/poll"
	"github.com/idnode/idnode/test/helpers/postgres"
)

// The drill's bounds and load.
const (
	workers      = 4                // inserters per application
	batch        = 5                // rows per transaction
	appDuration  = 4 * time.Minute  // the applications' own bound; SIGTERM ends them well before
	progressWait = 90 * time.Second // until both applications committed more rows in every table
	progressRows = 50               // rows per table per application that count as progress
	sqlTimeout   = time.Minute
	// Every node is a host of its own (netns), so all listen on the same ports.
	grpcPort  = "7070"
	raftPort  = "7100"
	pythonBin = "/usr/bin/python3" // Debian's, which sees Debian's grpcio, SQLAlchemy and psycopg2
)

// The drill's tables: each key form of idnode in one of them.
var drillTables = []string{"orders", "invoices", "events"}

// keyForms are the keys each table must hold: HiLo strings by the client's conventions
// (orders/17-A), identities and numeric IDs (positive 64-bit integers).
var keyForms = map[string]*regexp.Regexp{
	"orders":   regexp.MustCompile(`^orders/[1-9][0-9]*-[A-Z]+$`),
	"invoices": regexp.MustCompile(`^[1-9][0-9]*$`),
	"events":   regexp.MustCompile(`^[1-9][0-9]*$`),
}

const schema = `
CREATE TABLE orders   (id text   PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE invoices (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE events   (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE counters (id bigint PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);
CREATE TABLE serials  (id bigserial PRIMARY KEY, lang text NOT NULL, worker int NOT NULL, seq bigint NOT NULL);`

// TestApplicationDrill runs the Go application (GORM) and the Python one (SQLAlchemy) at once,
// each inserting into the same tables with keys from a three-node idnode cluster, while the
// leader is killed twice and a follower is partitioned. PostgreSQL's primary keys are the
// oracle: no unique violation, and every row an application saw committed is in its table.
//
// Each node runs on a host of its own, a network namespace (test/helpers/netns), so that the
// partition is real and two-way: the cut follower reaches neither the other nodes nor the
// applications, and they do not reach it, while it runs on with its connections open. A proxy
// in front of each node's Raft port (test/helpers/wan) would cut only what comes in to the
// follower, which would still reach the leader through the leader's own port and serve on;
// containers (the chaos suite's docker network disconnect) would cut both ways too, at the
// cost of building the image and running every node in Docker
// (docs/decisions/0037-partitions-in-network-namespaces.md).
func TestApplicationDrill(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a cluster, PostgreSQL and two applications")
	}
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	needPython(t)
	netns.Need(t)
	goApp := buildGoApp(t, root)
	pg := postgres.ForTest(t)
	if _, err := pg.Psql(sqlCtx(t), schema); err != nil {
		t.Fatal(err)
	}

	hosts := netns.Start(t, e2etest.ClusterTags...)
	c := e2etest.StartClusterWith(t, func(tag string) e2etest.NodeOpts {
		addr := hosts.Addr(tag)
		return e2etest.NodeOpts{GRPCAddr: addr + ":" + grpcPort, RaftAddr: addr + ":" + raftPort, Wrapper: hosts.Command(tag)}
	})
	var nodes []string
	for _, p := range c.Nodes {
		nodes = append(nodes, p.GRPCAddr)
	}
	flags := []string{"--nodes", strings.Join(nodes, ","), "--tables", strings.Join(drillTables, ","),
		"--workers", fmt.Sprint(workers), "--batch", fmt.Sprint(batch), "--duration", appDuration.String(), "--max-rows", "1000000"}
	// Each application names its connections (application_name), so that pg_stat_activity
	// tells them apart.
	appFlags := func(lang string) []string {
		return append(slices.Clone(flags), "--dsn", pg.DSN+"&application_name="+appNamePrefix+lang)
	}
	apps := []*app{
		startApp(t, "go", append([]string{goApp}, appFlags("go")...), nodeenv.Clean()),
		startApp(t, "python", append([]string{pythonBin, filepath.Join(root, "clients/python/examples/ormapp.py")}, appFlags("python")...),
			nodeenv.Clean("PYTHONPATH="+filepath.Join(root, "clients/python/src"))),
	}
	d := &drill{t: t, c: c, apps: apps}
	d.progress("both applications started")

	for round := 1; round <= 2; round++ {
		leader := d.leader()
		c.Node(leader).Kill9()
		d.leader(c.Others(leader)...)
		d.progress(fmt.Sprintf("leader %s killed (%d of 2)", leader, round))
		c.Node(leader).Restart()
		c.WaitServing(leader)
		d.progress(fmt.Sprintf("node %s back", leader))
	}
	follower := c.Others(d.leader())[0]
	cut := d.partition(hosts, follower)
	d.progress(fmt.Sprintf("follower %s healed", follower))
	loss := d.loseMajority(pg)

	for _, a := range apps {
		a.stop(t)
	}
	d.check(pg)
	cut.log(d)
	loss.log(d)
}

// sqlCtx bounds one psql command by sqlTimeout.
func sqlCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), sqlTimeout)
	t.Cleanup(cancel)
	return ctx
}

// drill is the running drill: the cluster, the applications and the leaders seen.
type drill struct {
	t       *testing.T
	c       *e2etest.Cluster
	apps    []*app
	leaders []string // every leader named, in order
}

// leader is the cluster's leader as the nodes via name it, noted.
func (d *drill) leader(via ...string) string {
	d.t.Helper()
	l := d.c.Leader(via...)
	if len(d.leaders) == 0 || d.leaders[len(d.leaders)-1] != l {
		d.leaders = append(d.leaders, l)
	}
	return l
}

// progress waits until each application has committed progressRows more rows in every table
// than when it was called.
func (d *drill) progress(after string) {
	d.t.Helper()
	base := d.counts()
	poll.Until(d.t, "both applications committing in every table after "+after, progressWait, 50*time.Millisecond, func() error {
		return d.committedSince(base)
	})
	d.t.Logf("after %s: both applications committed %d+ rows in each table", after, progressRows)
}

// counts is the rows each application has reported committed, by table.
func (d *drill) counts() map[*app]map[string]int {
	base := map[*app]map[string]int{}
	for _, a := range d.apps {
		base[a] = map[string]int{}
		for _, table := range drillTables {
			base[a][table] = a.rowsIn(table)
		}
	}
	return base
}

// committedSince is nil once each application has committed progressRows more rows in every
// table than base says; an application that exited fails the test.
func (d *drill) committedSince(base map[*app]map[string]int) error {
	for _, a := range d.apps {
		select {
		case <-a.exit:
			d.t.Fatalf("the %s application exited during the drill: %v", a.lang, a.err)
		default:
		}
		for _, table := range drillTables {
			if n := a.rowsIn(table) - base[a][table]; n < progressRows {
				return fmt.Errorf("the %s application committed %d rows in %s since then", a.lang, n, table)
			}
		}
	}
	return nil
}

// check holds the tables to what the applications reported, and prints the figures.
func (d *drill) check(pg *postgres.Server) {
	t := d.t
	t.Helper()
	var idnodeErrors int64
	for _, a := range d.apps {
		if n := a.errors[classUniqueViolation]; n > 0 {
			t.Errorf("the %s application saw %d unique violations, the first: %s", a.lang, n, a.samples[classUniqueViolation])
		}
		if n := a.errors[classOther]; n > 0 {
			t.Errorf("the %s application saw %d other errors, the first: %s", a.lang, n, a.samples[classOther])
		}
		idnodeErrors += a.errors[classIdnode]
	}
	t.Logf("%-8s %-7s %8s %8s", "table", "lang", "reported", "in table")
	for _, table := range drillTables {
		out, err := pg.Psql(sqlCtx(t), "SELECT lang, id::text FROM "+table)
		if err != nil {
			t.Fatal(err)
		}
		stored := map[string]map[string]bool{}
		for _, row := range strings.Split(strings.TrimSpace(out), "\n") {
			lang, id, ok := strings.Cut(row, "|")
			if !ok {
				t.Fatalf("%s: a row psql printed as %q", table, row)
			}
			if !keyForms[table].MatchString(id) {
				t.Errorf("%s: the key %q (%s) is not of the table's form %v", table, id, lang, keyForms[table])
			}
			if stored[lang] == nil {
				stored[lang] = map[string]bool{}
			}
			stored[lang][id] = true
		}
		for _, a := range d.apps {
			var missing []string
			for id := range a.committed[table] {
				if !stored[a.lang][id] {
					missing = append(missing, id)
				}
			}
			slices.Sort(missing)
			if len(missing) > 0 {
				t.Errorf("%s: %d rows the %s application saw committed are not in the table, e.g. %v", table, len(missing), a.lang, missing[:min(5, len(missing))])
			}
			if len(a.committed[table]) == 0 {
				t.Errorf("%s: the %s application committed no row", table, a.lang)
			}
			t.Logf("%-8s %-7s %8d %8d", table, a.lang, len(a.committed[table]), len(stored[a.lang]))
		}
	}
	for _, a := range d.apps {
		if a.done != nil {
			t.Logf("%s: %d rows in %.1f s (%.0f rows/s), errors %v", a.lang, a.done.Rows, a.done.Seconds, a.done.RowsPerSecond, a.done.Errors)
		}
	}
	t.Logf("idnode errors (batches retried): %d; leaders in turn: %v (%d changes)", idnodeErrors, d.leaders, len(d.leaders)-1)
	if len(d.leaders)-1 < 2 {
		t.Errorf("leaders in turn %v: want at least two changes (the leader was killed twice)", d.leaders)
	}
}

// needPython skips without Debian's python3 and the Python application's modules (fails under
// CI=true, where .ci/run installs them).
func needPython(t *testing.T) {
	t.Helper()
	err := exec.Command(pythonBin, "-c", "import grpc, google.protobuf, sqlalchemy, psycopg2").Run()
	conformancetest.Need(t, "Debian's python3 with python3-grpcio, python3-protobuf, python3-sqlalchemy and python3-psycopg2", err == nil)
}

// buildGoApp builds the Go application (a module of its own) into a temporary folder.
func buildGoApp(t *testing.T, root string) string {
	t.Helper()
	out := filepath.Join(t.TempDir(), "ormapp")
	ctx, cancel := context.WithTimeout(context.Background(), e2etest.BuildTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "go", "-C", filepath.Join(root, "contrib", "gorm"), "build", "-o", out, "./cmd/ormapp")
	cmd.Env = os.Environ()
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build contrib/gorm/cmd/ormapp: %v\n%s", err, b)
	}
	return out
}
