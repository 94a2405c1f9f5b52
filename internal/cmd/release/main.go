// Command release makes the files a release ships besides the binaries, from the module cache
// and the binaries' own build information, without the network or downloaded tools:
//
//	go run ./internal/cmd/release notice > THIRD_PARTY.md
//	go run ./internal/cmd/release sbom -version v0.9.0 -created 2026-11-23T20:00:00Z dist/idnode-* > sbom.spdx.json
//	go run ./internal/cmd/release sums dist > dist/SHA256SUMS
//
// `make dist` runs all three; a test fails when the committed THIRD_PARTY.md is not what
// `notice` writes.
package main

import (
	"fmt"
	"io"
	"os"
)

const usage = `usage: release notice | sbom -version V -created RFC3339 BINARY... | sums DIR`

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(args []string, out io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("no command\n%s", usage)
	}
	switch args[0] {
	case "notice":
		mods, err := buildModules(".")
		if err != nil {
			return err
		}
		return writeNotice(out, mods)
	case "sbom":
		return runSBOM(args[1:], out)
	case "sums":
		if len(args) != 2 {
			return fmt.Errorf("sums takes one directory\n%s", usage)
		}
		return writeSums(out, args[1])
	}
	return fmt.Errorf("unknown command %q\n%s", args[0], usage)
}
