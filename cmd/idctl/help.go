package main

import (
	"flag"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"
)

// helpWidth is the terminal width every help text fits.
const helpWidth = 80

// wrap breaks text into lines of at most width runes (a longer single word stays whole).
func wrap(text string, width int) []string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(text) {
		switch {
		case line == "":
			line = w
		case len([]rune(line))+1+len([]rune(w)) <= width:
			line += " " + w
		default:
			lines = append(lines, line)
			line = w
		}
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// printTable prints rows of (name, text): names in a column, texts wrapped beside them, or
// under them when the name leaves too little room.
func printTable(w io.Writer, rows [][2]string) {
	col := 0
	for _, r := range rows {
		col = max(col, len(r[0]))
	}
	const indent, gap, minText = 2, 2, 36
	textCol := indent + col + gap
	if helpWidth-textCol < minText {
		textCol = indent + 4
	}
	for _, r := range rows {
		lines := wrap(r[1], helpWidth-textCol)
		first := strings.Repeat(" ", indent) + r[0]
		if len(first)+gap > textCol {
			fmt.Fprintln(w, first)
		} else if len(lines) > 0 {
			first += strings.Repeat(" ", textCol-len(first)) + lines[0]
			lines = lines[1:]
			fmt.Fprintln(w, first)
		} else {
			fmt.Fprintln(w, first)
		}
		for _, l := range lines {
			fmt.Fprintln(w, strings.Repeat(" ", textCol)+l)
		}
	}
}

// printFlags lists fs's flags in printTable's layout, in place of flag.PrintDefaults, whose
// lines run as long as the usage texts.
func printFlags(w io.Writer, fs *flag.FlagSet) {
	var rows [][2]string
	fs.VisitAll(func(f *flag.Flag) {
		name, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if name != "" {
			left += " " + name
		}
		if f.DefValue != "" && f.DefValue != "false" && f.DefValue != "0" {
			usage += fmt.Sprintf(" (default %s)", f.DefValue)
		}
		rows = append(rows, [2]string{left, usage})
	})
	printTable(w, rows)
}

// printCommandHelp is `idctl <command> -h`.
func printCommandHelp(w io.Writer, cmd *command, fs *flag.FlagSet) {
	for i, l := range wrap("Usage: idctl "+cmd.name+" "+cmd.args, helpWidth-4) {
		if i > 0 {
			l = "    " + l
		}
		fmt.Fprintln(w, l)
	}
	for _, l := range wrap(cmd.summary, helpWidth-2) {
		fmt.Fprintln(w, "  "+l)
	}
	fmt.Fprintln(w, "\nFlags:")
	printFlags(w, fs)
}

// group returns the commands of the group that word names ("hilo" for hilo next, hilo return,
// …), or nil if word names no group.
func group(word string) []command {
	var cmds []command
	for _, c := range commands {
		if first, _, ok := strings.Cut(c.name, " "); ok && first == word {
			cmds = append(cmds, c)
		}
	}
	return cmds
}

// printGroupHelp is `idctl hilo` and `idctl hilo -h`: the group's subcommands.
func printGroupHelp(w io.Writer, word string, cmds []command) {
	fmt.Fprintf(w, "Usage: idctl %s <command> [arguments] [flags]\n\nCommands:\n", word)
	printCommandTable(w, cmds)
	fmt.Fprintf(w, "\n\"idctl %s <command> -h\" shows a command's arguments and flags.\n", word)
}

// printCommandTable lists commands by name with their summaries; arguments are in each
// command's -h, so the table fits helpWidth.
func printCommandTable(w io.Writer, cmds []command) {
	sorted := slices.Clone(cmds)
	sort.SliceStable(sorted, func(i, j int) bool { return sorted[i].name < sorted[j].name })
	rows := make([][2]string, len(sorted))
	for i, c := range sorted {
		rows[i] = [2]string{c.name, c.summary}
	}
	printTable(w, rows)
}

func printUsage(w io.Writer) {
	fmt.Fprintln(w, "Usage: idctl <command> [arguments] [flags]")
	fmt.Fprintln(w, "\nCommands:")
	printCommandTable(w, commands)
	fmt.Fprintln(w, "\nFlags of the commands that talk to a cluster (also from the environment):")
	printTable(w, [][2]string{
		{"--addr host:port,...", "node(s) to talk to; the next is tried on UNAVAILABLE (IDNODE_ADDR; default 127.0.0.1:7070)"},
		{"--token t", "admin token for admin calls (IDNODE_TOKEN or IDNODE_ADMIN_TOKEN)"},
		{"--tls-ca f", "TLS: the CA to verify nodes with (IDNODE_TLS_CA); also --tls-cert f --tls-key f (IDNODE_TLS_CERT, IDNODE_TLS_KEY) and --tls-server-name n"},
		{"--db name", "database of next, identities, seed, hilo and the claims (IDNODE_DB; default \"default\")"},
		{"--key k", "API key for those, once the cluster has keys (IDNODE_KEY)"},
		{"--timeout d", "time limit of one call to one node (default 10s)"},
		{"--json", "JSON output"},
	})
	fmt.Fprintln(w, `
Exit codes: 0 done, 1 the call failed, 2 bad usage. "idctl help <command>" or
"idctl <command> -h" shows a command's flags; "idctl completion bash|zsh|fish"
prints a shell completion script.`)
}
