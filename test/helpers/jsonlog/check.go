// Package jsonlog checks log lines the way a log pipeline reads them: tests of idnode's JSON
// logs use it to reject what such pipelines reject or lose.
//
// Only tests import it, so it lives in test/helpers with the other test helpers, not in
// internal/, which holds the daemon's own parts.
package jsonlog

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Check parses one JSON log line and reports the first problem: not a JSON object, a key
// written twice in one object, a key not in snake_case (one key style, so a query for a field
// finds it whichever part of the node wrote it), or a value that is an empty object ({}: what
// slog's JSON handler writes for a struct without exported fields, which says nothing).
func Check(line []byte) error {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	if tok != json.Delim('{') {
		return fmt.Errorf("not a JSON object: %s", line)
	}
	if err := object(dec, ""); err != nil {
		return fmt.Errorf("%w in %s", err, line)
	}
	if dec.More() {
		return fmt.Errorf("more than one value in %s", line)
	}
	return nil
}

// object reads the rest of an object whose '{' was read, at path.
func object(dec *json.Decoder, path string) error {
	seen := map[string]bool{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v is not a string", tok)
		}
		if seen[key] {
			return fmt.Errorf("key %q twice at %q", path+key, path)
		}
		if !SnakeCase(key) {
			return fmt.Errorf("key %q is not snake_case (lower-case words joined by _)", path+key)
		}
		seen[key] = true
		if err := value(dec, path+key+"."); err != nil {
			return err
		}
	}
	if len(seen) == 0 && path != "" {
		return fmt.Errorf("empty object at %q", path[:len(path)-1])
	}
	_, err := dec.Token() // '}'
	return err
}

// SnakeCase reports whether key is lower-case words (letters and digits) joined by single
// underscores, such as data_dir or raft_last_index.
func SnakeCase(key string) bool {
	words := strings.Split(key, "_")
	for _, w := range words {
		if w == "" {
			return false
		}
		for _, r := range w {
			if (r < 'a' || r > 'z') && (r < '0' || r > '9') {
				return false
			}
		}
	}
	return key[0] < '0' || key[0] > '9'
}

func value(dec *json.Decoder, path string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch tok {
	case json.Delim('{'):
		return object(dec, path)
	case json.Delim('['):
		for dec.More() {
			if err := value(dec, path); err != nil {
				return err
			}
		}
		_, err := dec.Token() // ']'
		return err
	}
	return nil
}

// ErrNotJSON is returned by CheckAll for a line that is not JSON at all.
var ErrNotJSON = errors.New("not a JSON line")

// CheckAll checks every non-empty line of logs and returns every problem, with its line number.
func CheckAll(logs []byte) error {
	var errs []error
	for i, line := range bytes.Split(logs, []byte("\n")) {
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if !json.Valid(line) {
			errs = append(errs, fmt.Errorf("line %d: %w: %s", i+1, ErrNotJSON, line))
			continue
		}
		if err := Check(line); err != nil {
			errs = append(errs, fmt.Errorf("line %d: %w", i+1, err))
		}
	}
	return errors.Join(errs...)
}
