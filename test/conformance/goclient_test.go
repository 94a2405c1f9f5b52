package conformance_test

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strconv"
	"sync"

	"github.com/google/uuid"
	"google.golang.org/grpc/credentials"

	"github.com/idnode/idnode/client"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// goClient is one client of a scenario: the Go client and its numeric generator, made on
// first use.
type goClient struct {
	c       *client.Client
	numeric *client.NumericGenerator
}

// conformanceEntity is the entity of the assignId operation: an ID field, as an application's.
type conformanceEntity struct{ ID string }

// goOps maps each operation of the README onto the Go client.
var goOps = map[string]func(context.Context, *goRun, *goClient, *args) (any, error){
	"close": func(ctx context.Context, r *goRun, gc *goClient, _ *args) (any, error) {
		return struct{}{}, gc.close(ctx)
	},
	"generate": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.GenerateRequest{Id: a.str("id"), Count: a.int("count", 0), RequestId: a.str("requestId"),
			Claim: a.bool("claim"), Owner: a.str("owner"), Numeric: a.bool("numeric")}
		switch v := a.str("guidVersion"); v {
		case "v4":
			req.GuidVersion = idnodev1.GuidVersion_GUID_VERSION_V4
		case "v7":
			req.GuidVersion = idnodev1.GuidVersion_GUID_VERSION_V7
		case "":
		default:
			a.fail("guidVersion", `"v4" or "v7"`)
		}
		if a.err != nil {
			return nil, a.err
		}
		resp, err := gc.c.GenerateRaw(ctx, req)
		return map[string]any{"ids": nonNil(resp.GetIds())}, err
	},
	"nextIdentity": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.NextIdentityRequest{Name: a.str("name"), Count: a.int("count", 0), RequestId: a.str("requestId")}
		if a.err != nil {
			return nil, a.err
		}
		b, err := gc.c.NextIdentityRaw(ctx, req)
		return map[string]any{"first": b.First, "last": b.Last, "skipped": nonNil(b.Skipped)}, err
	},
	"seedIdentity": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		name, value, force := a.str("name"), a.int("value", 0), a.bool("force")
		if a.err != nil {
			return nil, a.err
		}
		v, err := gc.c.SeedIdentity(ctx, name, value, force)
		return map[string]any{"value": v}, err
	},
	"listIdentities": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		prefix := a.str("prefix")
		if a.err != nil {
			return nil, a.err
		}
		ids := []map[string]any{}
		for id, err := range gc.c.Identities(ctx, prefix, 0) {
			if err != nil {
				return nil, err
			}
			ids = append(ids, map[string]any{"name": id.GetName(), "value": id.GetValue()})
		}
		return map[string]any{"identities": ids}, nil
	},
	"claim": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.ClaimRequest{Ids: a.strs("ids"), Owner: a.str("owner"), RequestId: a.str("requestId")}
		if a.err != nil {
			return nil, a.err
		}
		return struct{}{}, gc.c.ClaimRaw(ctx, req)
	},
	"release": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.ReleaseRequest{Ids: a.strs("ids"), Owner: a.str("owner"), RequestId: a.str("requestId")}
		if a.err != nil {
			return nil, a.err
		}
		resp, err := gc.c.ReleaseRaw(ctx, req)
		return map[string]any{"released": resp.GetReleased()}, err
	},
	"getClaims": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		ids := a.strs("ids")
		if a.err != nil {
			return nil, a.err
		}
		claims, err := gc.c.Claims(ctx, ids...)
		out := []map[string]any{}
		for _, c := range claims {
			out = append(out, map[string]any{"id": c.GetId(), "owner": c.GetOwner()})
		}
		return map[string]any{"claims": out}, err
	},
	"nextHiLo": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.NextHiLoRequest{Tag: a.str("tag"), LastBatchSize: a.int("lastBatchSize", 0),
			LastMax: a.int("lastMax", 0), RequestId: a.str("requestId")}
		if a.err != nil {
			return nil, a.err
		}
		resp, err := gc.c.NextHiLo(ctx, req)
		return map[string]any{"prefix": resp.GetPrefix(), "low": resp.GetLow(), "high": resp.GetHigh(),
			"lastSize": resp.GetLastSize(), "serverTag": resp.GetServerTag(), "grantId": resp.GetGrantId()}, err
	},
	"returnHiLo": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.ReturnHiLoRequest{Tag: a.str("tag"), End: a.int("end", 0), Last: a.int("last", 0), GrantId: a.str("grantId")}
		if a.err != nil {
			return nil, a.err
		}
		returned, err := gc.c.ReturnHiLo(ctx, req)
		return map[string]any{"returned": returned}, err
	},
	"seedHiLo": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		tag, max := a.str("tag"), a.int("max", 0)
		if a.err != nil {
			return nil, a.err
		}
		m, err := gc.c.SeedHiLo(ctx, tag, max)
		return map[string]any{"max": m}, err
	},
	"explain": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		id := a.str("id")
		if a.err != nil {
			return nil, a.err
		}
		e, err := gc.c.Explain(ctx, id)
		return map[string]any{"kind": e.GetKind(), "encoding": e.GetEncoding(), "value": strconv.FormatInt(e.GetValue(), 10),
			"worker": e.GetWorker(), "sequence": e.GetSequence(), "prefix": e.GetPrefix(), "number": e.GetNumber(),
			"nodeTag": e.GetNodeTag(), "guidVersion": e.GetGuidVersion(), "opaque": e.GetOpaque()}, err
	},
	"assignId": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		entity := &conformanceEntity{ID: a.str("id")}
		if a.err != nil {
			return nil, a.err
		}
		id, err := gc.c.AssignID(ctx, entity)
		if err == nil && id != entity.ID {
			err = fmt.Errorf("AssignID returned %q but left the entity's ID %q", id, entity.ID)
		}
		return map[string]any{"id": entity.ID}, err
	},
	"hiloIds": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		tag, count := a.str("tag"), a.int("count", 1)
		if a.err != nil {
			return nil, a.err
		}
		ids := make([]string, 0, count)
		for range count {
			id, err := gc.c.NextID(ctx, tag)
			if err != nil {
				return nil, err
			}
			ids = append(ids, id)
		}
		return map[string]any{"ids": ids}, nil
	},
	"hiloIdsParallel": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		tag, workers, each := a.str("tag"), a.int("workers", 1), a.int("each", 1)
		if a.err != nil {
			return nil, a.err
		}
		return parallelIDs(ctx, gc.c, tag, int(workers), int(each))
	},
	"opaqueForms": func(_ context.Context, _ *goRun, _ *goClient, a *args) (any, error) {
		ids, collection := a.strs("ids"), a.str("collection")
		if a.err != nil {
			return nil, a.err
		}
		parse := client.ParseOpaqueNumericID
		if collection != "" {
			parse = func(id string) (string, error) { return client.ParseOpaqueID(id, collection, '/') }
		}
		forms := make([]string, 0, len(ids))
		for _, id := range ids {
			form, err := parse(id)
			if err != nil {
				return nil, err
			}
			forms = append(forms, form)
		}
		return map[string]any{"ids": forms}, nil
	},
	"numericIds": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		count := a.int("count", 1)
		if a.err != nil {
			return nil, a.err
		}
		if gc.numeric == nil {
			g, err := gc.c.NewNumericGenerator(ctx, client.NumericOptions{Holder: "conformance"})
			if err != nil {
				return nil, err
			}
			gc.numeric = g
		}
		ids := make([]string, 0, count)
		for range count {
			id, err := gc.numeric.Next()
			if err != nil {
				return nil, err
			}
			ids = append(ids, strconv.FormatInt(id, 10))
		}
		lease := gc.numeric.Lease()
		return map[string]any{"ids": ids, "worker": lease.Worker, "epoch": lease.Epoch}, nil
	},
	"createSeries": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.CreateSeriesRequest{Name: a.str("name"), Format: a.str("format")}
		switch p := a.str("period"); p {
		case "", "none":
		case "year":
			req.Period = idnodev1.SeriesPeriod_SERIES_PERIOD_YEAR
		case "month":
			req.Period = idnodev1.SeriesPeriod_SERIES_PERIOD_MONTH
		default:
			a.fail("period", `"none", "year" or "month"`)
		}
		switch p := a.str("policy"); p {
		case "", "gapless":
		case "gapsAllowedJournaled":
			req.Policy = idnodev1.SeriesPolicy_SERIES_POLICY_GAPS_ALLOWED_JOURNALED
		default:
			a.fail("policy", `"gapless" or "gapsAllowedJournaled"`)
		}
		if a.err != nil {
			return nil, a.err
		}
		s, err := gc.c.Series().Create(ctx, req)
		return map[string]any{"name": s.GetName(), "format": s.GetFormat()}, err
	},
	"issue": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.IssueRequest{Series: a.str("series"), RequestId: a.str("requestId"), DocumentHash: a.str("documentHash")}
		fields := a.object("fields")
		if a.err != nil {
			return nil, a.err
		}
		if req.RequestId == "" {
			req.RequestId = uuid.NewString()
		}
		for _, k := range slices.Sorted(maps.Keys(fields)) {
			req.Fields = append(req.Fields, &idnodev1.SeriesField{Key: k, Value: fields[k]})
		}
		e, err := gc.c.Series().Issue(ctx, req)
		return entry(e), err
	},
	"void": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		req := &idnodev1.VoidRequest{Series: a.str("series"), Number: a.int("number", 0), Period: a.str("period"),
			Reason: a.str("reason"), Correcting: a.str("correcting")}
		if a.err != nil {
			return nil, a.err
		}
		e, err := gc.c.Series().Void(ctx, req)
		return entry(e), err
	},
	"verifySeries": func(ctx context.Context, _ *goRun, gc *goClient, a *args) (any, error) {
		series := a.str("series")
		if a.err != nil {
			return nil, a.err
		}
		v, err := gc.c.Series().Verify(ctx, series)
		return map[string]any{"ok": v.GetOk(), "entries": v.GetEntries(), "issued": v.GetIssued(),
			"voided": v.GetVoided(), "breakSeq": v.GetBreakSeq()}, err
	},
}

