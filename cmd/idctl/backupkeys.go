package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/idnode/idnode/fsm"
)

// keyScan follows a plain backup as idctl writes it, and names the databases whose opaque-ID
// keys it holds (fsm.BackupKeyDatabases): idctl backup then says that the file is a secret,
// without reading it again (it may be standard output, or encrypted).
type keyScan struct {
	pw    *io.PipeWriter
	done  chan struct{}
	names []string
	err   error
}

func startKeyScan() *keyScan {
	pr, pw := io.Pipe()
	s := &keyScan{pw: pw, done: make(chan struct{})}
	go func() {
		defer close(s.done)
		s.names, s.err = fsm.BackupKeyDatabases(pr)
		// A scan that stopped early still lets the backup be written: take the rest.
		_, _ = io.Copy(io.Discard, pr)
	}()
	return s
}

func (s *keyScan) Write(p []byte) (int, error) { return s.pw.Write(p) }

// finish ends the scan and returns what it found. It may be called more than once.
func (s *keyScan) finish() ([]string, error) {
	_ = s.pw.Close()
	<-s.done
	return s.names, s.err
}

// secretNote is what idctl backup says of a backup that holds the keys of databases names:
// that it is a secret, and, when it was not encrypted, how to encrypt it.
func secretNote(path string, names []string, scanErr error, encrypted bool) string {
	if path == "-" {
		path = "the backup on standard output"
	}
	var b strings.Builder
	switch {
	case scanErr != nil:
		fmt.Fprintf(&b, "idctl could not tell whether %s holds opaque-ID keys (%v): take it for a secret", path, scanErr)
	case len(names) == 0:
		return ""
	default:
		dbs, them := "database "+names[0], "that database"
		if len(names) > 1 {
			dbs, them = "databases "+strings.Join(names[:len(names)-1], ", ")+" and "+names[len(names)-1], "those databases"
		}
		fmt.Fprintf(&b, "%s holds the opaque-ID keys of %s: it is a secret, since whoever holds it reads every opaque ID of %s back", path, dbs, them)
	}
	if encrypted {
		b.WriteString("; keep its passphrase as you keep keys")
	} else {
		b.WriteString("; keep it as you keep keys (idctl backup --passphrase-file FILE encrypts it: docs/backups.md, \"Encrypted backups\")")
	}
	return b.String()
}
