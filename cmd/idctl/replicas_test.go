package main

import (
	"bytes"
	"strings"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

func replicaCheckOf(verdicts ...string) *idnodev1.ReplicaCheck {
	rc := &idnodev1.ReplicaCheck{Index: 42}
	for i, v := range verdicts {
		m := &idnodev1.ReplicaDigest{Tag: string(rune('A' + i)), Verdict: v}
		if v != "not reporting" {
			m.Digest = []byte{byte(i), 0xab}
		}
		if v == "differs" {
			rc.Mismatches++
		}
		rc.Members = append(rc.Members, m)
	}
	return rc
}

func TestStatusLineNamesADivergedMember(t *testing.T) {
	for _, c := range []struct {
		rc   *idnodev1.ReplicaCheck
		want []string
	}{
		{nil, nil},
		{replicaCheckOf("agrees", "agrees", "agrees"), []string{"index 42", "every reporting member agrees"}},
		{replicaCheckOf("agrees", "differs", "not reporting"), []string{"the state of B DIFFERS", "not reporting: C"}},
	} {
		got := replicaCheckLine(c.rc)
		if (len(c.want) == 0) != (got == "") {
			t.Errorf("line for %v = %q", c.rc, got)
		}
		for _, w := range c.want {
			if !strings.Contains(got, w) {
				t.Errorf("line for %v = %q, want %q in it", c.rc, got, w)
			}
		}
	}
}

func TestCheckReplicasPrintsEachMember(t *testing.T) {
	var b bytes.Buffer
	if err := printReplicaCheck(&b, replicaCheckOf("agrees", "differs", "not reporting")); err != nil {
		t.Fatal(err)
	}
	for _, w := range []string{"index 42", "1 member(s) differ", "A    agrees", "B    differs        01ab", "C    not reporting"} {
		if !strings.Contains(b.String(), w) {
			t.Errorf("output lacks %q:\n%s", w, b.String())
		}
	}
}
