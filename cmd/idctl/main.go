// Command idctl is the operator's tool for an idnode cluster: status, IDs, identities, HiLo,
// membership, leadership, backup and restore, and TLS certificates for a test or small
// cluster. It talks gRPC to any node (--addr, or IDNODE_ADDR; a comma-separated list is tried
// in order when a node is UNAVAILABLE); the nodes forward to the leader themselves.
//
// Exit codes: 0 done, 1 the call failed, 2 bad usage.
//
// It uses the standard flag package with a small subcommand table rather than cobra: a dozen
// commands with a few flags each need no more, the flag handling (IDNODE_* environment
// fallback, one-line errors) matches idnode's own, and the module gains no dependency.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"google.golang.org/protobuf/proto"

	"github.com/idnode/idnode/client"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// Exit codes.
const (
	exitOK    = 0
	exitFail  = 1
	exitUsage = 2
)

// usageError means idctl was called wrongly: it exits with status 2 and prints a hint where
// to look.
type usageError struct{ msg string }

func (e usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return usageError{fmt.Sprintf(format, args...)} }

// command is one entry of the command table.
type command struct {
	name    string // "status", "hilo next", …
	args    string // positional arguments, for the usage line
	summary string
	minArgs int
	maxArgs int
	// flags declares the command's own flags; run gets their values through the closure.
	flags func(fs *flag.FlagSet) func(env *env, args []string) error
	// scope says which of the global flags apply, so -h lists only those.
	scope flagScope
}

// flagScope is which global flags a command takes.
type flagScope int

const (
	scopeCluster  flagScope = iota // talks to a cluster: --addr, --token, TLS, --timeout, --json
	scopeDatabase                  // works in one database: also --db and --key
	scopeLocal                     // talks to nobody (certs, version): --json only
)

// env is what a command runs with.
type env struct {
	ctx    context.Context
	g      *globals
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
	cl     *session // dialled lazily: certs needs none
}

func (e *env) client() (*session, error) {
	if e.cl == nil {
		cl, err := newSession(e.ctx, e.g)
		if err != nil {
			return nil, err
		}
		e.cl = cl
	}
	return e.cl, nil
}

// call makes one call to the cluster through this command's session, which it dials on first
// use. An error names the call by what and lists every node tried (see session.call).
func (e *env) call(what string, fn func(ctx context.Context, c *client.Client) error) error {
	s, err := e.client()
	if err != nil {
		return err
	}
	return s.call(e.ctx, what, func(ctx context.Context) error { return fn(ctx, s.c) })
}

// answered makes the call named rpc with fn and prints its answer: as protobuf JSON with
// --json, otherwise in the form text writes.
func answered[M proto.Message](e *env, rpc string, fn func(ctx context.Context, c *client.Client) (M, error), text func(w io.Writer, m M) error) error {
	var m M
	if err := e.call(rpc, func(ctx context.Context, c *client.Client) (err error) {
		m, err = fn(ctx, c)
		return err
	}); err != nil {
		return err
	}
	if e.g.json {
		return printProto(e.stdout, m)
	}
	return text(e.stdout, m)
}

// allPages reads a whole listing. It calls page with each page token in turn, starting from
// "", and stops when an answer carries no next token, carries the token it was asked with,
// or has no entries (n is 0). The last two stop a node that answers the same page again from
// keeping idctl in a loop, as client.Identities does.
func allPages(e *env, rpc string, page func(ctx context.Context, c *client.Client, token string) (next string, n int, err error)) error {
	for token := ""; ; {
		var next string
		var n int
		if err := e.call(rpc, func(ctx context.Context, c *client.Client) (err error) {
			next, n, err = page(ctx, c, token)
			return err
		}); err != nil {
			return err
		}
		if next == "" || next == token || n == 0 {
			return nil
		}
		token = next
	}
}

