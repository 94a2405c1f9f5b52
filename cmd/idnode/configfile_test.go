package main

import (
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "idnode.toml")
	if err := os.WriteFile(path, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// A flag wins over IDNODE_<FLAG>, which wins over the file, which wins over the default.
func TestConfigFilePrecedence(t *testing.T) {
	path := writeConfig(t, `
tag = "C"
data-dir = "/var/lib/idnode"
max-count = 500
election-wait = "750ms"
log-format = "json"
peers = ["A=a:7000", "B=b:7000", "C=c:7000"]
`)
	c := mustParse(t, []string{"--config", path, "--tag", "B"}, map[string]string{"IDNODE_MAX_COUNT": "600"})
	if c.tag != "B" {
		t.Errorf("tag = %q: the flag must win over the file", c.tag)
	}
	if c.maxCount != 600 {
		t.Errorf("max-count = %d: IDNODE_MAX_COUNT must win over the file", c.maxCount)
	}
	if c.dataDir != "/var/lib/idnode" || c.electionWait != 750*time.Millisecond || c.logFormat != "json" || len(c.peers) != 3 {
		t.Errorf("from the file: data-dir %q, election-wait %v, log-format %q, peers %v", c.dataDir, c.electionWait, c.logFormat, c.peers)
	}
	if c.grpcAddr != "127.0.0.1:7070" {
		t.Errorf("grpc-addr = %q: a key the file lacks keeps its default", c.grpcAddr)
	}
	// IDNODE_CONFIG names the file as well as --config.
	if c := mustParse(t, nil, map[string]string{"IDNODE_CONFIG": path}); c.dataDir != "/var/lib/idnode" {
		t.Errorf("IDNODE_CONFIG: data-dir %q", c.dataDir)
	}
}

func TestConfigFileErrorsNameTheFileAndKey(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{`data_dir = "x"`, `unknown key "data_dir"`},
		{`version = true`, `unknown key "version"`},
		{`max-count = "many"`, `max-count = "many": expected a whole number`},
		{`election-wait = 5`, `election-wait = "5": expected a duration like 1s`},
		{`peers = [1, 2]`, "strings only"},
		{`tls = { cert = "a" }`, `unknown key "tls"`},
		{`tag = `, "config file"},
	} {
		path := writeConfig(t, tc.text)
		_, err := parseConfig([]string{"--config", path}, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: %v; want an error naming %s and %q", tc.text, err, path, tc.want)
		}
	}
	if _, err := parseConfig([]string{"--config", filepath.Join(t.TempDir(), "missing.toml")}, nil, io.Discard); err == nil {
		t.Error("a missing config file was accepted")
	}
}

// -h lists every subcommand and is not an error; so is `idnode health -h`.
func TestHelpListsSubcommandsAndSucceeds(t *testing.T) {
	var usage strings.Builder
	if err := run(t.Context(), []string{"-h"}, nil, &usage, io.Discard); err != nil {
		t.Fatalf("idnode -h: %v", err)
	}
	for _, want := range []string{"idnode health", "idnode version", "--config", "-http-addr"} {
		if !strings.Contains(usage.String(), want) {
			t.Errorf("idnode -h does not mention %q:\n%s", want, usage.String())
		}
	}
	var out strings.Builder
	if err := runHealth(t.Context(), []string{"-h"}, func(string) string { return "" }, &out); err != nil || !strings.Contains(out.String(), "-addr") {
		t.Errorf("idnode health -h: %v, %q; want its flags and no error", err, out.String())
	}
}
