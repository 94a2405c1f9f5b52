// Package conformance_test runs the client conformance suite (README.md beside this file) on
// the Go client, the reference: every scenario of scenarios/ against real nodes started by
// idcluster. The other clients' runners are started by the packages below this one.
package conformance_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/status"

	"github.com/idnode/idnode/reason"
	"github.com/idnode/idnode/test/conformance/conformancetest"
)

// defaultDeadline bounds an operation, retries included, when its step gives no deadlineMs.
const defaultDeadline = 10 * time.Second

func TestGoClient(t *testing.T) {
	env := conformancetest.Env(t)
	dir := envValue(env, "IDNODE_CONFORMANCE_DIR")
	scenarios, names, err := loadScenarios(dir)
	if err != nil {
		t.Fatal(err)
	}
	cp := startControlProgram(t, env)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			runScenario(t, cp, scenarios[name])
		})
	}
}

func envValue(env []string, key string) string {
	for _, kv := range env {
		if v, ok := strings.CutPrefix(kv, key+"="); ok {
			return v
		}
	}
	return ""
}

// goRun is one scenario's run: its cluster, its clients and what its steps saved.
type goRun struct {
	cp      *controlProgram
	cluster *clusterInfo
	clients map[string]*goClient
	saved   saved
}

func runScenario(t *testing.T, cp *controlProgram, sc scenario) {
	t.Log(sc.Description)
	info, err := cp.start(sc.Topology)
	if err != nil {
		t.Fatal(err)
	}
	r := &goRun{cp: cp, cluster: info, clients: map[string]*goClient{}, saved: saved{}}
	defer func() {
		ctx, cancel := context.WithTimeout(context.Background(), defaultDeadline)
		defer cancel()
		for name, c := range r.clients {
			if err := c.close(ctx); err != nil {
				t.Errorf("closing client %s: %v", name, err)
			}
		}
		if _, err := cp.send(map[string]any{"cmd": "teardown"}); err != nil {
			t.Error(err)
		}
	}()
	if err := r.openClient("c", map[string]any{}); err != nil {
		t.Fatal(err)
	}
	for i, s := range sc.Steps {
		if err := r.step(s); err != nil {
			t.Fatalf("step %d (%s): %v", i+1, s, err)
		}
	}
}

func (r *goRun) openClient(name string, argMap map[string]any) error {
	if _, ok := r.clients[name]; ok {
		return fmt.Errorf("client %s is open already", name)
	}
	ctx, cancel := context.WithTimeout(context.Background(), defaultDeadline)
	defer cancel()
	gc, err := r.open(ctx, &args{m: argMap})
	if err != nil {
		return err
	}
	r.clients[name] = gc
	return nil
}

// step runs one step and checks it against its expectation.
func (r *goRun) step(s step) error {
	if s.Fault != "" {
		answer, err := r.cp.send(map[string]any{"cmd": s.Fault, "node": s.Node})
		if err != nil {
			return err
		}
		if err := r.check(s.Expect, answer, nil); err != nil {
			return err
		}
		return r.saved.keep(s.Save, answer)
	}
	argVal, err := r.saved.resolve(orEmpty(s.Args))
	if err != nil {
		return err
	}
	argMap := argVal.(map[string]any)
	var result any
	switch s.Op {
	case "open":
		err = r.openClient(s.clientName(), argMap)
		result = struct{}{}
	default:
		op, ok := goOps[s.Op]
		if !ok {
			return fmt.Errorf("unknown op %q (README: Operations)", s.Op)
		}
		gc, ok := r.clients[s.clientName()]
		if !ok {
			return fmt.Errorf("no client %q open", s.clientName())
		}
		deadline := defaultDeadline
		if s.DeadlineMs > 0 {
			deadline = time.Duration(s.DeadlineMs) * time.Millisecond
		}
		ctx, cancel := context.WithTimeout(context.Background(), deadline)
		began := time.Now()
		result, err = op(ctx, r, gc, &args{m: argMap})
		took := time.Since(began)
		cancel()
		if s.Op == "close" {
			delete(r.clients, s.clientName())
		}
		if within := time.Duration(s.WithinMs) * time.Millisecond; within > 0 && took > within {
			return fmt.Errorf("took %v, more than withinMs %v (outcome: %v)", took.Round(time.Millisecond), within, err)
		}
	}
	if err := r.check(s.Expect, result, err); err != nil {
		return err
	}
	if err == nil {
		return r.saved.keep(s.Save, result)
	}
	return nil
}

// keep saves v as name (nothing when name is empty), in the JSON shape matchers see.
func (s saved) keep(name string, v any) error {
	if name == "" {
		return nil
	}
	n, err := normalize(v)
	if err != nil {
		return err
	}
	s[name] = n
	return nil
}

// check compares an operation's outcome with the step's expectation.
func (r *goRun) check(want *expectation, result any, err error) error {
	if want != nil && want.Error != nil {
		if err == nil {
			return fmt.Errorf("want error %+v, got result %s", *want.Error, show(result))
		}
		code, why := reason.CodeName(status.Code(err)), reason.Of(err)
		if (want.Error.Code != "" && want.Error.Code != code) || (want.Error.Reason != "" && want.Error.Reason != why) {
			return fmt.Errorf("want error %+v, got %s/%s: %v", *want.Error, code, why, err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("failed: %s/%s: %w", reason.CodeName(status.Code(err)), reason.Of(err), err)
	}
	if want == nil || want.Result == nil {
		return nil
	}
	actual, nerr := normalize(result)
	if nerr != nil {
		return nerr
	}
	return r.saved.match(want.Result, actual, "result")
}

func orEmpty(m map[string]any) map[string]any {
	if m == nil {
		return map[string]any{}
	}
	return m
}