func entry(e *idnodev1.SeriesEntry) map[string]any {
	kind := map[idnodev1.SeriesEntryKind]string{idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_ISSUED: "issued",
		idnodev1.SeriesEntryKind_SERIES_ENTRY_KIND_VOIDED: "voided"}[e.GetKind()]
	return map[string]any{"seq": e.GetSeq(), "kind": kind, "period": e.GetPeriod(), "number": e.GetNumber(),
		"id": e.GetId(), "hash": e.GetHash(), "prevHash": e.GetPrevHash()}
}

// parallelIDs has workers goroutines take each IDs apiece from tag's generator, all starting
// at once, so the first range is asked for by all of them together.
func parallelIDs(ctx context.Context, c *client.Client, tag string, workers, each int) (any, error) {
	if workers < 1 || workers > 256 || each < 1 || each > 100_000 {
		return nil, fmt.Errorf("hiloIdsParallel: workers 1..256 and each 1..100000, got %d and %d", workers, each)
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		ids   = make([]string, 0, workers*each)
		errs  []error
		start = make(chan struct{})
	)
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			mine := make([]string, 0, each)
			for range each {
				id, err := c.NextID(ctx, tag)
				if err != nil {
					mu.Lock()
					errs = append(errs, err)
					mu.Unlock()
					return
				}
				mine = append(mine, id)
			}
			mu.Lock()
			ids = append(ids, mine...)
			mu.Unlock()
		}()
	}
	close(start)
	wg.Wait()
	if len(errs) > 0 {
		return nil, errs[0]
	}
	return map[string]any{"ids": ids}, nil
}

