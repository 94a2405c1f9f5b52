package main

import (
	"errors"
	"flag"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
)

// notInFile are flags a config file may not set: the file's own path, and a command.
var notInFile = []string{"config", "version"}

// applyConfigFile sets, from the TOML file at path, every flag that neither the command line
// nor the environment set: its keys are the flags' names (data-dir = "…", max-count = 1000,
// pprof = true, election-wait = "1s"; peers also as a list). Each value goes through the flag's
// own parsing, so a file is checked exactly like a command line; an unknown key is an error,
// not silently ignored. A bad value goes to bad, with the other sources' bad values.
func applyConfigFile(fs *flag.FlagSet, path string, set map[string]bool, bad *valueErrors) error {
	var values map[string]any
	if _, err := toml.DecodeFile(path, &values); err != nil {
		return fmt.Errorf("config file %s: %w", path, err)
	}
	var errs []error
	for _, key := range slices.Sorted(maps.Keys(values)) {
		f := fs.Lookup(key)
		switch {
		case f == nil || slices.Contains(notInFile, key):
			errs = append(errs, fmt.Errorf("config file %s: unknown key %q (keys are idnode's flag names; see idnode -h)", path, key))
			continue
		case set[key]:
			continue // a flag or IDNODE_ variable wins
		}
		bad.origin = fmt.Sprintf("config file %s: %s =", path, key)
		v, err := flagValue(values[key])
		if err == nil {
			err = fs.Set(key, v)
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("config file %s: %s = %v: %w", path, key, values[key], err))
			continue
		}
		set[key] = true
	}
	return errors.Join(errs...)
}

// flagValue turns a TOML value into a flag's text: a list (peers) becomes comma-separated.
func flagValue(v any) (string, error) {
	switch v := v.(type) {
	case string, bool, int64, float64:
		return fmt.Sprint(v), nil
	case []any:
		parts := make([]string, len(v))
		for i, p := range v {
			s, ok := p.(string)
			if !ok {
				return "", fmt.Errorf("a list holds strings only, not %T", p)
			}
			parts[i] = s
		}
		return strings.Join(parts, ","), nil
	}
	return "", fmt.Errorf("a %T is not a flag value (use a string, number, boolean or list of strings)", v)
}
