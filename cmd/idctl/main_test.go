package main

import (
	"flag"
	"io"
	"slices"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

func TestFlagsMayComeAnywhere(t *testing.T) {
	for _, c := range []struct {
		args []string
		pos  []string
		n    int64
		addr string
	}{
		{[]string{"orders|", "-n", "5"}, []string{"orders|"}, 5, "127.0.0.1:7070"},
		{[]string{"-n", "5", "orders|"}, []string{"orders|"}, 5, "127.0.0.1:7070"},
		{[]string{"--addr", "x:1", "orders|", "--n=2"}, []string{"orders|"}, 2, "x:1"},
		{[]string{"--", "-orders|"}, []string{"-orders|"}, 1, "127.0.0.1:7070"},
		{[]string{"a", "--", "-b", "-n", "3"}, []string{"a", "-b", "-n", "3"}, 1, "127.0.0.1:7070"},
	} {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		g := &globals{}
		g.register(fs, scopeDatabase)
		n := fs.Int64("n", 1, "")
		pos, err := parseInterspersed(fs, c.args)
		if err != nil || !slices.Equal(pos, c.pos) || *n != c.n || g.addr != c.addr {
			t.Errorf("parse %q: pos %q, n %d, addr %s, %v", c.args, pos, *n, g.addr, err)
		}
	}
	flags, rest := leadingFlags([]string{"--addr", "x:1", "--json", "--timeout=3s", "status", "--consistent"})
	if !slices.Equal(flags, []string{"--addr", "x:1", "--json", "--timeout=3s"}) || !slices.Equal(rest, []string{"status", "--consistent"}) {
		t.Errorf("leadingFlags: %q, %q", flags, rest)
	}
}

func TestEnvironmentFillsGlobalFlags(t *testing.T) {
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	g := &globals{}
	g.register(fs, scopeDatabase)
	if err := fs.Parse([]string{"--tls-ca", "flag.crt"}); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"IDNODE_ADDR": "a:1,b:2", "IDNODE_ADMIN_TOKEN": "admin", "IDNODE_TLS_CA": "env.crt"}
	if err := applyEnv(fs, func(k string) string { return env[k] }, g); err != nil {
		t.Fatal(err)
	}
	if g.addr != "a:1,b:2" || g.token != "admin" || g.tlsCA != "flag.crt" {
		t.Errorf("globals %+v", g)
	}
	env["IDNODE_TOKEN"] = "tok"
	g = &globals{}
	fs = flag.NewFlagSet("t", flag.ContinueOnError)
	g.register(fs, scopeDatabase)
	_ = fs.Parse(nil)
	if err := applyEnv(fs, func(k string) string { return env[k] }, g); err != nil || g.token != "tok" {
		t.Errorf("IDNODE_TOKEN must win over IDNODE_ADMIN_TOKEN: %+v, %v", g, err)
	}
}

func TestExitCodesAndOneLineErrors(t *testing.T) {
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{nil, exitUsage, ""},
		{[]string{"help"}, exitOK, ""},
		{[]string{"nope"}, exitUsage, "unknown command"},
		{[]string{"hilo"}, exitUsage, ""}, // lists hilo's subcommands on stdout
		{[]string{"seed", "x"}, exitUsage, "wrong number of arguments"},
		{[]string{"seed", "x", "y"}, exitUsage, "not a whole number"},
		{[]string{"hilo", "seed", "orders"}, exitUsage, "wrong number of arguments"},
		{[]string{"hilo", "seed", "orders", "5k"}, exitUsage, "not a whole number"},
		{[]string{"status", "--timeout", "0s"}, exitUsage, "--timeout"},
		{[]string{"next", "x", "--addr", " , "}, exitUsage, "--addr is empty"},
		{[]string{"next", "x", "--tls-cert", "c.crt"}, exitUsage, "both --tls-cert and --tls-key"},
		{[]string{"restore", "/nonexistent/backup"}, exitFail, "backup file"},
	} {
		code, _, errOut := runIdctl(t, c.args...)
		if code != c.code || !strings.Contains(errOut, c.msg) || strings.Count(errOut, "\n") > 1 {
			t.Errorf("idctl %q: exit %d, stderr %q; want exit %d mentioning %q", c.args, code, errOut, c.code, c.msg)
		}
	}
}

func TestDescribe(t *testing.T) {
	if got := describe(status.Error(codes.InvalidArgument, "bad")); got != "INVALID_ARGUMENT: bad" {
		t.Errorf("describe = %q", got)
	}
	if got := describe(status.Error(codes.DeadlineExceeded, "x")); !strings.HasPrefix(got, "DEADLINE_EXCEEDED: no answer within --timeout") {
		t.Errorf("describe = %q", got)
	}
}
