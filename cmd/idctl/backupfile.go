package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/durablefile"
)

// passphraseEnv holds a backup passphrase for scripts. A passphrase is never an argument,
// where ps and the shell's history would show it (docs/backups.md, "Encrypted backups").
const passphraseEnv = "IDNODE_BACKUP_PASSPHRASE"

// maxPassphraseFile bounds what idctl reads of --passphrase-file: a passphrase is a line, and
// a file much larger than that is the wrong file.
const maxPassphraseFile = 64 << 10

// passphraseFlag is --passphrase-file, with IDNODE_BACKUP_PASSPHRASE when it is not given.
type passphraseFlag struct{ file string }

func (p *passphraseFlag) register(fs *flag.FlagSet, use string) {
	fs.StringVar(&p.file, "passphrase-file", "", use+" (else "+passphraseEnv+" holds the passphrase itself)")
}

// passphrase is a backup passphrase and where it came from, for messages.
type passphrase struct {
	bytes []byte // nil: none given
	from  string
}

// get reads the passphrase: --passphrase-file's first line (one trailing newline is not part
// of it), else IDNODE_BACKUP_PASSPHRASE, else none.
func (p *passphraseFlag) get(e *env) (passphrase, error) {
	if p.file == "" {
		if v := e.getenv(passphraseEnv); v != "" {
			return passphrase{[]byte(v), passphraseEnv}, nil
		}
		return passphrase{}, nil
	}
	f, err := os.Open(p.file)
	if err != nil {
		return passphrase{}, fmt.Errorf("%w: %w", errPassphraseFile, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxPassphraseFile+1))
	switch {
	case err != nil:
		return passphrase{}, fmt.Errorf("%w %s: %w", errPassphraseFile, p.file, err)
	case len(b) > maxPassphraseFile:
		return passphrase{}, fmt.Errorf("%w %s is larger than %d KiB: a passphrase is one line", errPassphraseFile, p.file, maxPassphraseFile>>10)
	}
	b = bytes.TrimSuffix(b, []byte("\n"))
	b = bytes.TrimSuffix(b, []byte("\r"))
	if len(b) == 0 {
		return passphrase{}, fmt.Errorf("%w %s is empty", errPassphraseFile, p.file)
	}
	return passphrase{b, "--passphrase-file " + p.file}, nil
}

// backupOut is where idctl backup writes: standard output for "-", else a temporary file
// beside path that commit makes path, durably.
type backupOut struct {
	io.Writer
	path string
	tmp  *os.File // nil for standard output
}

func createBackupOut(e *env, path string) (*backupOut, error) {
	if path == "-" {
		return &backupOut{Writer: e.stdout, path: path}, nil
	}
	// CreateTemp makes the file 0600: a backup may hold the keys of opaque IDs.
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return nil, fmt.Errorf("backup file: %w", err)
	}
	return &backupOut{Writer: namedWriter{tmp, path}, path: path, tmp: tmp}, nil
}

// commit makes the temporary file path: fsync it, rename it over path, fsync the directory,
// so that a backup reported written is still there, whole, after a power cut.
func (o *backupOut) commit() error {
	if o.tmp == nil {
		return nil
	}
	err := o.tmp.Sync()
	if cerr := o.tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(o.tmp.Name(), o.path)
	}
	if err == nil {
		err = durablefile.SyncDir(filepath.Dir(o.path))
	}
	if err != nil {
		return fmt.Errorf("backup file: %w", err)
	}
	o.tmp = nil
	return nil
}

// discard removes the temporary file of a backup that was not committed.
func (o *backupOut) discard() {
	if o.tmp != nil {
		_ = o.tmp.Close()
		_ = os.Remove(o.tmp.Name())
	}
}

// backupIn is a backup file opened for reading, decrypted when it is encrypted.
type backupIn struct {
	io.Reader
	encrypted bool
	close     func() error
	// what names the backup in restore's summary: the file, or the object and its target.
	what string
}

// openBackup opens the backup file at path ("-": standard input) and decodes it (decodeBackup).
func openBackup(e *env, path string, pass passphrase) (*backupIn, error) {
	var src io.Reader = e.stdin
	closeSrc := func() error { return nil }
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return nil, fmt.Errorf("backup file: %w", err)
		}
		src, closeSrc = f, f.Close
	}
	in, err := decodeBackup(e, src, "backup file "+path, pass)
	if err != nil {
		closeSrc()
		return nil, err
	}
	in.close = closeSrc
	return in, nil
}

// decodeBackup reads the backup src, named what in messages, and tells an encrypted one by its
// header. An encrypted backup needs the passphrase, and its first chunk is read here, so that a
// wrong passphrase is an error before anything is sent. A plain backup with a passphrase given
// is read as it is, and idctl says so.
func decodeBackup(e *env, src io.Reader, what string, pass passphrase) (*backupIn, error) {
	in := &backupIn{close: func() error { return nil }}
	br := bufio.NewReader(src)
	prefix, err := br.Peek(len(backupcrypt.Magic))
	if err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if !backupcrypt.IsEncrypted(prefix) {
		if pass.bytes != nil {
			fmt.Fprintf(e.stderr, "idctl: %s is not encrypted: reading it as it is, without the passphrase from %s\n", what, pass.from)
		}
		in.Reader = br
		return in, nil
	}
	if pass.bytes == nil {
		return nil, fmt.Errorf("%s: %w", what, errNeedPassphrase)
	}
	r, err := backupcrypt.NewReader(br, pass.bytes)
	if err != nil {
		return nil, fmt.Errorf("%s (passphrase from %s): %w", what, pass.from, err)
	}
	in.Reader, in.encrypted = r, true
	return in, nil
}
