// Package deploy holds no code: its test checks the deploy files (Grafana dashboard, Prometheus
// alert rules and their promtool tests) against the metrics a node really exports, so renaming a
// metric fails here instead of silently blanking a panel or an alert.
package deploy

import (
	"encoding/json"
	"os"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc"

	"github.com/idnode/idnode/internal/hilopool"
	"github.com/idnode/idnode/node/metrics"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// deployFiles are the files whose metric names must exist.
var deployFiles = []string{"grafana/idnode.json", "prometheus/alerts.yml", "prometheus/alerts_test.yml"}

var (
	// metricName matches idnode's own metrics and the gRPC server's (grpc_code and the other
	// label names start with grpc_ but not grpc_server_).
	metricName = regexp.MustCompile(`\b(?:idnode|grpc_server)_[a-z0-9_]+\b`)
	// grpcLabel matches a grpc_service or grpc_method matcher, its quotes escaped in JSON.
	grpcLabel = regexp.MustCompile(`\b(grpc_service|grpc_method)=\\?"([^"\\]*)\\?"`)
)

type idleRaft struct{}

func (idleRaft) State() string          { return "follower" }
func (idleRaft) Term() uint64           { return 1 }
func (idleRaft) CommitIndex() uint64    { return 1 }
func (idleRaft) AppliedIndex() uint64   { return 1 }
func (idleRaft) LastContact() time.Time { return time.Now() }
func (idleRaft) StorageFault() error    { return nil }

type onePool struct{}

func (onePool) Keys() []hilopool.Key         { return []hilopool.Key{{Database: "default", Tag: "users"}} }
func (onePool) Remaining(hilopool.Key) int64 { return 1 }

// exported gathers a node's registry with every collector cmd/idnode registers and every gRPC
// method initialised, and returns the series names it serves (a histogram's _bucket, _sum and
// _count included) and the values of the grpc_service and grpc_method labels.
func exported(t *testing.T) (names map[string]bool, grpcLabels map[string]map[string]bool) {
	t.Helper()
	m := metrics.New()
	m.WatchRaft(idleRaft{})
	m.WatchHiLoPools(onePool{})
	m.WatchHeadroom(func() *idnodev1.Headroom {
		return &idnodev1.Headroom{
			NumericYearsLeft: map[string]float64{"default": 68},
			Databases:        []*idnodev1.DatabaseHeadroom{{Database: "default", WorkerBits: 10, WorkersNeverUsed: 1024}},
			Certificates:     []*idnodev1.CertificateExpiry{{Kind: "node", NotAfterMs: time.Now().Add(time.Hour).UnixMilli()}},
		}
	})
	m.SlowApplies()
	m.Backups(time.Hour)
	// The pool counters have series only once a pool granted and was refilled.
	m.HiLoPoolGrant("", "users", 1)
	m.HiLoPoolRefill("", "users", 1)
	srv := grpc.NewServer()
	idnodev1.RegisterIdServiceServer(srv, idnodev1.UnimplementedIdServiceServer{})
	idnodev1.RegisterClusterServiceServer(srv, idnodev1.UnimplementedClusterServiceServer{})
	m.GRPC.InitializeMetrics(srv)
	families, err := m.Registry.Gather()
	if err != nil {
		t.Fatal(err)
	}
	names = map[string]bool{}
	grpcLabels = map[string]map[string]bool{"grpc_service": {}, "grpc_method": {}}
	for _, f := range families {
		names[f.GetName()] = true
		// By the type's name: client_model, which declares the type, is not a direct requirement.
		if f.GetType().String() == "HISTOGRAM" {
			for _, suffix := range []string{"_bucket", "_sum", "_count"} {
				names[f.GetName()+suffix] = true
			}
		}
		for _, s := range f.GetMetric() {
			for _, l := range s.GetLabel() {
				if values, ok := grpcLabels[l.GetName()]; ok {
					values[l.GetValue()] = true
				}
			}
		}
	}
	return names, grpcLabels
}

func TestDeployFilesUseExportedMetrics(t *testing.T) {
	names, grpcLabels := exported(t)
	for _, file := range deployFiles {
		body, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		used := metricName.FindAllString(string(body), -1)
		if len(used) == 0 {
			t.Errorf("%s names no idnode or grpc_server metric: is metricName out of date?", file)
		}
		for _, name := range used {
			if !names[name] {
				t.Errorf("%s uses %s, which the node does not export (node/metrics/): rename it there too", file, name)
			}
		}
		for _, match := range grpcLabel.FindAllStringSubmatch(string(body), -1) {
			label, value := match[1], match[2]
			if !grpcLabels[label][value] {
				t.Errorf("%s matches %s=%q, which no gRPC method of the node has; known: %s", file, label, value, sortedKeys(grpcLabels[label]))
			}
		}
	}
}

// TestDashboardPanelsHaveQueries checks that the dashboard is JSON Grafana can import and that
// every panel but a row queries something.
func TestDashboardPanelsHaveQueries(t *testing.T) {
	body, err := os.ReadFile("grafana/idnode.json")
	if err != nil {
		t.Fatal(err)
	}
	var dashboard struct {
		UID    string `json:"uid"`
		Panels []struct {
			Type    string `json:"type"`
			Title   string `json:"title"`
			Targets []struct {
				Expr string `json:"expr"`
			} `json:"targets"`
		} `json:"panels"`
	}
	if err := json.Unmarshal(body, &dashboard); err != nil {
		t.Fatalf("grafana/idnode.json: %v", err)
	}
	if dashboard.UID == "" || len(dashboard.Panels) == 0 {
		t.Fatalf("grafana/idnode.json: uid %q, %d panels; want a uid and panels", dashboard.UID, len(dashboard.Panels))
	}
	for _, p := range dashboard.Panels {
		if p.Type == "row" {
			continue
		}
		if len(p.Targets) == 0 {
			t.Errorf("panel %q has no query", p.Title)
		}
		for _, target := range p.Targets {
			if strings.TrimSpace(target.Expr) == "" {
				t.Errorf("panel %q has an empty query", p.Title)
			}
		}
	}
}

func sortedKeys(set map[string]bool) string {
	keys := make([]string, 0, len(set))
	for k := range set {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return strings.Join(keys, " ")
}
