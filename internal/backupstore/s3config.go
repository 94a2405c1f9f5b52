package backupstore

import (
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
)

// S3Config says where an S3 store is and how to get in.
type S3Config struct {
	// Endpoint is the service's host and port, with no scheme: "s3.eu-west-1.amazonaws.com",
	// "minio.internal:9000".
	Endpoint string
	// TLS speaks HTTPS to the endpoint; CAFile, if set, is the PEM file of the CA that signed
	// its certificate (otherwise the system's CAs).
	TLS    bool
	CAFile string
	// Bucket must exist; Prefix, if set, is the "folder" in it the backups go under.
	Bucket string
	Prefix string
	// Region is the bucket's region; "us-east-1", which most other services accept, if empty.
	Region string
	// CredentialsFile is a file in the AWS shared credentials format (an ini file whose
	// [default] section holds aws_access_key_id and aws_secret_access_key). Without it the
	// credentials come from the environment: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY.
	CredentialsFile string
	// Timeout bounds the wait for a connection and for each answer's headers, and NewS3's
	// whole check: 30 s if zero.
	Timeout time.Duration
}

func (c S3Config) timeout() time.Duration { return timeoutOr(c.Timeout, 30*time.Second) }

func (c S3Config) prefix() string {
	p := strings.Trim(c.Prefix, "/")
	if p == "" {
		return ""
	}
	return p + "/"
}

func (c S3Config) url() string {
	if c.TLS {
		return "https://" + c.Endpoint
	}
	return "http://" + c.Endpoint
}

// client makes the S3 client: credentials read now (so a missing file or variable is named
// here), a transport with cfg's timeouts, and few retries, so an endpoint that does not answer
// is reported within a bound, not after minutes of backing off.
func (c S3Config) client() (*minio.Client, error) {
	if c.Endpoint == "" || c.Bucket == "" {
		return nil, fmt.Errorf("backupstore: S3 needs an endpoint and a bucket (endpoint %q, bucket %q)", c.Endpoint, c.Bucket)
	}
	creds, err := c.credentials()
	if err != nil {
		return nil, err
	}
	transport, err := c.transport()
	if err != nil {
		return nil, err
	}
	region := c.Region
	if region == "" {
		region = "us-east-1"
	}
	client, err := minio.New(c.Endpoint, &minio.Options{
		Creds:        creds,
		Secure:       c.TLS,
		Transport:    transport,
		Region:       region,
		BucketLookup: minio.BucketLookupPath,
		MaxRetries:   3,
	})
	if err != nil {
		return nil, fmt.Errorf("backupstore: S3 endpoint %s: %w", c.url(), err)
	}
	return client, nil
}

func (c S3Config) credentials() (*credentials.Credentials, error) {
	var creds *credentials.Credentials
	var from string
	if c.CredentialsFile != "" {
		if _, err := os.Stat(c.CredentialsFile); err != nil {
			return nil, fmt.Errorf("backupstore: S3 credentials file: %w", err)
		}
		creds, from = credentials.NewFileAWSCredentials(c.CredentialsFile, "default"), "the [default] section of "+c.CredentialsFile
	} else {
		creds, from = credentials.NewEnvAWS(), "the environment (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY)"
	}
	v, err := creds.GetWithContext(nil)
	if err != nil {
		return nil, fmt.Errorf("backupstore: S3 credentials from %s: %w", from, err)
	}
	if v.AccessKeyID == "" || v.SecretAccessKey == "" {
		return nil, fmt.Errorf("backupstore: no S3 credentials in %s: both an access key id and a secret are needed", from)
	}
	return creds, nil
}

func (c S3Config) transport() (*http.Transport, error) {
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.DialContext = (&net.Dialer{Timeout: c.timeout(), KeepAlive: 30 * time.Second}).DialContext
	t.TLSHandshakeTimeout = c.timeout()
	t.ResponseHeaderTimeout = c.timeout()
	if c.TLS {
		t.TLSClientConfig = &tls.Config{MinVersion: tls.VersionTLS12}
		if c.CAFile != "" {
			pem, err := os.ReadFile(c.CAFile)
			if err != nil {
				return nil, fmt.Errorf("backupstore: S3 CA file: %w", err)
			}
			pool := x509.NewCertPool()
			if !pool.AppendCertsFromPEM(pem) {
				return nil, fmt.Errorf("backupstore: S3 CA file %s holds no PEM certificate", c.CAFile)
			}
			t.TLSClientConfig.RootCAs = pool
		}
	}
	return t, nil
}

// timeoutOr is d, or def when d is not set.
func timeoutOr(d, def time.Duration) time.Duration {
	if d > 0 {
		return d
	}
	return def
}
