package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"net"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/internal/forward"
	"github.com/idnode/idnode/internal/tlsconfig"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// authorizationHeader carries "Bearer <admin token>" on operator calls.
const authorizationHeader = "authorization"

// adminMethods change the cluster or its counters in ways only an operator may; with an admin
// token configured they need it. SeedIdentity needs it only with force (see needsAdmin).
var adminMethods = map[string]bool{
	idnodev1.ClusterService_AddNode_FullMethodName:            true,
	idnodev1.ClusterService_RemoveNode_FullMethodName:         true,
	idnodev1.ClusterService_TransferLeadership_FullMethodName: true,
	idnodev1.ClusterService_Backup_FullMethodName:             true,
	idnodev1.ClusterService_Restore_FullMethodName:            true,
	idnodev1.ClusterService_CreateDatabase_FullMethodName:     true,
	idnodev1.ClusterService_DeleteDatabase_FullMethodName:     true,
	idnodev1.ClusterService_CreateKey_FullMethodName:          true,
	idnodev1.ClusterService_DeleteKey_FullMethodName:          true,
	idnodev1.ClusterService_ListKeys_FullMethodName:           true,
	idnodev1.ClusterService_SetClusterVersion_FullMethodName:  true,
	idnodev1.ClusterService_CheckReplicas_FullMethodName:      true,
	idnodev1.ClusterService_MakeOpaque_FullMethodName:         true,
}

func needsAdmin(method string, req any) bool {
	if method == idnodev1.IdService_SeedIdentity_FullMethodName {
		r, ok := req.(*idnodev1.SeedIdentityRequest)
		return ok && r.GetForce()
	}
	return adminMethods[method]
}

// authorize is a unary interceptor: with an admin token configured, admin calls must carry it.
// ID calls never need it. The servers run it as a step of unary or internalUnary
// (intercept.go); on its own it is the step's unit under test.
func (s *interceptors) authorize(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if err := s.checkAccess(ctx, s.callOf(ctx, info.FullMethod, req), req); err != nil {
		return nil, err
	}
	return handler(ctx, req)
}

// checkAccess is authorize's check of call c of req.
func (s *interceptors) checkAccess(ctx context.Context, c *call, req any) error {
	if needsAdmin(c.method, req) {
		return s.checkAdmin(ctx, c.method)
	}
	return s.checkKey(ctx, c)
}

// authorizeStream is authorize for streaming calls (Backup, Restore, Journal). A call that
// needs a key is checked when its request arrives, which names the database.
func (s *interceptors) authorizeStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if needsAdmin(info.FullMethod, nil) {
		if err := s.checkAdmin(ss.Context(), info.FullMethod); err != nil {
			return err
		}
	} else if roleFor(info.FullMethod) != "" {
		ss = &keyCheckedStream{ServerStream: ss, check: func(req any) error {
			return s.checkKey(ss.Context(), s.resolveCall(ss.Context(), info.FullMethod, req))
		}}
	}
	return handler(srv, ss)
}

// keyCheckedStream checks a stream's first request (a server-streaming call's only one)
// before the handler sees it.
type keyCheckedStream struct {
	grpc.ServerStream
	check   func(req any) error
	checked bool
}

func (k *keyCheckedStream) RecvMsg(m any) error {
	if err := k.ServerStream.RecvMsg(m); err != nil {
		return err
	}
	if k.checked {
		return nil
	}
	k.checked = true
	return k.check(m)
}

// checkAdmin lets an admin call through when its TLS client certificate (verified against the
// cluster's CA) carries the admin role or is a node's, or when it carries the admin token, or,
// on a node with no token configured, when it comes from this machine (loopback) or from
// another node of the cluster (which checked its own caller the same way): admin is never open
// to the network by default, while `go run ./cmd/idnode` needs no flag.
func (s *interceptors) checkAdmin(ctx context.Context, method string) error {
	if s.adminBy(ctx) != "" {
		return nil
	}
	if s.cfg.AdminToken != "" {
		return s.checkToken(ctx, method)
	}
	name := method[strings.LastIndexByte(method, '/')+1:]
	return status.Errorf(codes.PermissionDenied,
		"%s is an admin call, and this node has no admin token, so it takes admin calls only from its own machine: "+
			"start every node with --admin-token (IDNODE_ADMIN_TOKEN) and send it (idctl --token, client.WithAdminToken), "+
			"or, with TLS, present a client certificate with OU=%s (idctl certs client NAME --admin)", name, tlsconfig.AdminUnit)
}

