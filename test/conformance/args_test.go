package conformance_test

import (
	"encoding/json"
	"fmt"
)

// args reads an operation's arguments, remembering the first thing wrong with them, so an
// operation reads all it needs and then checks err once.
type args struct {
	m   map[string]any
	err error
}

func (a *args) fail(key, want string) {
	if a.err == nil {
		a.err = fmt.Errorf("argument %q: want %s, got %s", key, want, show(a.m[key]))
	}
}

func (a *args) str(key string) string {
	v, ok := a.m[key]
	if !ok {
		return ""
	}
	s, ok := v.(string)
	if !ok {
		a.fail(key, "a string")
	}
	return s
}

func (a *args) int(key string, def int64) int64 {
	v, ok := a.m[key]
	if !ok {
		return def
	}
	n, ok := v.(json.Number)
	if !ok {
		a.fail(key, "an integer")
		return def
	}
	i, err := n.Int64()
	if err != nil {
		a.fail(key, "an int64")
	}
	return i
}

func (a *args) bool(key string) bool {
	v, ok := a.m[key]
	if !ok {
		return false
	}
	b, ok := v.(bool)
	if !ok {
		a.fail(key, "true or false")
	}
	return b
}

func (a *args) strs(key string) []string {
	v, ok := a.m[key]
	if !ok {
		return nil
	}
	list, ok := v.([]any)
	if !ok {
		a.fail(key, "an array of strings")
		return nil
	}
	out := make([]string, 0, len(list))
	for _, e := range list {
		s, ok := e.(string)
		if !ok {
			a.fail(key, "an array of strings")
		}
		out = append(out, s)
	}
	return out
}

// object is an argument that is an object of strings (series fields), in key order.
func (a *args) object(key string) map[string]string {
	v, ok := a.m[key]
	if !ok {
		return nil
	}
	m, ok := v.(map[string]any)
	if !ok {
		a.fail(key, "an object of strings")
		return nil
	}
	out := make(map[string]string, len(m))
	for k, e := range m {
		s, ok := e.(string)
		if !ok {
			a.fail(key, "an object of strings")
		}
		out[k] = s
	}
	return out
}