func (gc *goClient) close(ctx context.Context) error {
	var errs []error
	if gc.numeric != nil {
		errs = append(errs, gc.numeric.Close(ctx))
	}
	return errors.Join(append(errs, gc.c.Close(ctx))...)
}

// open makes a client as the open operation's arguments say (README: Clients).
func (r *goRun) open(ctx context.Context, a *args) (*goClient, error) {
	sels, database, tlsOn, cert, region := a.strs("nodes"), a.str("database"), a.bool("tls"), a.bool("clientCert"), a.str("region")
	var secret string
	switch k := a.m["apiKey"].(type) {
	case nil:
	case string:
		var ok bool
		if secret, ok = r.cluster.Keys[k]; !ok {
			a.fail("apiKey", "a key name of the topology")
		}
	case map[string]any:
		secret, _ = k["secret"].(string)
	default:
		a.fail("apiKey", `a key name or {"secret": "…"}`)
	}
	if a.err != nil {
		return nil, a.err
	}
	addrs, err := r.addrs(sels)
	if err != nil {
		return nil, err
	}
	opts := []client.Option{client.WithNodesInOrder()}
	if database != "" {
		opts = append(opts, client.WithDatabase(database))
	}
	if secret != "" {
		opts = append(opts, client.WithAPIKey(secret))
	}
	if region != "" {
		opts = append(opts, client.WithRegion(region, r.cluster.regionsOf(addrs)))
	}
	if tlsOn || cert {
		creds, err := r.tlsCreds(cert)
		if err != nil {
			return nil, err
		}
		opts = append(opts, client.WithTransportCredentials(creds))
	}
	c, err := client.Dial(ctx, addrs, opts...)
	if err != nil {
		return nil, err
	}
	return &goClient{c: c}, nil
}

