package main

import (
	"errors"
	"fmt"
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// cgroupMemoryMax is where cgroup v2 says how much memory this container may use ("max" for no
// limit). Docker and Kubernetes set it from --memory / resources.limits.memory.
const cgroupMemoryMax = "/sys/fs/cgroup/memory.max"

// memoryLimitShare is the part of a container's limit the Go heap may use when no --memory-limit
// is given: the rest is stacks, bbolt's page cache mapping and the runtime's own.
const memoryLimitShare = 0.9

// parseByteSize reads "512MiB", "1GiB", "800MB", "1048576" (bytes); "" and "0" mean none.
func parseByteSize(s string) (int64, error) {
	s = strings.TrimSpace(s)
	if s == "" || s == "0" {
		return 0, nil
	}
	units := []struct {
		suffix string
		factor int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"B", 1}}
	factor := int64(1)
	for _, u := range units {
		if strings.HasSuffix(s, u.suffix) {
			s, factor = strings.TrimSpace(strings.TrimSuffix(s, u.suffix)), u.factor
			break
		}
	}
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 || n > (1<<62)/factor {
		return 0, fmt.Errorf("%q is not a size: a whole number of bytes, KiB, MiB, GiB, KB, MB or GB (e.g. 512MiB)", s)
	}
	return n * factor, nil
}

// cgroupLimit is the container's memory limit from path, or 0 when there is none or no cgroup v2.
func cgroupLimit(path string) int64 {
	data, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	v := strings.TrimSpace(string(data))
	if v == "max" {
		return 0
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

// memoryLimit decides the Go runtime's soft memory limit (debug.SetMemoryLimit): --memory-limit
// when given, else GOMEMLIMIT when set (the runtime read it already; nothing to do), else 90% of
// the container's limit, else none. With a limit the collector works harder only as the heap
// nears it, so a node keeps the CPU that GOGC=400 saves while staying inside its budget.
func memoryLimit(flag int64, getenv func(string) string, cgroupPath string) (limit int64, source string) {
	switch {
	case flag > 0:
		return flag, "--memory-limit"
	case getenv("GOMEMLIMIT") != "":
		return 0, "GOMEMLIMIT"
	}
	if c := cgroupLimit(cgroupPath); c > 0 {
		return int64(float64(c) * memoryLimitShare), "container limit"
	}
	return 0, ""
}

// applyMemoryLimit sets the limit memoryLimit decides and says what it did.
func applyMemoryLimit(flag int64, getenv func(string) string) (string, error) {
	limit, source := memoryLimit(flag, getenv, cgroupMemoryMax)
	switch {
	case source == "":
		return "none", nil
	case limit == 0:
		return source, nil
	case limit < 32<<20:
		return "", errors.New("a memory limit under 32 MiB leaves the node no room to work: raise --memory-limit or the container's")
	}
	debug.SetMemoryLimit(limit)
	return fmt.Sprintf("%d MiB (%s)", limit>>20, source), nil
}
