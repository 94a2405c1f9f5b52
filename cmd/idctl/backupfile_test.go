package main

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/internal/backupcrypt"
)

// cheapParams keep these tests' KDF runs short; a reader takes the cost from the file.
var cheapParams = backupcrypt.Params{Time: 1, MemoryKiB: 8, Threads: 1, ChunkSize: 64}

// runIdctlEnv runs idctl's run with env as its environment.
func runIdctlEnv(t *testing.T, env map[string]string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, func(k string) string { return env[k] }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

func writeFile(t *testing.T, name string, data []byte) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// plainBackup stands for a backup file: what idctl reads of it here ends before any node.
var plainBackup = []byte("idnode-fsm-snapshot-v1\n" + strings.Repeat("state ", 50))

func encryptedBackup(t *testing.T, pass string) []byte {
	t.Helper()
	var b bytes.Buffer
	w, err := backupcrypt.NewWriter(&b, []byte(pass), cheapParams)
	if err == nil {
		_, err = w.Write(plainBackup)
	}
	if err == nil {
		err = w.Close()
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestPassphraseComesFromTheFileElseTheEnvironment(t *testing.T) {
	for _, c := range []struct {
		name, content, env, want, from string
	}{
		{"newline", "secret words\n", "", "secret words", "--passphrase-file"},
		{"crlf", "secret words\r\n", "", "secret words", "--passphrase-file"},
		{"no newline", "  spaces kept  ", "", "  spaces kept  ", "--passphrase-file"},
		{"the file wins", "from the file\n", "from the environment", "from the file", "--passphrase-file"},
		{"", "", "from the environment", "from the environment", passphraseEnv},
		{"", "", "", "", ""},
	} {
		p := passphraseFlag{}
		if c.name != "" {
			p.file = writeFile(t, "pass", []byte(c.content))
		}
		e := &env{getenv: func(k string) string {
			if k == passphraseEnv {
				return c.env
			}
			return ""
		}}
		got, err := p.get(e)
		if err != nil || string(got.bytes) != c.want || !strings.HasPrefix(got.from, c.from) {
			t.Errorf("%q with %s=%q: %q from %q, %v; want %q from %s", c.content, passphraseEnv, c.env, got.bytes, got.from, err, c.want, c.from)
		}
	}
	for name, content := range map[string][]byte{
		"empty": nil, "a newline alone": []byte("\n"), "too large": bytes.Repeat([]byte("x"), maxPassphraseFile+1),
	} {
		p := passphraseFlag{file: writeFile(t, "pass", content)}
		if got, err := p.get(&env{getenv: func(string) string { return "" }}); !errors.Is(err, errPassphraseFile) {
			t.Errorf("a passphrase file %s: %q, %v; want %v", name, got.bytes, err, errPassphraseFile)
		}
	}
}

// An encrypted backup is told by its header; without its passphrase, or with a wrong one, or
// damaged, restore fails before it calls any node, and says why.
func TestRestoreOfAnEncryptedBackupNeedsItsPassphrase(t *testing.T) {
	file := writeFile(t, "cluster.backup", encryptedBackup(t, "right words"))
	damaged := encryptedBackup(t, "right words")
	damaged[len(damaged)-3] ^= 1
	damagedFile := writeFile(t, "damaged.backup", damaged)
	wrong, right := writeFile(t, "wrong", []byte("wrong words\n")), writeFile(t, "right", []byte("right words\n"))
	noNode := []string{"--addr", "127.0.0.1:1", "--timeout", "1s"}
	for _, c := range []struct {
		args []string
		env  map[string]string
		msg  string
	}{
		{[]string{"restore", file}, nil, "is encrypted: give its passphrase with --passphrase-file FILE or in " + passphraseEnv},
		{[]string{"restore", file, "--passphrase-file", wrong}, nil, "wrong passphrase or the file was altered: chunk 0"},
		{[]string{"restore", file}, map[string]string{passphraseEnv: "wrong words"}, "wrong passphrase or the file was altered"},
		{[]string{"restore", damagedFile, "--passphrase-file", right}, nil, "wrong passphrase or the file was altered: chunk 5"},
		{[]string{"restore", writeFile(t, "cut.backup", encryptedBackup(t, "right words")[:100]), "--passphrase-file", right}, nil, "altered"},
	} {
		code, _, errOut := runIdctlEnv(t, c.env, append(c.args, noNode...)...)
		if code != exitFail || !strings.Contains(errOut, c.msg) || strings.Contains(errOut, "via 127.0.0.1:1") {
			t.Errorf("idctl %q: exit %d, stderr %q; want exit %d mentioning %q before any call", c.args, code, errOut, exitFail, c.msg)
		}
	}
}

// A plain backup with a passphrase given is restored as it is, and idctl says so.
func TestRestoreOfAPlainBackupWithAPassphraseSaysSo(t *testing.T) {
	file := writeFile(t, "cluster.backup", plainBackup)
	code, _, errOut := runIdctlEnv(t, map[string]string{passphraseEnv: "some words"}, "restore", file, "--addr", "127.0.0.1:1", "--timeout", "1s")
	// No node listens there: the restore fails at its call, after the note.
	want := "backup file " + file + " is not encrypted: reading it as it is, without the passphrase from " + passphraseEnv
	if code != exitFail || !strings.Contains(errOut, want) || !strings.Contains(errOut, "Restore") {
		t.Errorf("exit %d, stderr %q; want the note %q, then the failed call", code, errOut, want)
	}
}

func TestBackupOutCommitsOrLeavesNothing(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "cluster.backup")
	out, err := createBackupOut(&env{}, path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := out.Write([]byte("content")); err != nil {
		t.Fatal(err)
	}
	if err := out.commit(); err != nil {
		t.Fatal(err)
	}
	out.discard() // after commit: nothing to remove
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("the backup file: %v, %v; want mode 0600", st, err)
	}
	if got, _ := os.ReadFile(path); string(got) != "content" {
		t.Fatalf("the backup file holds %q", got)
	}

	out, err = createBackupOut(&env{}, filepath.Join(dir, "failed.backup"))
	if err != nil {
		t.Fatal(err)
	}
	out.discard()
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("after a discarded backup the directory holds %d entries, want the committed file alone", len(entries))
	}
}
