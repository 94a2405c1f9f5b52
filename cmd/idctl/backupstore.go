package main

import (
	"bytes"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"

	"github.com/idnode/idnode/fsm"
	"github.com/idnode/idnode/internal/backupcrypt"
	"github.com/idnode/idnode/internal/backupstore"
)

// idctl backup list and verify read the backups a cluster schedules (docs/scheduled-backups.md)
// where they are, with the node's own reading of a target (backupstore.TargetFlags).

func init() {
	commands = append(commands,
		command{name: "backup list", args: "--target dir:/path|s3://bucket/prefix", summary: "the backups in a scheduled backups' target: name, size, when stored, age, digest; newest first",
			maxArgs: 0, flags: backupListCmd, scope: scopeLocal},
		command{name: "backup verify", args: "<name> --target T [--passphrase-file F]", summary: "check a backup in a target whole: its digest, passphrase, format and state digest; print what it holds",
			minArgs: 1, maxArgs: 1, flags: backupVerifyCmd, scope: scopeLocal},
	)
}

// targetEnv are the node's variables for its --backup-s3-* flags, which idctl's --s3-* flags
// read too: an operator who exported them for the node needs no flags here. The node's
// IDNODE_BACKUP_TARGET (targetVar) is read by backup list and verify only: restore takes a
// file unless --target is given.
var targetEnv = map[string]string{
	"s3-endpoint": "IDNODE_BACKUP_S3_ENDPOINT", "s3-region": "IDNODE_BACKUP_S3_REGION",
	"s3-tls": "IDNODE_BACKUP_S3_TLS", "s3-ca": "IDNODE_BACKUP_S3_CA", "s3-credentials-file": "IDNODE_BACKUP_S3_CREDENTIALS_FILE",
}

// targetVar is the node's variable for its --backup-target.
const targetVar = "IDNODE_BACKUP_TARGET"

// listTargetUse describes backup list's and verify's --target.
const listTargetUse = "where the backups are: dir:/path or s3://bucket/prefix, as the node's --backup-target (" + targetVar + "; --s3-* read IDNODE_BACKUP_S3_*)"

// targetFromEnv fills --target from the node's variable when it was not given.
func targetFromEnv(e *env, fs *flag.FlagSet) error {
	given := false
	fs.Visit(func(f *flag.Flag) { given = given || f.Name == "target" })
	if v := e.getenv(targetVar); v != "" && !given {
		if err := fs.Set("target", v); err != nil {
			return usagef("%s=%q: %v", targetVar, v, err)
		}
	}
	return nil
}

// registerTarget adds --target (described by use) and --s3-* to fs.
func registerTarget(fs *flag.FlagSet, use string) *backupstore.TargetFlags {
	var t backupstore.TargetFlags
	t.Register(fs, "", use)
	return &t
}

// openTarget parses the target flags of fs and opens the store, which must exist.
func openTarget(e *env, fs *flag.FlagSet, t *backupstore.TargetFlags) (backupstore.Store, error) {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	target, err := t.Parse(func(name string) bool { return set[name] })
	if err != nil {
		return nil, usagef("%v", err)
	}
	return target.Open(e.ctx, backupstore.ExistingFolder)
}

// backupRow is one backup as idctl backup list prints it.
type backupRow struct {
	Name       string    `json:"name"`
	Bytes      int64     `json:"bytes"`
	Stored     time.Time `json:"stored"`
	AgeSeconds int64     `json:"age_seconds"`
	// Digest says whether its digest object is there: a backup without one was cut off
	// before it was stored.
	Digest bool `json:"digest"`
}

