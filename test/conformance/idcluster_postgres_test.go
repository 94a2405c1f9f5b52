//go:build linux

package conformance_test

import (
	"context"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/idnode/idnode/test/conformance/conformancetest"
	"github.com/idnode/idnode/test/helpers/postgres"
)

// idcluster's postgres command starts one private server per run, answers with the same one
// when asked again, and stops it at teardown: the Java and TypeScript clients' database
// examples run against it.
func TestControlProgramServesPostgres(t *testing.T) {
	binDir, err := postgres.BinDir()
	conformancetest.Need(t, "PostgreSQL (apt-get install postgresql)", err == nil)
	cp := startControlProgram(t, conformancetest.Env(t))
	first, err := cp.send(map[string]any{"cmd": "postgres"})
	if err != nil {
		t.Fatal(err)
	}
	pg, _ := first["postgres"].(map[string]any)
	dsn, _ := pg["dsn"].(string)
	if !strings.HasPrefix(dsn, "postgres://"+postgres.User+"@127.0.0.1:") || pg["user"] != postgres.User || pg["database"] != postgres.Database {
		t.Fatalf("the answer %v: want the server's dsn, user and database", first)
	}
	again, err := cp.send(map[string]any{"cmd": "postgres"})
	if err != nil || again["postgres"].(map[string]any)["dsn"] != dsn {
		t.Fatalf("asked again: %v, %v; want the same server at %s", again, err, dsn)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, filepath.Join(binDir, "psql"), "-XAtq", "-d", dsn, "-c", "SELECT 40 + 2").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "42" {
		t.Fatalf("psql against %s: %q, %v", dsn, out, err)
	}
	if _, err := cp.send(map[string]any{"cmd": "teardown"}); err != nil {
		t.Fatal(err)
	}
	host, port, _ := strings.Cut(pg["addr"].(string), ":")
	if err := exec.CommandContext(ctx, filepath.Join(binDir, "pg_isready"), "-q", "-h", host, "-p", port).Run(); err == nil {
		t.Fatalf("the server at %s still answers after teardown", pg["addr"])
	}
}