// change makes the call named rpc with fn, which changes name, and then reports the change:
// as {"<verb>": name} with --json, otherwise by printing sentence.
func (e *env) change(rpc string, fn func(ctx context.Context, c *client.Client) error, verb, name, sentence string) error {
	if err := e.call(rpc, fn); err != nil {
		return err
	}
	if e.g.json {
		return printJSON(e.stdout, map[string]string{verb: name})
	}
	fmt.Fprintln(e.stdout, sentence)
	return nil
}

// globals are the flags every command takes.
type globals struct {
	addr          string
	token         string
	tlsCA         string
	tlsCert       string
	tlsKey        string
	tlsServerName string
	timeout       time.Duration
	json          bool
	db            string
	key           string
}

func (g *globals) register(fs *flag.FlagSet, scope flagScope) {
	fs.BoolVar(&g.json, "json", false, "print JSON instead of text")
	if scope == scopeLocal {
		return
	}
	fs.StringVar(&g.addr, "addr", "127.0.0.1:7070", "gRPC address of a node, or a comma-separated list tried in order (IDNODE_ADDR)")
	fs.StringVar(&g.token, "token", "", "admin token for admin calls (IDNODE_TOKEN, else IDNODE_ADMIN_TOKEN)")
	fs.StringVar(&g.tlsCA, "tls-ca", "", "CA certificate to verify the nodes with; turns TLS on (IDNODE_TLS_CA)")
	fs.StringVar(&g.tlsCert, "tls-cert", "", "client certificate to present, if the cluster wants one (IDNODE_TLS_CERT)")
	fs.StringVar(&g.tlsKey, "tls-key", "", "key of --tls-cert (IDNODE_TLS_KEY)")
	fs.StringVar(&g.tlsServerName, "tls-server-name", "", "name to expect in the node's certificate (default: the host in --addr)")
	fs.DurationVar(&g.timeout, "timeout", 10*time.Second, "time limit of one call to one node")
	if scope != scopeDatabase {
		return
	}
	fs.StringVar(&g.key, "key", "", "API key for the ID commands, once the cluster has keys (IDNODE_KEY)")
	fs.StringVar(&g.db, "db", "", "database the ID commands work in (IDNODE_DB; default: the database \"default\")")
	fs.StringVar(&g.db, "database", "", "the same as --db")
}

var commands []command // filled by init in commands.go and certs.go

func lookup(args []string) (*command, []string) {
	// Longest match first: "hilo next" before "hilo".
	for words := 2; words >= 1; words-- {
		if len(args) < words {
			continue
		}
		name := strings.Join(args[:words], " ")
		for i := range commands {
			if commands[i].name == name {
				return &commands[i], args[words:]
			}
		}
	}
	return nil, args
}

func run(ctx context.Context, args []string, getenv func(string) string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 1 && args[0] == "help" {
		args = append(args[1:], "-h") // idctl help hilo next: idctl hilo next -h
	}
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printUsage(stdout)
		if len(args) == 0 {
			return exitUsage
		}
		return exitOK
	}
	if args[0] == "completion" {
		return runCompletion(args[1:], stdout, stderr)
	}
	if args[0] == "--version" || args[0] == "-version" {
		args = append([]string{"version"}, args[1:]...)
	}
	pre, args := leadingFlags(args)
	cmd, rest := lookup(args)
	rest = append(pre, rest...)
	if cmd == nil && len(args) > 0 {
		if cmds := group(args[0]); cmds != nil && (len(args) == 1 || isHelp(args[1])) {
			printGroupHelp(stdout, args[0], cmds)
			if len(args) == 1 {
				return exitUsage // a group alone is incomplete, like idctl alone
			}
			return exitOK
		}
	}
	if cmd == nil {
		fmt.Fprintf(stderr, "idctl: unknown command %q (see idctl help)\n", strings.Join(args[:min(len(args), 2)], " "))
		return exitUsage
	}
	fs := flag.NewFlagSet("idctl "+cmd.name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	g := &globals{}
	g.register(fs, cmd.scope)
	runCmd := cmd.flags(fs)
	pos, err := parseInterspersed(fs, rest)
	if errors.Is(err, flag.ErrHelp) {
		printCommandHelp(stdout, cmd, fs)
		return exitOK
	}
	if err == nil {
		err = applyEnv(fs, getenv, g)
	}
	if err == nil && (len(pos) < cmd.minArgs || len(pos) > cmd.maxArgs) {
		err = usagef("wrong number of arguments (%d)", len(pos))
	}
	if err != nil {
		fmt.Fprintf(stderr, "idctl: %v (usage: idctl %s %s; see idctl %s -h)\n", err, cmd.name, cmd.args, cmd.name)
		return exitUsage
	}
	e := &env{ctx: ctx, g: g, stdin: stdin, stdout: stdout, stderr: stderr, getenv: getenv}
	defer func() {
		if e.cl != nil {
			e.cl.close()
		}
	}()
	if err := runCmd(e, pos); err != nil {
		var ue usageError
		if errors.As(err, &ue) {
			fmt.Fprintf(stderr, "idctl: %v (usage: idctl %s %s)\n", err, cmd.name, cmd.args)
			return exitUsage
		}
		fmt.Fprintf(stderr, "idctl: %s\n", oneLine(err.Error()))
		return exitFail
	}
	return exitOK
}

