package conformance_test

import "testing"

// The matchers are what every scenario's verdict rests on: each must refuse what it should.
func TestMatchers(t *testing.T) {
	s := saved{}
	if err := s.keep("r", map[string]any{"ids": []string{"orders/1-A"}, "first": 7}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		want, actual string
		ok           bool
	}{
		{`{"first": 7}`, `{"first": 7, "last": 9}`, true},
		{`{"first": 7}`, `{"first": 8}`, false},
		{`{"first": 7}`, `{"last": 7}`, false},
		{`["a", "b"]`, `["a", "b"]`, true},
		{`["a", "b"]`, `["a", "b", "c"]`, false},
		{`["a", "b"]`, `["b", "a"]`, false},
		{`{"$regex": "^users/[0-9]{19}-A$"}`, `"users/0000000000000000001-A"`, true},
		{`{"$regex": "^users/[0-9]{19}-A$"}`, `"users/1-A"`, false},
		{`{"$len": 2, "$distinct": true}`, `["x", "y"]`, true},
		{`{"$len": 2, "$distinct": true}`, `["x", "x"]`, false},
		{`{"$len": 3}`, `["x", "y"]`, false},
		{`{"$each": {"$gt": 5}}`, `[6, 7]`, true},
		{`{"$each": {"$gt": 5}}`, `[6, 5]`, false},
		{`{"$gte": {"$ref": "r.first"}}`, `"7"`, true},
		{`{"$lt": {"$ref": "r.first"}}`, `7`, false},
		{`{"$ref": "r.ids.0"}`, `"orders/1-A"`, true},
		{`{"$ref": "r.ids.0"}`, `"orders/2-A"`, false},
		{`{"$ref": "r.nothing"}`, `1`, false},
		{`{"$not": {"$regex": "x"}}`, `"abc"`, true},
		{`{"$not": {"$regex": "b"}}`, `"abc"`, false},
		{`{"$bogus": 1}`, `1`, false},
		{`9007199254740993`, `9007199254740993`, true},
		{`9007199254740993`, `9007199254740992`, false},
		{`true`, `"true"`, false},
	} {
		var want, actual any
		if err := decodeJSON([]byte(c.want), &want, false); err != nil {
			t.Fatal(err)
		}
		if err := decodeJSON([]byte(c.actual), &actual, false); err != nil {
			t.Fatal(err)
		}
		if err := s.match(want, actual, "result"); (err == nil) != c.ok {
			t.Errorf("match(%s, %s) = %v, want ok=%v", c.want, c.actual, err, c.ok)
		}
	}
}
