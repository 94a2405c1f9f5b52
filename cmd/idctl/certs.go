package main

import (
	"errors"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/idnode/idnode/internal/tlsconfig"
)

func init() {
	commands = append(commands,
		command{name: "certs ca", args: "[--dir certs]", summary: "create a self-signed CA (ca.crt, ca.key) for a cluster without a PKI",
			maxArgs: 0, flags: certsCACmd, scope: scopeLocal},
		command{name: "certs node", args: "<name> [--host h,…] [--dir certs]", summary: "issue a node certificate <name>.crt/.key (OU=" + tlsconfig.NodeUnit + ", serverAuth and clientAuth) from the CA in --dir, valid for 127.0.0.1, localhost and --host",
			minArgs: 1, maxArgs: 1, flags: certsNodeCmd, scope: scopeLocal},
		command{name: "certs client", args: "<name> [--admin] [--dir certs]", summary: "issue a client certificate <name>.crt/.key from the CA in --dir; --admin gives it the admin role (OU=" + tlsconfig.AdminUnit + ")",
			minArgs: 1, maxArgs: 1, flags: certsClientCmd, scope: scopeLocal},
	)
}

const day = 24 * time.Hour

func certsCACmd(fs *flag.FlagSet) func(*env, []string) error {
	dir := fs.String("dir", "certs", "directory to write ca.crt and ca.key to")
	days := fs.Int("days", 3650, "validity in days")
	force := fs.Bool("force", false, "overwrite an existing CA (every certificate it issued stops being trusted)")
	return func(e *env, _ []string) error {
		if *days < 1 {
			return usagef("--days must be at least 1")
		}
		ca, err := tlsconfig.NewAuthority("idnode CA", time.Duration(*days)*day)
		if err != nil {
			return err
		}
		if err := writeFiles(*dir, *force, map[string][]byte{"ca.crt": ca.CertPEM, "ca.key": ca.KeyPEM}); err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s and %s (keep ca.key secret; only ca.crt goes to nodes and clients)\n",
			filepath.Join(*dir, "ca.crt"), filepath.Join(*dir, "ca.key"))
		return nil
	}
}

func certsNodeCmd(fs *flag.FlagSet) func(*env, []string) error {
	cf := certFlags(fs, 825)
	hosts := fs.String("host", "", "comma-separated extra host names and IP addresses the certificate is valid for (e.g. raft-a,idnode-a)")
	return func(e *env, args []string) error {
		sans := []string{"127.0.0.1", "::1", "localhost"}
		for _, h := range strings.Split(*hosts, ",") {
			if h = strings.TrimSpace(h); h != "" {
				sans = append(sans, h)
			}
		}
		crt, key, err := cf.issue(args[0], func(ca *tlsconfig.Authority, name string, validity time.Duration) ([]byte, []byte, error) {
			return ca.Issue(name, sans, validity)
		})
		if err != nil {
			return err
		}
		fmt.Fprintf(e.stdout, "wrote %s and %s (node certificate, OU=%s) for %s\n", crt, key, tlsconfig.NodeUnit, strings.Join(sans, ", "))
		return nil
	}
}

func certsClientCmd(fs *flag.FlagSet) func(*env, []string) error {
	cf := certFlags(fs, 365)
	admin := fs.Bool("admin", false, "give the certificate the admin role: nodes take admin calls from it with no admin token")
	return func(e *env, args []string) error {
		crt, key, err := cf.issue(args[0], func(ca *tlsconfig.Authority, name string, validity time.Duration) ([]byte, []byte, error) {
			return ca.IssueClient(name, *admin, validity)
		})
		if err != nil {
			return err
		}
		role := "client"
		if *admin {
			role = "admin client"
		}
		fmt.Fprintf(e.stdout, "wrote %s and %s (%s certificate; use with --tls-cert and --tls-key)\n", crt, key, role)
		return nil
	}
}

// issuing holds what issuing a node or client certificate needs: where the CA is, where the
// files go, how long the certificate is valid, and whether to overwrite existing files.
type issuing struct {
	dir   *string
	days  *int
	force *bool
}

func certFlags(fs *flag.FlagSet, days int) issuing {
	return issuing{
		dir:   fs.String("dir", "certs", "directory holding ca.crt and ca.key, and to write <name>.crt and <name>.key to"),
		days:  fs.Int("days", days, "validity in days"),
		force: fs.Bool("force", false, "overwrite existing files"),
	}
}

// issue checks name, lets sign make a certificate and key signed by the CA in dir, writes
// them to <name>.crt and <name>.key, and returns their paths.
func (c issuing) issue(name string, sign func(ca *tlsconfig.Authority, name string, validity time.Duration) (crt, key []byte, err error)) (crtPath, keyPath string, err error) {
	if name, err = certName(name, *c.days); err != nil {
		return "", "", err
	}
	ca, err := loadCA(*c.dir)
	if err != nil {
		return "", "", err
	}
	crt, key, err := sign(ca, name, time.Duration(*c.days)*day)
	if err != nil {
		return "", "", err
	}
	if err := writeFiles(*c.dir, *c.force, map[string][]byte{name + ".crt": crt, name + ".key": key}); err != nil {
		return "", "", err
	}
	return filepath.Join(*c.dir, name+".crt"), filepath.Join(*c.dir, name+".key"), nil
}

// certName checks a certificate's name (it becomes its files' names and common name) and
// validity.
func certName(name string, days int) (string, error) {
	if name == "" || strings.ContainsAny(name, `/\`) || name == "ca" {
		return "", usagef("name %q must be a plain file name other than ca", name)
	}
	if days < 1 {
		return "", usagef("--days must be at least 1")
	}
	return name, nil
}

// loadCA reads the CA `idctl certs ca` wrote into dir.
func loadCA(dir string) (*tlsconfig.Authority, error) {
	certPEM, err := os.ReadFile(filepath.Join(dir, "ca.crt"))
	if err != nil {
		return nil, fmt.Errorf("read the CA (create one with idctl certs ca): %w", err)
	}
	keyPEM, err := os.ReadFile(filepath.Join(dir, "ca.key"))
	if err != nil {
		return nil, fmt.Errorf("read the CA key: %w", err)
	}
	return tlsconfig.LoadAuthority(certPEM, keyPEM)
}

// writeFiles writes files into dir (keys readable by the owner only), refusing to overwrite
// unless force.
func writeFiles(dir string, force bool, files map[string][]byte) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if !force {
		for name := range files {
			if _, err := os.Stat(filepath.Join(dir, name)); !errors.Is(err, fs.ErrNotExist) {
				return fmt.Errorf("%s exists; use --force to overwrite it", filepath.Join(dir, name))
			}
		}
	}
	for name, data := range files {
		// Certificates are 0644, so that a container user other than the owner can read a
		// mounted one. Key files are 0600; an operator who needs the same for a key loosens
		// its mode by hand.
		mode := os.FileMode(0o644)
		if strings.HasSuffix(name, ".key") {
			mode = 0o600
		}
		if err := os.WriteFile(filepath.Join(dir, name), data, mode); err != nil {
			return err
		}
	}
	return nil
}
