package main

import (
	"bytes"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// runIdctl runs idctl's run with no environment and returns its exit code and output.
func runIdctl(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(t.Context(), args, func(string) string { return "" }, strings.NewReader(""), &out, &errOut)
	return code, out.String(), errOut.String()
}

// Every command group lists its subcommands, alone (exit 2, like idctl alone) or with -h.
func TestGroupsListTheirSubcommands(t *testing.T) {
	for _, args := range [][]string{{"hilo"}, {"db"}, {"node"}, {"certs", "-h"}, {"help", "hilo"}} {
		code, out, errOut := runIdctl(t, args...)
		want := exitOK
		if len(args) == 1 {
			want = exitUsage
		}
		word := args[len(args)-1]
		if word == "-h" {
			word = args[0]
		}
		if code != want || !strings.Contains(out, "idctl "+word+" <command>") || errOut != "" {
			t.Errorf("idctl %q: exit %d, stdout %q, stderr %q; want exit %d and the subcommands", args, code, out, errOut, want)
		}
		for _, c := range group(word) {
			if !strings.Contains(out, c.name) {
				t.Errorf("idctl %q does not list %s", args, c.name)
			}
		}
	}
}

// Every help text fits 80 columns.
func TestHelpFits80Columns(t *testing.T) {
	texts := [][]string{{"help"}, {"hilo"}, {"certs", "-h"}}
	for _, c := range commands {
		texts = append(texts, append(strings.Fields(c.name), "-h"))
	}
	for _, args := range texts {
		_, out, _ := runIdctl(t, args...)
		for _, line := range strings.Split(out, "\n") {
			if n := len([]rune(line)); n > helpWidth {
				t.Errorf("idctl %q: a %d-column line: %q", args, n, line)
			}
		}
	}
}

// -h lists only the flags that apply: status takes no --db or --key, certs no --addr.
func TestHelpListsOnlyFlagsThatApply(t *testing.T) {
	for _, c := range []struct {
		args        []string
		want, avoid []string
	}{
		{[]string{"status", "-h"}, []string{"--addr", "--token", "--consistent"}, []string{"--db", "--key"}},
		{[]string{"next", "-h"}, []string{"--addr", "--db", "--key"}, nil},
		{[]string{"certs", "ca", "-h"}, []string{"--dir"}, []string{"--addr", "--token", "--db"}},
	} {
		code, out, _ := runIdctl(t, c.args...)
		if code != exitOK {
			t.Errorf("idctl %q: exit %d", c.args, code)
		}
		for _, w := range c.want {
			if !strings.Contains(out, w) {
				t.Errorf("idctl %q lacks %s:\n%s", c.args, w, out)
			}
		}
		for _, a := range c.avoid {
			if strings.Contains(out, a+" ") {
				t.Errorf("idctl %q lists %s, which does not apply:\n%s", c.args, a, out)
			}
		}
	}
	if code, _, errOut := runIdctl(t, "status", "--db", "x"); code != exitUsage || !strings.Contains(errOut, "-db") {
		t.Errorf("idctl status --db x: exit %d, %q; want a usage error", code, errOut)
	}
}

// The completion scripts load in their shells: bash for real (complete -p idctl), zsh and fish
// parsed (-n); in CI every shell must be there.
func TestCompletionScripts(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, script, errOut := runIdctl(t, "completion", shell)
		// backup's second words: its list and verify, beside backup FILE.
		if code != exitOK || !strings.Contains(script, "hilo") || !strings.Contains(script, "adopt") || !strings.Contains(script, `"list verify"`) || errOut != "" {
			t.Fatalf("idctl completion %s: exit %d, %q, %q", shell, code, script, errOut)
		}
		path := t.TempDir() + "/idctl." + shell
		if err := os.WriteFile(path, []byte(script), 0o600); err != nil {
			t.Fatal(err)
		}
		bin, err := exec.LookPath(shell)
		if err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is not installed: CI parses every completion script (.ci/run installs it)", shell)
			}
			t.Logf("%s not installed: its script is not parsed", shell)
			continue
		}
		check := exec.CommandContext(t.Context(), bin, "-n", path)
		if shell == "bash" {
			// Source it and complete "idctl hilo s": the function must offer "seed".
			check = exec.CommandContext(t.Context(), bin, "--norc", "-c",
				`source "$1" && complete -p idctl && COMP_WORDS=(idctl hilo s) COMP_CWORD=2 && _idctl && echo "${COMPREPLY[@]}"`, "bash", path)
		}
		out, err := check.CombinedOutput()
		if err != nil {
			t.Fatalf("%s with the idctl script: %v\n%s", shell, err, out)
		}
		if shell == "bash" && (!strings.Contains(string(out), "complete -o default -F _idctl idctl") || !strings.HasSuffix(strings.TrimSpace(string(out)), "seed")) {
			t.Errorf("bash: %q; want idctl's completion registered and hilo s completed to seed", out)
		}
	}
	if code, _, _ := runIdctl(t, "completion", "tcsh"); code != exitUsage {
		t.Errorf("idctl completion tcsh: exit %d, want %d", code, exitUsage)
	}
}
