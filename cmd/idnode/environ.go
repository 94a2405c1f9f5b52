package main

import (
	"fmt"
	"slices"
	"strings"
)

// environ is the process environment as the node reads it: unlike os.Getenv it tells a
// variable set to "" from one not set (IDNODE_HTTP_ADDR= turns HTTP off, like --http-addr ""),
// and it can list the IDNODE_* names, so a misspelt one is warned about instead of ignored.
type environ map[string]string

// environFrom reads os.Environ()'s KEY=VALUE list.
func environFrom(kv []string) environ {
	e := environ{}
	for _, s := range kv {
		if k, v, ok := strings.Cut(s, "="); ok {
			e[k] = v
		}
	}
	return e
}

// get works like os.Getenv: it returns "" for a variable that is not set.
func (e environ) get(name string) string { return e[name] }

// lookup works like os.LookupEnv.
func (e environ) lookup(name string) (string, bool) {
	v, ok := e[name]
	return v, ok
}

// envPrefix starts every variable the node and idctl read.
const envPrefix = "IDNODE_"

// envOfFlag is the variable a flag also reads: IDNODE_DATA_DIR for --data-dir.
func envOfFlag(name string) string {
	return envPrefix + strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
}

// otherKnownEnv are IDNODE_* variables that are no flag of the node's but are nobody's typo:
// the ones idctl reads (cmd/idctl's applyEnv; an operator often exports them in the node's
// shell too), the ones the deploy files read, and IDNODE_VERSION, which may name an image tag.
var otherKnownEnv = []string{
	"IDNODE_ADDR", "IDNODE_TOKEN", "IDNODE_TLS_SERVER_NAME", "IDNODE_DB", "IDNODE_KEY",
	"IDNODE_IMAGE", "IDNODE_CERTS", "IDNODE_VERSION",
}

// maxSuggestDistance is how many edits away a known name may be to be suggested.
const maxSuggestDistance = 3

// unknownEnvWarnings names every IDNODE_* variable in e that is neither in known nor in
// otherKnownEnv, with the nearest known name when one is close: etcd does the same for ETCD_*,
// and a typo (IDNODE_DATADIR) otherwise leaves the default in force without a word.
func unknownEnvWarnings(e environ, known []string) []string {
	known = append(slices.Clone(known), otherKnownEnv...)
	var warnings []string
	for name := range e {
		if !strings.HasPrefix(name, envPrefix) || slices.Contains(known, name) {
			continue
		}
		w := fmt.Sprintf("unknown variable %s", name)
		if near := nearest(name, known); near != "" {
			w += fmt.Sprintf("; did you mean %s?", near)
		}
		warnings = append(warnings, w+" (it is ignored)")
	}
	slices.Sort(warnings)
	return warnings
}

// maxNameForSuggestion bounds the edit-distance work on a name from the environment.
const maxNameForSuggestion = 64

// nearest returns the name in known that is the fewest edits away from name. It returns ""
// when none is within maxSuggestDistance, or when name is too long to compare.
func nearest(name string, known []string) string {
	if len(name) > maxNameForSuggestion {
		return ""
	}
	best, bestDist := "", maxSuggestDistance+1
	for _, k := range known {
		if d := editDistance(name, k); d < bestDist {
			best, bestDist = k, d
		}
	}
	return best
}

// editDistance is the Levenshtein distance of two short ASCII names.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