// addrs resolves node selectors (README: The control program) to gRPC addresses, in the order
// given; none is every node.
func (r *goRun) addrs(sels []string) ([]string, error) {
	var all []string
	for _, n := range r.cluster.Nodes {
		all = append(all, n.Tag)
	}
	if len(sels) == 0 {
		sels = []string{"all"}
	}
	var out []string
	for _, sel := range sels {
		tags := []string{sel}
		if _, ok := r.cluster.grpcAddr(sel); !ok {
			leader := ""
			if sel == "leader" || sel == "follower" || sel == "followers" {
				answer, err := r.cp.send(map[string]any{"cmd": "leader"})
				if err != nil {
					return nil, err
				}
				leader = answer["leader"].(string)
			}
			followers := slices.DeleteFunc(slices.Clone(all), func(tag string) bool { return tag == leader })
			switch sel {
			case "all":
				tags = all
			case "leader":
				tags = []string{leader}
			case "follower":
				tags = followers[:min(1, len(followers))]
			case "followers":
				tags = followers
			default:
				return nil, fmt.Errorf(`open: node %q: a tag, "leader", "follower", "followers" or "all"`, sel)
			}
		}
		for _, tag := range tags {
			addr, _ := r.cluster.grpcAddr(tag)
			out = append(out, addr)
		}
	}
	return out, nil
}

func (r *goRun) tlsCreds(withCert bool) (credentials.TransportCredentials, error) {
	if r.cluster.TLS == nil {
		return nil, errors.New("open: tls asked of a cluster without TLS (topology.tls)")
	}
	caPEM, err := os.ReadFile(r.cluster.TLS.CA)
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(caPEM) {
		return nil, errors.New("the cluster's CA does not parse")
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if withCert {
		pair, err := tls.LoadX509KeyPair(r.cluster.TLS.ClientCert, r.cluster.TLS.ClientKey)
		if err != nil {
			return nil, err
		}
		cfg.Certificates = []tls.Certificate{pair}
	}
	return credentials.NewTLS(cfg), nil
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}
