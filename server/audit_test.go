package server

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"log/slog"
	"net"
	"strings"
	"testing"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/tlsconfig"
	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
	"github.com/idnode/idnode/test/helpers/jsonlog"
)

type auditStream struct {
	grpc.ServerStream
	ctx context.Context
}

func (s auditStream) Context() context.Context { return s.ctx }

// Every admin call is logged once, done or refused, with who asked as the node verified it,
// and nothing a caller claims about itself; ID calls are not.
func TestAdminCallsAreAudited(t *testing.T) {
	t.Parallel()
	var buf bytes.Buffer
	s := &interceptors{core: newCore(Config{AdminToken: "s3cret", Logger: slog.New(slog.NewJSONHandler(&buf, nil))}, &fakeCluster{leader: true, fsm: fsm.New()}, nil)}
	remove := &grpc.UnaryServerInfo{FullMethod: idnodev1.ClusterService_RemoveNode_FullMethodName}
	from := func(ip string, md ...string) context.Context {
		ctx := peer.NewContext(context.Background(), &peer.Peer{Addr: &net.TCPAddr{IP: net.ParseIP(ip), Port: 5000}})
		return metadata.NewIncomingContext(ctx, metadata.Pairs(md...))
	}
	// The chain as the client port runs it: audit outside authorize.
	call := func(ctx context.Context, info *grpc.UnaryServerInfo, req any, answer error) {
		_, _ = s.audit(ctx, req, info, func(ctx context.Context, req any) (any, error) {
			return s.authorize(ctx, req, info, func(context.Context, any) (any, error) { return nil, answer })
		})
	}
	adminCert := &x509.Certificate{Subject: pkix.Name{CommonName: "ops", OrganizationalUnit: []string{tlsconfig.AdminUnit}},
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}
	withCert := peer.NewContext(context.Background(), &peer.Peer{
		Addr:     &net.TCPAddr{IP: net.ParseIP("10.0.0.9"), Port: 6000},
		AuthInfo: credentials.TLSInfo{State: tls.ConnectionState{VerifiedChains: [][]*x509.Certificate{{adminCert}}}},
	})

	call(from("10.1.2.3", "authorization", "Bearer s3cret", "x-forwarded-for", "1.2.3.4", "user", "mallory"), remove,
		&idnodev1.RemoveNodeRequest{Tag: "Q"}, nil)
	call(from("10.1.2.3", "x-forwarded-for", "1.2.3.4"), remove, &idnodev1.RemoveNodeRequest{Tag: "Q"}, nil)
	call(from("10.1.2.3", "authorization", "Bearer guess"), remove, &idnodev1.RemoveNodeRequest{Tag: "Q"}, nil)
	call(withCert, remove, &idnodev1.RemoveNodeRequest{Tag: "Q"}, status.Error(codes.Unavailable, "no quorum"))
	call(from("10.1.2.3", "authorization", "Bearer s3cret"), &grpc.UnaryServerInfo{FullMethod: idnodev1.IdService_Generate_FullMethodName},
		&idnodev1.GenerateRequest{}, nil)
	restore := &grpc.StreamServerInfo{FullMethod: idnodev1.ClusterService_Restore_FullMethodName}
	_ = s.auditStream(nil, auditStream{ctx: from("10.1.2.3", "authorization", "Bearer s3cret")}, restore, func(any, grpc.ServerStream) error {
		return status.Error(codes.FailedPrecondition, "the backup's cluster used node tags A")
	})

	if err := jsonlog.CheckAll(buf.Bytes()); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "1.2.3.4") || strings.Contains(buf.String(), "mallory") || strings.Contains(buf.String(), "s3cret") {
		t.Errorf("the audit log writes what the caller claimed, or its token:\n%s", buf.String())
	}
	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		var m map[string]any
		if err := json.Unmarshal([]byte(l), &m); err != nil {
			t.Fatal(err)
		}
		req, _ := json.Marshal(m["request"])
		got = append(got, strings.Join([]string{m["level"].(string), m["msg"].(string), str(m["method"]), str(m["via"]), str(m["peer"]),
			str(m["cert"]), str(m["credential"]), str(m["code"]), string(req)}, " | "))
	}
	want := []string{
		`INFO | admin call done | RemoveNode | grpc | 10.1.2.3:5000 |  | admin_token |  | {"tag":"Q"}`,
		`WARN | admin call refused | RemoveNode | grpc | 10.1.2.3:5000 |  | none | Unauthenticated | {"tag":"Q"}`,
		`WARN | admin call refused | RemoveNode | grpc | 10.1.2.3:5000 |  | rejected_token | Unauthenticated | {"tag":"Q"}`,
		`INFO | admin call refused | RemoveNode | grpc | 10.0.0.9:6000 | CN=ops,OU=idnode-admin | client_cert | Unavailable | {"tag":"Q"}`,
		`WARN | admin call refused | Restore | grpc | 10.1.2.3:5000 |  | admin_token | FailedPrecondition | null`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("audit lines:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

func str(v any) string {
	if v == nil {
		return ""
	}
	return v.(string)
}
