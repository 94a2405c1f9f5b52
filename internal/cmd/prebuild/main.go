// Command prebuild builds, once for a whole test run, the programs the test packages run
// (test/helpers/prebuilt) into a folder, and with -chaos-image the chaos suite's image with
// the Makefile's recipe; .ci/run names the folder in $IDNODE_PREBUILT. It runs from the
// repository's root.
//
//	prebuild [-chaos-image] DIR
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/idnode/idnode/test/helpers/prebuilt"
)

const usage = "usage: prebuild [-chaos-image] DIR"

// buildTimeout bounds each build, on a cold cache.
const buildTimeout = 10 * time.Minute

func main() {
	chaosImage := flag.Bool("chaos-image", false, "build the chaos suite's image too (make image IMAGE="+prebuilt.ChaosImage+")")
	flag.Usage = func() { fmt.Fprintln(os.Stderr, usage) }
	flag.Parse()
	if flag.NArg() != 1 {
		flag.Usage()
		os.Exit(2)
	}
	dir := flag.Arg(0)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	for _, p := range prebuilt.All {
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		err := p.Build(ctx, ".", filepath.Join(dir, p.Name))
		cancel()
		if err != nil {
			fail(err)
		}
		fmt.Printf("%-16s %s in %v\n", p.Name, p.Pkg, time.Since(began).Round(100*time.Millisecond))
	}
	if *chaosImage {
		began := time.Now()
		ctx, cancel := context.WithTimeout(context.Background(), buildTimeout)
		defer cancel()
		cmd := exec.CommandContext(ctx, "make", "image", "IMAGE="+prebuilt.ChaosImage)
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		if err := cmd.Run(); err != nil {
			fail(fmt.Errorf("make image IMAGE=%s: %w", prebuilt.ChaosImage, err))
		}
		if err := prebuilt.MarkImage(dir, prebuilt.ChaosImage); err != nil {
			fail(err)
		}
		fmt.Printf("%-16s make image in %v\n", prebuilt.ChaosImage, time.Since(began).Round(100*time.Millisecond))
	}
}

func fail(err error) {
	fmt.Fprintf(os.Stderr, "prebuild: %v\n", err)
	os.Exit(1)
}
