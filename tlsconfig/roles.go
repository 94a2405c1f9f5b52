package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"slices"
)

// AdminUnit is the organizational unit (OU=idnode-admin in the subject) that gives a client
// certificate signed by the cluster's CA the admin role: a node takes admin calls from its
// holder with no admin token (`idctl certs client NAME --admin` issues one). The subject, not a
// SAN, because every CA tool sets it (openssl -subj "/CN=alice/OU=idnode-admin").
const AdminUnit = "idnode-admin"

// IsAdmin reports whether a verified certificate carries the admin role.
func IsAdmin(cert *x509.Certificate) bool {
	return slices.Contains(cert.Subject.OrganizationalUnit, AdminUnit)
}

// IsNode reports whether a verified certificate is a node's: one a server may present
// (extended key usage serverAuth or any, or none at all, which allows every use). A client
// certificate carries clientAuth alone, so the CA that signs both cannot make a client a node.
func IsNode(cert *x509.Certificate) bool {
	if len(cert.ExtKeyUsage) == 0 && len(cert.UnknownExtKeyUsage) == 0 {
		return true
	}
	return slices.ContainsFunc(cert.ExtKeyUsage, func(u x509.ExtKeyUsage) bool {
		return u == x509.ExtKeyUsageServerAuth || u == x509.ExtKeyUsageAny
	})
}

// GrantsAdmin reports whether a TLS connection's client presented a certificate that verified
// against the CA and carries the admin role or is a node's (a node certificate can speak Raft,
// so it holds every power already).
func GrantsAdmin(cs tls.ConnectionState) bool {
	if len(cs.VerifiedChains) == 0 || len(cs.VerifiedChains[0]) == 0 {
		return false
	}
	leaf := cs.VerifiedChains[0][0]
	return IsAdmin(leaf) || IsNode(leaf)
}

// Client-certificate policies of a node's client port (--tls-client-auth).
const (
	// ClientAuthRequest verifies a certificate when a client presents one, and takes clients
	// without one too: the default.
	ClientAuthRequest = "request"
	// ClientAuthRequire refuses, at the handshake, every client without a certificate signed
	// by the CA.
	ClientAuthRequire = "require"
)

// ParseClientAuth reads a --tls-client-auth value.
func ParseClientAuth(s string) (tls.ClientAuthType, error) {
	switch s {
	case ClientAuthRequest:
		return tls.VerifyClientCertIfGiven, nil
	case ClientAuthRequire:
		return tls.RequireAndVerifyClientCert, nil
	}
	return 0, fmt.Errorf("%q is not a client-certificate policy: use %s (verify one when given) or %s (refuse clients without one)",
		s, ClientAuthRequest, ClientAuthRequire)
}

// onlyNodes is Peer's VerifyConnection: the other end of a node-to-node connection must hold a
// node certificate, not merely one the CA signed.
func onlyNodes(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return nil // the handshake's own policy decides
	}
	if leaf := cs.PeerCertificates[0]; !IsNode(leaf) {
		return fmt.Errorf("certificate %q is a client's (no serverAuth usage): only node certificates (idctl certs node) may speak on a node's peer port", leaf.Subject.CommonName)
	}
	return nil
}
