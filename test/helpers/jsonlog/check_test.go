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
		{`{"msg":"ok","node":"A","peer":{"id":"B"},"list":[1,{"a":2}]}`, ""},
		{`{"msg":"x","node":"A","node":{}}`, "twice"},
		{`{"msg":"x","leader":{}}`, "empty object"},
		{`{"msg":"x","peer":{"a":1,"a":2}}`, "twice"},
		{`{"msg":"x","list":[{}]}`, "empty object"},
		{`["msg"]`, "not a JSON object"},
		{`{"msg":"x","data_dir":"d","raft_last_index":3,"peer":{"id":"B","address":"b:7000"}}`, ""},
		{`{"msg":"x","leader-address":""}`, "not snake_case"},
		{`{"msg":"x","votesNeeded":2}`, "not snake_case"},
		{`{"msg":"x","backoff time":1}`, "not snake_case"},
		{`{"msg":"x","peer":{"ID":"B"}}`, "not snake_case"},
		{`{"msg":"x","_tail":1}`, "not snake_case"},
		{`{"msg":"x","a__b":1}`, "not snake_case"},
		{`{"msg":"x","2fa":1}`, "not snake_case"},
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