func backupListCmd(fs *flag.FlagSet) func(*env, []string) error {
	where := registerTarget(fs, listTargetUse)
	return func(e *env, _ []string) error {
		if err := targetFromEnv(e, fs); err != nil {
			return err
		}
		store, err := openTarget(e, fs, where)
		if err != nil {
			return err
		}
		objects, err := store.List(e.ctx)
		if err != nil {
			return fmt.Errorf("target %s: %w", where.Spec(), err)
		}
		digests := map[string]bool{}
		for _, o := range objects {
			if name, ok := strings.CutSuffix(o.Name, backupstore.DigestSuffix); ok {
				digests[name] = true
			}
		}
		now := time.Now()
		var rows []backupRow
		for _, o := range objects {
			if !strings.HasSuffix(o.Name, backupstore.DigestSuffix) {
				rows = append(rows, backupRow{Name: o.Name, Bytes: o.Size, Stored: o.Modified.UTC(),
					AgeSeconds: int64(now.Sub(o.Modified).Seconds()), Digest: digests[o.Name]})
			}
		}
		slices.SortFunc(rows, func(a, b backupRow) int {
			if c := b.Stored.Compare(a.Stored); c != 0 {
				return c
			}
			return strings.Compare(b.Name, a.Name)
		})
		if !e.g.json && len(rows) == 0 {
			fmt.Fprintf(e.stdout, "no backups in %s\n", where.Spec())
			return nil
		}
		return printRows(e, rows, "NAME\tBYTES\tSTORED\tAGE\tDIGEST", func(r backupRow) string {
			digest := "yes"
			if !r.Digest {
				digest = "MISSING"
			}
			return fmt.Sprintf("%s\t%d\t%s\t%s\t%s", r.Name, r.Bytes, r.Stored.Format(time.RFC3339), time.Duration(r.AgeSeconds)*time.Second, digest)
		})
	}
}

// backupVerified is what idctl backup verify found in a backup.
type backupVerified struct {
	Name       string    `json:"name"`
	Bytes      int64     `json:"bytes"`
	SHA256     string    `json:"sha256"`
	Encrypted  bool      `json:"encrypted"`
	TakenAt    time.Time `json:"taken_at,omitzero"` // when the leader took it; zero in a backup of an older build
	Index      uint64    `json:"index"`
	State      string    `json:"state_digest"` // the state digest it carries and was checked against
	Identities int       `json:"identities"`
	HiLoTags   int       `json:"hilo_tags"`
	Claims     int       `json:"claims"`
	Series     int       `json:"series"`
	Workers    int       `json:"workers"`
	NodeTags   []string  `json:"node_tags"`
	HoldsKeys  bool      `json:"holds_keys"` // opaque keys: the backup is a secret
}

func backupVerifyCmd(fs *flag.FlagSet) func(*env, []string) error {
	where := registerTarget(fs, listTargetUse)
	var pp passphraseFlag
	pp.register(fs, "the passphrase of an encrypted backup is in this `file`, its first line")
	return func(e *env, args []string) error {
		name := args[0]
		if err := backupstore.ValidateName(name); err != nil {
			return usagef("%v", err)
		}
		pass, err := pp.get(e)
		if err != nil {
			return err
		}
		store, err := openTarget(e, fs, where)
		if err != nil {
			return err
		}
		v, err := verifyBackup(e, store, name, pass)
		if err != nil {
			return fmt.Errorf("backup %s in %s refused: %w", name, where.Spec(), err)
		}
		if e.g.json {
			return printJSON(e.stdout, v)
		}
		return printVerified(e.stdout, v)
	}
}