// leadingFlags splits off the global flags given before the command (`idctl --addr x status`)
// so they can be parsed with the command's own.
func leadingFlags(args []string) (flags, rest []string) {
	i := 0
	for i < len(args) && strings.HasPrefix(args[i], "-") && args[i] != "-" && args[i] != "--" {
		flags = append(flags, args[i])
		name := strings.TrimLeft(args[i], "-")
		if !strings.Contains(name, "=") && name != "json" && i+1 < len(args) {
			flags = append(flags, args[i+1]) // the value of a non-boolean flag
			i++
		}
		i++
	}
	return flags, args[i:]
}

// isHelp reports whether arg asks for help: -h, -help or --help.
func isHelp(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help"
}

func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// parseInterspersed lets flags come before, between and after positional arguments
// (`idctl next 'orders|' -n 5`), which the flag package alone does not. After "--" everything
// is positional.
func parseInterspersed(fs *flag.FlagSet, args []string) ([]string, error) {
	var pos []string
	for len(args) > 0 {
		if err := fs.Parse(args); err != nil {
			return nil, err
		}
		rest := fs.Args()
		// Parse stops at the first non-flag argument, or just after a "--" it consumed.
		if used := len(args) - len(rest); used > 0 && args[used-1] == "--" {
			return append(pos, rest...), nil
		}
		if len(rest) == 0 {
			break
		}
		pos = append(pos, rest[0])
		args = rest[1:]
	}
	return pos, nil
}

// applyEnv fills flags not given on the command line from IDNODE_<FLAG>.
func applyEnv(fs *flag.FlagSet, getenv func(string) string, g *globals) error {
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })
	envOf := map[string][]string{
		"addr": {"IDNODE_ADDR"}, "token": {"IDNODE_TOKEN", "IDNODE_ADMIN_TOKEN"},
		"tls-ca": {"IDNODE_TLS_CA"}, "tls-cert": {"IDNODE_TLS_CERT"}, "tls-key": {"IDNODE_TLS_KEY"},
		"tls-server-name": {"IDNODE_TLS_SERVER_NAME"}, "db": {"IDNODE_DB"}, "key": {"IDNODE_KEY"},
	}
	for name, v := range targetEnv {
		envOf[name] = []string{v}
	}
	for name, vars := range envOf {
		if set[name] || fs.Lookup(name) == nil {
			continue // given, or no flag of this command's
		}
		for _, v := range vars {
			if val := getenv(v); val != "" {
				if err := fs.Set(name, val); err != nil {
					return usagef("%s=%q: %v", v, val, err)
				}
				break
			}
		}
	}
	if fs.Lookup("timeout") != nil && g.timeout <= 0 {
		return usagef("--timeout must be positive")
	}
	if g.key != "" && g.token != "" {
		return usagef("--key and --token exclude each other: a call carries one credential (the admin token also opens the ID commands)")
	}
	return nil
}
