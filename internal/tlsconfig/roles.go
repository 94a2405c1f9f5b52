package tlsconfig

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"slices"
)

// A certificate the cluster's CA signed has a role only when it is marked for it: the mark is an
// organizational unit in its subject, and the role also needs the extended key usage it is for. A
// certificate with neither mark gets no role: it may make ID calls like any client, never admin
// calls, never Raft. Go's verifier accepts a certificate with no extended key usage for every use,
// and `openssl x509 -req` signs exactly that by default, so the usage alone (as before the node
// mark) made any certificate an operator's PKI handed out a node's, and so an admin. The subject,
// not a SAN, because every CA tool sets it on its command line (openssl -subj
// "/CN=alice/OU=idnode-admin").
const (
	// AdminUnit (OU=idnode-admin) with clientAuth gives a client certificate the admin role: a
	// node takes admin calls from its holder with no admin token (`idctl certs client NAME
	// --admin` issues one).
	AdminUnit = "idnode-admin"
	// NodeUnit (OU=idnode-node) with serverAuth makes a certificate a node's: it may speak on
	// the peer port (Raft, forwarding) and counts as admin on the client port (`idctl certs
	// node` issues one).
	NodeUnit = "idnode-node"
)

// IsAdmin reports whether a verified certificate carries the admin role: the admin mark and
// clientAuth.
func IsAdmin(cert *x509.Certificate) bool {
	return marked(cert, AdminUnit, x509.ExtKeyUsageClientAuth)
}

// IsNode reports whether a verified certificate is a node's: the node mark and serverAuth.
func IsNode(cert *x509.Certificate) bool {
	return marked(cert, NodeUnit, x509.ExtKeyUsageServerAuth)
}

// marked reports whether cert has unit among its subject's organizational units and usage
// among its extended key usages, named: "any" or none at all does not count.
func marked(cert *x509.Certificate, unit string, usage x509.ExtKeyUsage) bool {
	return slices.Contains(cert.Subject.OrganizationalUnit, unit) && slices.Contains(cert.ExtKeyUsage, usage)
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

// onlyNodes is the VerifyConnection of Peer: the other end of a node-to-node connection must
// hold a node certificate, not merely one the CA signed.
func onlyNodes(cs tls.ConnectionState) error {
	if len(cs.PeerCertificates) == 0 {
		return nil // the handshake's own policy decides
	}
	if leaf := cs.PeerCertificates[0]; !IsNode(leaf) {
		return fmt.Errorf("certificate %q is not a node's (it needs OU=%s and the serverAuth usage): only node certificates (idctl certs node) may speak on a node's peer port", leaf.Subject.CommonName, NodeUnit)
	}
	return nil
}
