package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/idnode/idnode/internal/backupstore"
)

// latestBackup is the name that asks restore --target for the target's newest scheduled
// backup (backupstore.Newest).
const latestBackup = "latest"

// fetchedBackup is a backup downloaded from a target and checked against its digest, in a
// temp file (mode 0600: a backup may hold keys) that close removes.
type fetchedBackup struct {
	what string // the target and the object, for messages
	file *os.File
}

// fetch downloads the backup name ("latest": the newest) from the target into a temp file
// and checks it against the digest beside it, before anything is sent to the cluster: a
// backup that is damaged, cut short or missing its digest restores nothing. Every error
// names the target and the object.
func fetch(e *env, fs *flag.FlagSet, where *backupstore.TargetFlags, name string) (*fetchedBackup, error) {
	ctx, cancel := context.WithCancel(e.ctx)
	defer cancel()
	store, err := openTarget(e, fs, where)
	if err != nil {
		return nil, err
	}
	if name == latestBackup {
		objects, err := store.List(ctx)
		if err != nil {
			return nil, fmt.Errorf("--target %s: %w", where.Spec(), err)
		}
		if name, err = backupstore.Newest(objects); err != nil {
			return nil, fmt.Errorf("--target %s: %w", where.Spec(), err)
		}
	}
	what := "backup " + name + " in " + where.Spec()
	if err := backupstore.ValidateName(name); err != nil {
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	tmp, err := os.CreateTemp("", "idctl-restore-*")
	if err != nil {
		return nil, fmt.Errorf("%s: a temp file to download it into: %w", what, err)
	}
	b := &fetchedBackup{what: what, file: tmp}
	if _, err := backupstore.Download(ctx, store, name, tmp); err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	if _, err := tmp.Seek(0, io.SeekStart); err != nil {
		b.close()
		return nil, fmt.Errorf("%s: %w", what, err)
	}
	return b, nil
}

// close removes the temp file.
func (b *fetchedBackup) close() error {
	err := b.file.Close()
	if rerr := os.Remove(b.file.Name()); err == nil {
		err = rerr
	}
	return err
}

// openRestoreSource opens what restore reads: the backup file arg, or with --target (given
// on the command line: the node's IDNODE_BACKUP_TARGET does not turn a file into a name) the
// backup arg names in it ("latest": the newest), downloaded and checked first.
func openRestoreSource(e *env, fs *flag.FlagSet, where *backupstore.TargetFlags, arg string, pass passphrase) (*backupIn, error) {
	if !where.IsSet() {
		return openBackup(e, arg, pass)
	}
	b, err := fetch(e, fs, where, arg)
	if err != nil {
		return nil, err
	}
	in, err := decodeBackup(e, b.file, b.what, pass)
	if err != nil {
		b.close()
		return nil, err
	}
	in.close, in.what = b.close, b.what
	return in, nil
}
