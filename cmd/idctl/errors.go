package main

import (
	"context"
	"errors"
	"strings"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// The sentinel errors of idctl.
var (
	// errMarginSyntax is what --ahead and --hilo-ahead say about a value they cannot read.
	errMarginSyntax = errors.New("a margin is N, P% or N+P% in whole numbers (e.g. 1000, 10%, 1000+10%)")
	// errNeedPassphrase: an encrypted backup file, and no passphrase to read it with.
	errNeedPassphrase = errors.New("it is encrypted: give its passphrase with --passphrase-file FILE or in " + passphraseEnv)
	// errPassphraseFile: --passphrase-file names a file that holds no usable passphrase.
	errPassphraseFile = errors.New("passphrase file")
	// errNoTable and errNoColumn: a database's catalogue has no table or column adopt was
	// asked to read.
	errNoTable  = errors.New("no such table")
	errNoColumn = errors.New("no such column")
	// errBackupDigest: a stored backup's bytes do not hash to its digest object's SHA-256.
	errBackupDigest = errors.New("digest mismatch")
	// errNotRestorable: a stored backup matches its digest but is no backup a restore takes.
	errNotRestorable = errors.New("not a backup that would restore")
)

// hint explains the usual cause of a connection that breaks at once: TLS on one side only.
func (s *session) hint(err error) string {
	msg := status.Convert(err).Message()
	switch {
	case !s.tls && (strings.Contains(msg, "server preface") || strings.Contains(msg, "connection reset")):
		return " (does the node use TLS? then give --tls-ca)"
	case s.tls && strings.Contains(msg, "first record does not look like a TLS handshake"):
		return " (the node does not use TLS: leave out --tls-ca)"
	}
	return ""
}

// describe formats a gRPC error as "CODE: message".
func describe(err error) string {
	st, ok := status.FromError(err)
	if !ok {
		return err.Error()
	}
	code := strings.ToUpper(snake(st.Code().String()))
	if errors.Is(err, context.DeadlineExceeded) || st.Code() == codes.DeadlineExceeded {
		return code + ": no answer within --timeout"
	}
	return code + ": " + st.Message()
}

// snake turns "InvalidArgument" into "Invalid_Argument".
func snake(s string) string {
	var b strings.Builder
	for i, r := range s {
		if i > 0 && r >= 'A' && r <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(r)
	}
	return b.String()
}
