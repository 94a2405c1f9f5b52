package jsonlog

import (
	"errors"
	"strings"
	"testing"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		line, problem string
	}{
		{`{"msg":"ok","node":"A","peer":{"ID":"B"},"list":[1,{"a":2}]}`, ""},
		{`{"msg":"x","node":"A","node":{}}`, "twice"},
		{`{"msg":"x","leader":{}}`, "empty object"},
		{`{"msg":"x","peer":{"a":1,"a":2}}`, "twice"},
		{`{"msg":"x","list":[{}]}`, "empty object"},
		{`["msg"]`, "not a JSON object"},
	} {
		err := Check([]byte(tc.line))
		if tc.problem == "" && err != nil || tc.problem != "" && (err == nil || !strings.Contains(err.Error(), tc.problem)) {
			t.Errorf("Check(%s) = %v, want %q", tc.line, err, tc.problem)
		}
	}
	if err := CheckAll([]byte("{\"a\":1}\nplain text\n")); !errors.Is(err, ErrNotJSON) {
		t.Errorf("CheckAll with a text line = %v", err)
	}
}
