package conformance_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// scenario is one file of scenarios/ (README: A scenario).
type scenario struct {
	Description string          `json:"description"`
	Topology    json.RawMessage `json:"topology"`
	Requires    []string        `json:"requires"`
	Steps       []step          `json:"steps"`
}

// step is an operation (Op) or a fault (Fault).
type step struct {
	Op         string         `json:"op"`
	Client     string         `json:"client"`
	Args       map[string]any `json:"args"`
	DeadlineMs int64          `json:"deadlineMs"`
	WithinMs   int64          `json:"withinMs"`
	Expect     *expectation   `json:"expect"`
	Save       string         `json:"save"`
	Fault      string         `json:"fault"`
	Node       string         `json:"node"`
}

type expectation struct {
	Result any            `json:"result"`
	Error  *expectedError `json:"error"`
}

type expectedError struct {
	Code   string `json:"code"`
	Reason string `json:"reason"`
}

// String names the step in a failure.
func (s step) String() string {
	if s.Fault != "" {
		return fmt.Sprintf("fault %s %s", s.Fault, s.Node)
	}
	return fmt.Sprintf("op %s on client %s", s.Op, s.clientName())
}

func (s step) clientName() string {
	if s.Client == "" {
		return "c"
	}
	return s.Client
}

// decodeJSON decodes with numbers kept as json.Number, so an int64 is never rounded through a
// float64, and refuses unknown fields (a misspelt key would otherwise check nothing).
func decodeJSON(data []byte, v any, strict bool) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if strict {
		dec.DisallowUnknownFields()
	}
	return dec.Decode(v)
}

// loadScenarios reads every scenario of dir, by file name.
func loadScenarios(dir string) (map[string]scenario, []string, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		return nil, nil, err
	}
	if len(paths) == 0 {
		return nil, nil, fmt.Errorf("no scenarios in %s", dir)
	}
	slices.Sort(paths)
	out := map[string]scenario{}
	var names []string
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, nil, err
		}
		var sc scenario
		if err := decodeJSON(data, &sc, true); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if err := sc.check(); err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		name := strings.TrimSuffix(filepath.Base(p), ".json")
		out[name] = sc
		names = append(names, name)
	}
	return out, names, nil
}

// check catches a malformed scenario before it runs against a cluster.
func (sc scenario) check() error {
	if sc.Description == "" || len(sc.Steps) == 0 {
		return fmt.Errorf("a scenario needs a description and steps")
	}
	for i, s := range sc.Steps {
		switch {
		case (s.Op == "") == (s.Fault == ""):
			return fmt.Errorf("step %d: exactly one of op and fault", i+1)
		case s.Fault != "" && (s.Args != nil || s.Expect != nil && s.Expect.Error != nil):
			return fmt.Errorf("step %d: a fault takes node, save and a result to expect only", i+1)
		case s.Expect != nil && s.Expect.Result != nil && s.Expect.Error != nil:
			return fmt.Errorf("step %d: expect a result or an error, not both", i+1)
		case s.WithinMs < 0 || s.Fault != "" && s.WithinMs != 0:
			return fmt.Errorf("step %d: withinMs is a positive bound on an operation", i+1)
		}
	}
	return nil
}
