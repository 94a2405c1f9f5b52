package tlsconfig

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"strings"
	"time"
)

// Authority is a CA that issues node certificates: self-signed, for a cluster that has no PKI
// of its own.
type Authority struct {
	Cert    *x509.Certificate
	Key     crypto.Signer
	CertPEM []byte
	KeyPEM  []byte
}

// NewAuthority creates a self-signed CA valid for validFor.
func NewAuthority(commonName string, validFor time.Duration) (*Authority, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, err
	}
	tmpl, err := template(commonName, validFor)
	if err != nil {
		return nil, err
	}
	tmpl.IsCA, tmpl.BasicConstraintsValid, tmpl.MaxPathLenZero = true, true, true
	tmpl.KeyUsage = x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, err
	}
	return authorityFrom(der, key)
}

// LoadAuthority reads a CA written by NewAuthority (its CertPEM and KeyPEM).
func LoadAuthority(certPEM, keyPEM []byte) (*Authority, error) {
	cb, _ := pem.Decode(certPEM)
	kb, _ := pem.Decode(keyPEM)
	if cb == nil || kb == nil {
		return nil, errors.New("CA certificate or key is not PEM")
	}
	key, err := x509.ParsePKCS8PrivateKey(kb.Bytes)
	if err != nil {
		return nil, fmt.Errorf("CA key: %w", err)
	}
	signer, ok := key.(crypto.Signer)
	if !ok {
		return nil, errors.New("CA key cannot sign")
	}
	return authorityFrom(cb.Bytes, signer)
}

func authorityFrom(der []byte, key crypto.Signer) (*Authority, error) {
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, err
	}
	if !cert.IsCA {
		return nil, errors.New("certificate is not a CA")
	}
	keyPEM, err := encodeKey(key)
	if err != nil {
		return nil, err
	}
	return &Authority{Cert: cert, Key: key, CertPEM: encodeCert(der), KeyPEM: keyPEM}, nil
}

// Issue signs a certificate for a node, good for both ends of a TLS connection (NodeUnit and
// serverAuth make it a node's: see IsNode). hosts are the names and IP addresses it is valid for
// (subject alternative names).
func (a *Authority) Issue(commonName string, hosts []string, validFor time.Duration) (certPEM, keyPEM []byte, err error) {
	tmpl, err := template(commonName, validFor)
	if err != nil {
		return nil, nil, err
	}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}
	tmpl.Subject.OrganizationalUnit = []string{NodeUnit}
	for _, h := range hosts {
		h = strings.TrimSpace(h)
		switch ip := net.ParseIP(h); {
		case h == "":
		case ip != nil:
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		default:
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	return a.sign(tmpl)
}

// IssueClient signs a certificate a client presents (clientAuth only, so no node accepts it
// as a node); with admin it carries the admin role (AdminUnit in its subject).
func (a *Authority) IssueClient(commonName string, admin bool, validFor time.Duration) (certPEM, keyPEM []byte, err error) {
	tmpl, err := template(commonName, validFor)
	if err != nil {
		return nil, nil, err
	}
	tmpl.ExtKeyUsage = []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}
	if admin {
		tmpl.Subject.OrganizationalUnit = []string{AdminUnit}
	}
	return a.sign(tmpl)
}

// sign gives tmpl a new key and signs it with the CA.
func (a *Authority) sign(tmpl *x509.Certificate) (certPEM, keyPEM []byte, err error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, err
	}
	tmpl.KeyUsage = x509.KeyUsageDigitalSignature
	der, err := x509.CreateCertificate(rand.Reader, tmpl, a.Cert, key.Public(), a.Key)
	if err != nil {
		return nil, nil, err
	}
	keyPEM, err = encodeKey(key)
	if err != nil {
		return nil, nil, err
	}
	return encodeCert(der), keyPEM, nil
}

func template(commonName string, validFor time.Duration) (*x509.Certificate, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return nil, err
	}
	now := time.Now()
	return &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: commonName, Organization: []string{"idnode"}},
		NotBefore:    now.Add(-time.Hour), // tolerate clocks a little behind
		NotAfter:     now.Add(validFor),
	}, nil
}

func encodeCert(der []byte) []byte {
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

func encodeKey(key crypto.Signer) ([]byte, error) {
	der, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return nil, err
	}
	return pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: der}), nil
}
