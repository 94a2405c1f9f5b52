package main

import (
	"bytes"
	"io"
	"strings"
	"testing"
)

// idnode --help, -h and help print the usage on stdout and succeed (idnode --help | grep tls);
// a usage error is an error, printed by main on stderr with exit 2.
func TestHelpGoesToStdout(t *testing.T) {
	for _, args := range [][]string{{"--help"}, {"-h"}, {"help"}} {
		var stdout, stderr bytes.Buffer
		if err := dispatch(t.Context(), args, nil, &stdout, &stderr); err != nil {
			t.Fatalf("idnode %q: %v", args, err)
		}
		if !strings.Contains(stdout.String(), "-tls-cert") || stderr.Len() != 0 {
			t.Errorf("idnode %q: stdout %q, stderr %q; want the flags on stdout only", args, stdout.String(), stderr.String())
		}
	}
	var stdout bytes.Buffer
	if err := dispatch(t.Context(), []string{"help", "health"}, nil, &stdout, io.Discard); err != nil || !strings.Contains(stdout.String(), "-service") {
		t.Errorf("idnode help health: %v, %q; want health's flags", err, stdout.String())
	}
	stdout.Reset()
	err := dispatch(t.Context(), []string{"--no-such-flag"}, nil, &stdout, io.Discard)
	if err == nil || stdout.Len() != 0 {
		t.Errorf("idnode --no-such-flag: %v, stdout %q; want an error and no usage on stdout", err, stdout.String())
	}
	if err := dispatch(t.Context(), []string{"help", "nonsense"}, nil, io.Discard, io.Discard); err == nil {
		t.Error("idnode help nonsense succeeded")
	}
}

// An empty variable means empty: IDNODE_HTTP_ADDR= turns HTTP off like --http-addr "".
func TestEmptyVariableMeansEmpty(t *testing.T) {
	c := mustParse(t, nil, map[string]string{"IDNODE_HTTP_ADDR": ""})
	if c.httpAddr != "" || !c.httpAddrSet {
		t.Errorf("IDNODE_HTTP_ADDR= gave http addr %q (set %v); want HTTP off", c.httpAddr, c.httpAddrSet)
	}
	if c := mustParse(t, nil, nil); c.httpAddr == "" {
		t.Error("without IDNODE_HTTP_ADDR HTTP is off; want the default address")
	}
}

// An unknown IDNODE_* variable is warned about by name, with the nearest known one; the
// node's own variables and idctl's are not.
func TestUnknownVariablesAreNamed(t *testing.T) {
	c := mustParse(t, nil, map[string]string{
		"IDNODE_DATADIR": "/x", "IDNODE_ADMIN_TOKEN": "t", "IDNODE_CONFIG": "", "IDNODE_ADDR": "a:1",
		"IDNODE_TOKEN": "t", "IDNODE_DB": "d", "IDNODE_FROBNICATE": "1", "HOME": "/root",
	})
	got := strings.Join(c.warnings, "\n")
	for _, want := range []string{
		"unknown variable IDNODE_DATADIR; did you mean IDNODE_DATA_DIR?",
		"unknown variable IDNODE_FROBNICATE (it is ignored)",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("warnings %q lack %q", got, want)
		}
	}
	if len(c.warnings) != 2 {
		t.Errorf("warnings %q; want exactly the two unknown variables", c.warnings)
	}
	if c.dataDir != "./idnode-data" {
		t.Errorf("IDNODE_DATADIR changed the data dir to %q", c.dataDir)
	}
}

// Every configuration error is reported at once, each saying what is expected.
func TestConfigErrorsInOnePass(t *testing.T) {
	_, err := parseConfig([]string{"--election-wait", "fast", "--log-level", "verbose", "--log-format", "xml", "--max-count", "many"},
		environ{"IDNODE_GRPC_IDLE_TIMEOUT": "soon", "IDNODE_PPROF": "perhaps"}, io.Discard)
	if err == nil {
		t.Fatal("bad configuration accepted")
	}
	for _, want := range []string{
		`--election-wait "fast": expected a duration like 1s`,
		`--log-level "verbose": expected one of debug, info, warn or error`,
		`--log-format must be text or json, got "xml"`,
		`--max-count "many": expected a whole number`,
		`IDNODE_GRPC_IDLE_TIMEOUT "soon": expected a duration like 1s`,
		`IDNODE_PPROF "perhaps": expected true or false`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q lacks %q", err, want)
		}
	}
}
