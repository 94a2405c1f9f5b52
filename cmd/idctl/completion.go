package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
)

// completionWords are the first words of every command (status, hilo, …) and, per group, the
// second words (hilo: next return seed), from the command table, so completion never lags it.
func completionWords() (top []string, sub map[string][]string) {
	sub = map[string][]string{}
	for _, c := range commands {
		first, second, ok := strings.Cut(c.name, " ")
		if !slices.Contains(top, first) {
			top = append(top, first)
		}
		if ok {
			sub[first] = append(sub[first], second)
		}
	}
	top = append(top, "completion", "help")
	slices.Sort(top)
	return top, sub
}

// globalFlagNames are the flags completed after a "-".
const globalFlagNames = "--addr --token --tls-ca --tls-cert --tls-key --tls-server-name --timeout --json --db --key --help"

// runCompletion is `idctl completion bash|zsh|fish`: a script to source (bash, zsh) or save
// under ~/.config/fish/completions (fish).
func runCompletion(args []string, stdout, stderr io.Writer) int {
	if len(args) != 1 {
		fmt.Fprintln(stderr, "idctl: completion takes one shell: bash, zsh or fish (source <(idctl completion bash))")
		return exitUsage
	}
	switch args[0] {
	case "bash":
		fmt.Fprint(stdout, bashCompletion())
	case "zsh":
		// zsh runs the bash function through its bashcompinit layer.
		fmt.Fprint(stdout, "#compdef idctl\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion())
	case "fish":
		fmt.Fprint(stdout, fishCompletion())
	case "-h", "--help":
		fmt.Fprintln(stdout, "Usage: idctl completion bash|zsh|fish\n  print a shell completion script: source <(idctl completion bash)")
	default:
		fmt.Fprintf(stderr, "idctl: completion for %q: the shells are bash, zsh and fish\n", args[0])
		return exitUsage
	}
	return exitOK
}

func bashCompletion() string {
	top, sub := completionWords()
	var b strings.Builder
	b.WriteString("# idctl completion for bash: source <(idctl completion bash)\n_idctl() {\n")
	b.WriteString("    local cur=${COMP_WORDS[COMP_CWORD]}\n")
	fmt.Fprintf(&b, "    if [[ $cur == -* ]]; then\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return\n    fi\n", globalFlagNames)
	fmt.Fprintf(&b, "    if [[ $COMP_CWORD -eq 1 ]]; then\n        COMPREPLY=($(compgen -W %q -- \"$cur\"))\n        return\n    fi\n", strings.Join(top, " "))
	b.WriteString("    if [[ $COMP_CWORD -eq 2 ]]; then\n        case ${COMP_WORDS[1]} in\n")
	for _, g := range sortedKeys(sub) {
		fmt.Fprintf(&b, "        %s) COMPREPLY=($(compgen -W %q -- \"$cur\")) ;;\n", g, strings.Join(sub[g], " "))
	}
	fmt.Fprintf(&b, "        completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")) ;;\n")
	b.WriteString("        esac\n    fi\n}\ncomplete -o default -F _idctl idctl\n")
	return b.String()
}

func fishCompletion() string {
	top, sub := completionWords()
	var b strings.Builder
	b.WriteString("# idctl completion for fish: idctl completion fish > ~/.config/fish/completions/idctl.fish\n")
	fmt.Fprintf(&b, "complete -c idctl -f -n __fish_use_subcommand -a %q\n", strings.Join(top, " "))
	for _, g := range sortedKeys(sub) {
		fmt.Fprintf(&b, "complete -c idctl -f -n \"__fish_seen_subcommand_from %s\" -a %q\n", g, strings.Join(sub[g], " "))
	}
	b.WriteString("complete -c idctl -f -n \"__fish_seen_subcommand_from completion\" -a \"bash zsh fish\"\n")
	for _, f := range strings.Fields(globalFlagNames) {
		fmt.Fprintf(&b, "complete -c idctl -l %s\n", strings.TrimPrefix(f, "--"))
	}
	return b.String()
}

func sortedKeys(m map[string][]string) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
