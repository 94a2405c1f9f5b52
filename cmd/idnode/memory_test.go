package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestParseByteSize(t *testing.T) {
	for in, want := range map[string]int64{"": 0, "0": 0, "1048576": 1 << 20, "512MiB": 512 << 20, "1GiB": 1 << 30, "800MB": 800e6, "64 KiB": 64 << 10, "2GB": 2e9} {
		if got, err := parseByteSize(in); err != nil || got != want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", in, got, err, want)
		}
	}
	for _, bad := range []string{"lots", "-1MiB", "1.5GiB", "1TB", "99999999999GiB"} {
		if _, err := parseByteSize(bad); err == nil || !strings.Contains(err.Error(), "512MiB") {
			t.Errorf("parseByteSize(%q) = %v; want an error with an example", bad, err)
		}
	}
}

// --memory-limit wins, then GOMEMLIMIT (the runtime's own), then 90% of the container's limit.
func TestMemoryLimitPrecedence(t *testing.T) {
	dir := t.TempDir()
	cgroup := func(content string) string {
		p := filepath.Join(t.TempDir(), "memory.max")
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	noEnv := func(string) string { return "" }
	withEnv := func(k string) string {
		if k == "GOMEMLIMIT" {
			return "300MiB"
		}
		return ""
	}
	for _, tc := range []struct {
		name   string
		flag   int64
		getenv func(string) string
		cgroup string
		limit  int64
		source string
	}{
		{"flag", 256 << 20, withEnv, cgroup("1073741824\n"), 256 << 20, "--memory-limit"},
		{"GOMEMLIMIT", 0, withEnv, cgroup("1073741824\n"), 0, "GOMEMLIMIT"},
		{"container", 0, noEnv, cgroup("1073741824\n"), 966367641, "container limit"}, // 90% of 1 GiB
		{"container without a limit", 0, noEnv, cgroup("max\n"), 0, ""},
		{"no cgroup v2", 0, noEnv, filepath.Join(dir, "missing"), 0, ""},
	} {
		limit, source := memoryLimit(tc.flag, tc.getenv, tc.cgroup)
		if limit != tc.limit || source != tc.source {
			t.Errorf("%s: %d (%s), want %d (%s)", tc.name, limit, source, tc.limit, tc.source)
		}
	}
	if c := mustParse(t, []string{"--memory-limit", "512MiB"}, nil); c.memoryLimit != 512<<20 {
		t.Errorf("--memory-limit 512MiB = %d", c.memoryLimit)
	}
}
