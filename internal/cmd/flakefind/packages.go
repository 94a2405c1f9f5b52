package main

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// listTimeout bounds go list.
const listTimeout = time.Minute

// namesPackages checks that patterns name at least one package, as go list reads them.
func namesPackages(patterns []string) error {
	if len(patterns) == 0 {
		return fmt.Errorf("name the packages to run")
	}
	ctx, cancel := context.WithTimeout(context.Background(), listTimeout)
	defer cancel()
	var stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, "go", append([]string{"list", "-e", "-f", "{{if not .Error}}{{.ImportPath}}{{end}}", "--"}, patterns...)...)
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list %s: %v: %s", strings.Join(patterns, " "), err, bytes.TrimSpace(stderr.Bytes()))
	}
	if len(bytes.TrimSpace(out)) == 0 {
		return fmt.Errorf("%s names no package %s", strings.Join(patterns, " "), bytes.TrimSpace(stderr.Bytes()))
	}
	return nil
}
