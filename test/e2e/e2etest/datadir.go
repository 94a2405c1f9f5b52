package e2etest

import (
	"strings"
	"testing"
)

// RefusedStart starts p, which must exit non-zero, and returns the output of that run.
func RefusedStart(t *testing.T, p *Proc) string {
	t.Helper()
	p.Restart()
	st, err := p.WaitExit(ServeTimeout)
	if err != nil {
		t.Fatalf("node %s did not refuse to start: %v", p.Tag, err)
	}
	out := p.Logs.String()
	out = out[strings.LastIndex(out, "----- start #"):]
	if st.ExitCode() == 0 {
		t.Fatalf("node %s exited with %v, want a refusal:\n%s", p.Tag, st, out)
	}
	return out
}
