package conformance_test

import (
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strconv"
	"strings"
)

// saved holds the results steps saved, by name (README: save).
type saved map[string]any

// normalize turns a result into the JSON shape the scenarios use (maps, slices, strings,
// json.Number, bools), so every comparison below sees one representation.
func normalize(v any) (any, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var out any
	return out, decodeJSON(raw, &out, false)
}

// ref resolves "name.key.0" among the saved results.
func (s saved) ref(path string) (any, error) {
	parts := strings.Split(path, ".")
	v, ok := s[parts[0]]
	if !ok {
		return nil, fmt.Errorf("$ref %q: nothing saved as %q", path, parts[0])
	}
	for _, p := range parts[1:] {
		switch c := v.(type) {
		case map[string]any:
			if v, ok = c[p]; !ok {
				return nil, fmt.Errorf("$ref %q: no key %q", path, p)
			}
		case []any:
			i, err := strconv.Atoi(p)
			if err != nil || i < 0 || i >= len(c) {
				return nil, fmt.Errorf("$ref %q: no index %q in an array of %d", path, p, len(c))
			}
			v = c[i]
		default:
			return nil, fmt.Errorf("$ref %q: %q is not inside an object or array", path, p)
		}
	}
	return v, nil
}

// resolve puts saved values in place of every {"$ref": …} in v (arguments).
func (s saved) resolve(v any) (any, error) {
	switch c := v.(type) {
	case map[string]any:
		if path, ok := c["$ref"].(string); ok && len(c) == 1 {
			return s.ref(path)
		}
		out := make(map[string]any, len(c))
		for k, e := range c {
			r, err := s.resolve(e)
			if err != nil {
				return nil, err
			}
			out[k] = r
		}
		return out, nil
	case []any:
		out := make([]any, len(c))
		for i, e := range c {
			r, err := s.resolve(e)
			if err != nil {
				return nil, err
			}
			out[i] = r
		}
		return out, nil
	}
	return v, nil
}

// match reports how actual fails to match the matcher want (README: Values and matchers), or
// nil when it matches. at is where in the result, for the message.
func (s saved) match(want, actual any, at string) error {
	switch w := want.(type) {
	case map[string]any:
		if isMatcherObject(w) {
			return s.matchConditions(w, actual, at)
		}
		a, ok := actual.(map[string]any)
		if !ok {
			return fmt.Errorf("%s: want an object, got %s", at, show(actual))
		}
		for k, we := range w {
			ae, ok := a[k]
			if !ok {
				return fmt.Errorf("%s.%s: missing (got %s)", at, k, show(actual))
			}
			if err := s.match(we, ae, at+"."+k); err != nil {
				return err
			}
		}
		return nil
	case []any:
		a, ok := actual.([]any)
		if !ok || len(a) != len(w) {
			return fmt.Errorf("%s: want %d elements, got %s", at, len(w), show(actual))
		}
		for i := range w {
			if err := s.match(w[i], a[i], fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
		return nil
	case json.Number:
		if !sameNumber(w, actual) {
			return fmt.Errorf("%s: want %s, got %s", at, w, show(actual))
		}
		return nil
	}
	if want != actual {
		return fmt.Errorf("%s: want %s, got %s", at, show(want), show(actual))
	}
	return nil
}

func isMatcherObject(m map[string]any) bool {
	if len(m) == 0 {
		return false
	}
	for k := range m {
		if !strings.HasPrefix(k, "$") {
			return false
		}
	}
	return true
}

// matchConditions checks every condition of a matcher object.
func (s saved) matchConditions(conds map[string]any, actual any, at string) error {
	for op, arg := range conds {
		if err := s.condition(op, arg, actual, at); err != nil {
			return err
		}
	}
	return nil
}

func (s saved) condition(op string, arg, actual any, at string) error {
	switch op {
	case "$ref":
		path, _ := arg.(string)
		v, err := s.ref(path)
		if err != nil {
			return err
		}
		return s.match(v, actual, at)
	case "$regex":
		pattern, _ := arg.(string)
		re, err := regexp.Compile(pattern)
		if err != nil {
			return fmt.Errorf("%s: $regex %q: %w", at, pattern, err)
		}
		if str, ok := actual.(string); !ok || !re.MatchString(str) {
			return fmt.Errorf("%s: want a string matching %s, got %s", at, pattern, show(actual))
		}
	case "$len":
		n, ok := integer(arg)
		var got int
		switch a := actual.(type) {
		case []any:
			got = len(a)
		case string:
			got = len(a)
		default:
			return fmt.Errorf("%s: $len of %s", at, show(actual))
		}
		if !ok || int64(got) != n.Int64() {
			return fmt.Errorf("%s: want length %v, got %d", at, arg, got)
		}
	case "$distinct":
		a, ok := actual.([]any)
		if !ok {
			return fmt.Errorf("%s: $distinct of %s", at, show(actual))
		}
		seen := make(map[string]int, len(a))
		for i, e := range a {
			key := show(e)
			if j, dup := seen[key]; dup {
				return fmt.Errorf("%s: elements %d and %d are both %s", at, j, i, key)
			}
			seen[key] = i
		}
	case "$each":
		a, ok := actual.([]any)
		if !ok {
			return fmt.Errorf("%s: $each of %s", at, show(actual))
		}
		for i, e := range a {
			if err := s.match(arg, e, fmt.Sprintf("%s[%d]", at, i)); err != nil {
				return err
			}
		}
	case "$not":
		if s.match(arg, actual, at) == nil {
			return fmt.Errorf("%s: want anything but %s, got %s", at, show(arg), show(actual))
		}
	case "$gt", "$gte", "$lt", "$lte":
		bound, err := s.resolve(arg)
		if err != nil {
			return err
		}
		b, okB := integer(bound)
		a, okA := integer(actual)
		if !okA || !okB {
			return fmt.Errorf("%s: %s %s of %s: both must be integers", at, op, show(bound), show(actual))
		}
		c := a.Cmp(b)
		if !map[string]bool{"$gt": c > 0, "$gte": c >= 0, "$lt": c < 0, "$lte": c <= 0}[op] {
			return fmt.Errorf("%s: want %s %s, got %s", at, op, show(bound), show(actual))
		}
	default:
		return fmt.Errorf("%s: unknown matcher %s", at, op)
	}
	return nil
}

// integer reads an integer from a JSON number (or a decimal string: numeric IDs).
func integer(v any) (*big.Int, bool) {
	var s string
	switch n := v.(type) {
	case json.Number:
		s = n.String()
	case string:
		s = n
	default:
		return nil, false
	}
	return new(big.Int).SetString(s, 10)
}

func sameNumber(want json.Number, actual any) bool {
	if _, ok := actual.(json.Number); !ok {
		return false
	}
	w, okW := integer(want)
	a, okA := integer(actual)
	if okW && okA {
		return w.Cmp(a) == 0
	}
	return want == actual
}

// show renders a value for a message, shortened when long.
func show(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	const most = 300
	if len(b) > most {
		return string(b[:most]) + "…"
	}
	return string(b)
}