// The rights by which a caller may make admin calls (checkAdmin), as WhoAmI names them.
const (
	adminByCertificate = "certificate"
	adminByToken       = "token"
	adminByNode        = "node"
	adminByLoopback    = "loopback"
)

// adminBy is the right by which the caller may make admin calls, "" for none: an admin client
// certificate; else the admin token when one is configured; else, on a node with no token,
// being another node of the cluster or on this machine's loopback.
func (s *core) adminBy(ctx context.Context) string {
	switch {
	case adminCertificate(ctx):
		return adminByCertificate
	case s.cfg.AdminToken != "":
		if s.hasAdminToken(ctx) {
			return adminByToken
		}
	case forward.FromNode(ctx):
		return adminByNode
	case fromLoopback(ctx):
		return adminByLoopback
	}
	return ""
}

// adminCertificate reports whether the caller presented a client certificate that verified
// against the cluster's CA and carries the admin role, or is a node's (with it `--join` needs
// no token under mTLS). A call through the HTTP gateway says what its HTTPS client presented.
func adminCertificate(ctx context.Context) bool {
	if c, ok := httpCallerFrom(ctx); ok {
		return c.AdminCert
	}
	p, ok := peer.FromContext(ctx)
	if !ok {
		return false
	}
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	return ok && tlsconfig.GrantsAdmin(info.State)
}

// fromLoopback reports whether the caller is on this machine's loopback: the call's peer, or
// for a call through the HTTP gateway (whose own peer is an in-process pipe), the HTTP client,
// which must also have asked for a loopback Host (HTTPCaller.loopback).
func fromLoopback(ctx context.Context) bool {
	if c, ok := httpCallerFrom(ctx); ok {
		return c.loopback()
	}
	p, ok := peer.FromContext(ctx)
	if !ok {
		return false
	}
	tcp, ok := p.Addr.(*net.TCPAddr)
	return ok && tcp.IP.IsLoopback()
}

// checkToken compares the caller's bearer token with the configured one in constant time
// (hashes first, so not even the length leaks).
func (s *interceptors) checkToken(ctx context.Context, method string) error {
	name := method[strings.LastIndexByte(method, '/')+1:]
	vals := metadata.ValueFromIncomingContext(ctx, authorizationHeader)
	if len(vals) == 0 {
		return status.Errorf(codes.Unauthenticated,
			"%s is an admin call and this cluster requires its admin token: send metadata %q (idctl --token or IDNODE_TOKEN)", name, "authorization: Bearer <token>")
	}
	if s.hasAdminToken(ctx) {
		return nil
	}
	return status.Errorf(codes.Unauthenticated, "%s: the admin token is wrong (expected authorization: Bearer <token>)", name)
}

// isAdmin reports whether the call carries an admin credential: an admin (or node) client
// certificate, or the admin token.
func (s *interceptors) isAdmin(ctx context.Context) bool {
	return adminCertificate(ctx) || s.hasAdminToken(ctx)
}

// hasAdminToken reports whether the call carries the configured admin token. When no token
// is configured, it reports false.
func (s *core) hasAdminToken(ctx context.Context) bool {
	if s.cfg.AdminToken == "" {
		return false
	}
	want := s.adminTokenSum()
	for _, token := range bearerTokens(ctx) {
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], want[:]) == 1 {
			return true
		}
	}
	return false
}

// tokenSum is the SHA-256 of an admin token, which a call's bearer tokens are compared with.
type tokenSum struct {
	token string
	sum   [sha256.Size]byte
}

// adminTokenSum is the SHA-256 of the admin token, hashed at its first use rather than on every
// call that carries a bearer token, which would add a hash to the cost of every such call.
func (s *core) adminTokenSum() *[sha256.Size]byte {
	if c := s.adminSum.Load(); c != nil && c.token == s.cfg.AdminToken {
		return &c.sum
	}
	c := &tokenSum{token: s.cfg.AdminToken, sum: sha256.Sum256([]byte(s.cfg.AdminToken))}
	s.adminSum.Store(c)
	return &c.sum
}

// withOwnToken adds this node's admin token to a call it makes itself (registering itself
// through the leader).
func (s *Server) withOwnToken(ctx context.Context) context.Context {
	if s.cfg.AdminToken == "" {
		return ctx
	}
	return metadata.AppendToOutgoingContext(ctx, authorizationHeader, "Bearer "+s.cfg.AdminToken)
}
