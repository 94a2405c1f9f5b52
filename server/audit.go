package server

import (
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/json"
	"log/slog"
	"strings"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/peer"
	"google.golang.org/grpc/status"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/fsm"
)

// The audit log: every admin call that reaches a node's client port (or its HTTP
// gateway) is logged once, done or refused, with who asked as this node established it: the
// peer address of the connection (or of the HTTP client), the subject of a client certificate
// that verified against the cluster's CA, and which credential the node accepted. Nothing the
// caller says about itself in metadata is written, only what the node checked. A call a
// follower forwards to the leader is logged where it arrived, not again on the leader's
// internal server: the leader knows only which node forwarded it.

// maxAuditRequestBytes bounds the request written with an admin call: admin requests are a few
// names and numbers, and a log line is no place for more.
const maxAuditRequestBytes = 1024

// audited reports whether a call is an admin action: an admin call (needsAdmin), or one that
// needs an API key with the admin role.
func audited(method string, req any) bool {
	return needsAdmin(method, req) || roleFor(method) == fsm.RoleAdmin
}

// audit is a unary interceptor of the client port: it logs every admin action and refusal.
func (s *interceptors) audit(ctx context.Context, req any, info *grpc.UnaryServerInfo, handler grpc.UnaryHandler) (any, error) {
	if !audited(info.FullMethod, req) {
		return handler(ctx, req)
	}
	resp, err := handler(ctx, req)
	s.logAdminCall(ctx, info.FullMethod, req, err)
	return resp, err
}

// auditStream is audit for streaming calls (Backup, Restore).
func (s *interceptors) auditStream(srv any, ss grpc.ServerStream, info *grpc.StreamServerInfo, handler grpc.StreamHandler) error {
	if !audited(info.FullMethod, nil) {
		return handler(srv, ss)
	}
	err := handler(srv, ss)
	s.logAdminCall(ss.Context(), info.FullMethod, nil, err)
	return err
}

func (s *interceptors) logAdminCall(ctx context.Context, method string, req any, err error) {
	attrs := append([]any{"method", method[strings.LastIndexByte(method, '/')+1:]}, s.callerAttrs(ctx)...)
	if m, ok := req.(proto.Message); ok && proto.Size(m) > 0 {
		if b, mErr := (protojson.MarshalOptions{UseProtoNames: true}).Marshal(m); mErr == nil && len(b) <= maxAuditRequestBytes {
			attrs = append(attrs, "request", json.RawMessage(b))
		}
	}
	if err == nil {
		s.log.Info("admin call done", attrs...)
		return
	}
	st := status.Convert(err)
	attrs = append(attrs, "code", st.Code().String(), "err", st.Message())
	level := slog.LevelWarn
	switch st.Code() {
	case codes.Unavailable, codes.DeadlineExceeded, codes.Canceled:
		// No leader, or the caller gave up: the caller retries (a joining node asks until the
		// cluster has a leader), and health and metrics say the cluster has no quorum.
		level = slog.LevelInfo
	}
	s.log.Log(ctx, level, "admin call refused", attrs...)
}

// callerAttrs says who made a call, from what this node verified: via (grpc or http), peer
// (the address the connection or HTTP request came from), cert (the subject of a verified
// client certificate), and credential (see credential), with key_id for an API key.
func (s *interceptors) callerAttrs(ctx context.Context) []any {
	var attrs []any
	if c, ok := httpCallerFrom(ctx); ok {
		attrs = append(attrs, "via", "http")
		if c.Addr.IsValid() {
			attrs = append(attrs, "peer", c.Addr.String())
		}
	} else {
		attrs = append(attrs, "via", "grpc")
		if p, ok := peer.FromContext(ctx); ok {
			attrs = append(attrs, "peer", p.Addr.String())
			if subject := verifiedSubject(p); subject != "" {
				attrs = append(attrs, "cert", subject)
			}
		}
	}
	kind, keyID := s.credential(ctx)
	attrs = append(attrs, "credential", kind)
	if kind == credentialAPIKey {
		attrs = append(attrs, "key_id", keyID)
	}
	return attrs
}

// The credentials a call can prove, strongest first.
const (
	credentialClientCert    = "client_cert"
	credentialAdminToken    = "admin_token"
	credentialAPIKey        = "api_key"
	credentialLoopback      = "loopback"
	credentialRejectedToken = "rejected_token"
	credentialNone          = "none"
)

// credential is the first that holds of: an admin or node certificate (id: its subject), the
// admin token, an API key (id: the key's id), a loopback peer; else a bearer token that is
// none of these, or none at all.
func (s *core) credential(ctx context.Context) (kind, id string) {
	switch keyID := s.verifiedKeyID(ctx); {
	case adminCertificate(ctx):
		if p, ok := peer.FromContext(ctx); ok {
			id = verifiedSubject(p)
		}
		return credentialClientCert, id
	case s.hasAdminToken(ctx):
		return credentialAdminToken, ""
	case keyID != "":
		return credentialAPIKey, keyID
	case fromLoopback(ctx):
		return credentialLoopback, ""
	case len(bearerTokens(ctx)) > 0:
		return credentialRejectedToken, ""
	}
	return credentialNone, ""
}

// actorOf names the caller in a record that outlives the call (a series entry): the
// credential, and the key id or certificate subject when it has one ("api_key:4f2a…").
func (s *core) actorOf(ctx context.Context) string {
	kind, id := s.credential(ctx)
	if id == "" {
		return kind
	}
	return kind + ":" + id
}

// verifiedSubject is the subject of the client certificate of p's connection, when it verified
// against the cluster's CA; "" otherwise.
func verifiedSubject(p *peer.Peer) string {
	info, ok := p.AuthInfo.(credentials.TLSInfo)
	if !ok || len(info.State.VerifiedChains) == 0 || len(info.State.VerifiedChains[0]) == 0 {
		return ""
	}
	return info.State.VerifiedChains[0][0].Subject.String()
}

// verifiedKeyID is the id of the API key the call carries, when its secret matches the one
// this node holds; "". Unlike keyOf it does not wait for a key this node has not applied yet:
// the call has been answered by then, and keyOf waited if the key mattered.
func (s *core) verifiedKeyID(ctx context.Context) string {
	for _, token := range bearerTokens(ctx) {
		id, secret, ok := strings.Cut(strings.TrimPrefix(token, keyPrefix), "_")
		if !ok || !strings.HasPrefix(token, keyPrefix) {
			continue
		}
		k, ok := s.node.FSM().Key(id)
		if !ok {
			continue
		}
		sum := sha256.Sum256([]byte(secret))
		if subtle.ConstantTimeCompare(sum[:], k.SecretSHA256) == 1 {
			return id
		}
	}
	return ""
}