// verifyBackup downloads the backup name and checks it against its digest
// (backupstore.Download), decrypts it and reads it as a restore would, touching no cluster.
func verifyBackup(e *env, store backupstore.Store, name string, pass passphrase) (*backupVerified, error) {
	buf := &boundedBuffer{limit: maxStoredBackupBytes}
	sum, err := backupstore.Download(e.ctx, store, name, buf)
	var mismatch *backupstore.DigestError
	switch {
	case buf.over:
		return nil, fmt.Errorf("%s is larger than %d bytes: not one this idctl reads", name, buf.limit)
	case errors.Is(err, backupstore.ErrNoDigest):
		return nil, fmt.Errorf("%w: without %s%s the backup cannot be checked (a backup without its digest was cut off before the digest was stored)", err, name, backupstore.DigestSuffix)
	case errors.As(err, &mismatch):
		return nil, fmt.Errorf("%w: its %d bytes hash to %x, its digest says %x: the object is damaged or cut short, or the digest is not its own",
			errBackupDigest, mismatch.Got.Size, mismatch.Got.SHA256, mismatch.Want)
	case err != nil:
		return nil, err
	}
	in, err := decodeBackup(e, bytes.NewReader(buf.buf.Bytes()), "backup "+name, pass)
	if errors.Is(err, backupcrypt.ErrAuthentication) {
		return nil, fmt.Errorf("%w (the object matches its digest, so the passphrase is the wrong one)", err)
	}
	if err != nil {
		return nil, err
	}
	b, err := fsm.ReadBackup(&sizeBound{r: in, left: fsm.MaxBackupBytes})
	if err != nil {
		return nil, fmt.Errorf("%w: %w", errNotRestorable, err)
	}
	v := &backupVerified{Name: name, Bytes: sum.Size, SHA256: hex.EncodeToString(sum.SHA256[:]), Encrypted: in.encrypted,
		Index: b.Index, State: hex.EncodeToString(b.StateDigest), Identities: len(b.Identities), HiLoTags: len(b.HiLo),
		Claims: len(b.Claims), Series: len(b.Series), Workers: len(b.Workers), NodeTags: b.Tags, HoldsKeys: b.HoldsKeys()}
	if b.Rates.Recorded() {
		v.TakenAt = b.Rates.TakenAt.UTC()
	}
	if v.NodeTags == nil {
		v.NodeTags = []string{}
	}
	return v, nil
}

// maxStoredBackupBytes bounds what verify reads of a stored backup: a backup a restore takes
// (fsm.MaxBackupBytes), and its encryption's framing, which adds far less than 1/16.
const maxStoredBackupBytes = fsm.MaxBackupBytes + fsm.MaxBackupBytes/16

// boundedBuffer holds what Download writes, up to limit bytes: a write past it fails and
// sets over, so that verify stops reading an object larger than any backup it would take.
// The buffer is a field, not embedded: io.Copy would use an embedded bytes.Buffer's ReadFrom
// and read past the limit.
type boundedBuffer struct {
	buf   bytes.Buffer
	limit int64
	over  bool
}

func (b *boundedBuffer) Write(p []byte) (int, error) {
	if int64(b.buf.Len())+int64(len(p)) > b.limit {
		b.over = true
		return 0, fmt.Errorf("more than %d bytes", b.limit)
	}
	return b.buf.Write(p)
}

// sizeBound fails a read past left bytes: a restore refuses a backup larger than
// fsm.MaxBackupBytes.
type sizeBound struct {
	r    io.Reader
	left int64
}

func (s *sizeBound) Read(p []byte) (int, error) {
	n, err := s.r.Read(p)
	if s.left -= int64(n); s.left < 0 {
		return n, fmt.Errorf("the backup is larger than the %d bytes a restore takes", int64(fsm.MaxBackupBytes))
	}
	return n, err
}

func printVerified(w io.Writer, v *backupVerified) error {
	taken := "not recorded (an older build's backup)"
	if !v.TakenAt.IsZero() {
		taken = v.TakenAt.Format(time.RFC3339)
	}
	encrypted := "no"
	if v.Encrypted {
		encrypted = "yes, and the passphrase opens it"
	}
	state := "none carried (an older build's backup)"
	if v.State != "" {
		state = v.State + " (matches the state it holds)"
	}
	tags := strings.Join(v.NodeTags, " ")
	if tags == "" {
		tags = "none"
	}
	rows := [][2]string{
		{"bytes", fmt.Sprint(v.Bytes)}, {"sha256", v.SHA256 + " (matches its digest)"}, {"encrypted", encrypted},
		{"taken at", taken}, {"raft index", fmt.Sprint(v.Index)}, {"state digest", state},
		{"identities", fmt.Sprint(v.Identities)}, {"HiLo tags", fmt.Sprint(v.HiLoTags)}, {"claims", fmt.Sprint(v.Claims)},
		{"series", fmt.Sprint(v.Series)}, {"numeric workers", fmt.Sprint(v.Workers)}, {"node tags", tags},
	}
	if v.HoldsKeys {
		rows = append(rows, [2]string{"opaque keys", "yes: the backup is a secret"})
	}
	return printColumns(w, rows, "backup "+v.Name+" is whole and would restore:", func(r [2]string) string { return "  " + r[0] + "\t" + r[1] })
}
