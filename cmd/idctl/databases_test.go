package main

import (
	"bytes"
	"encoding/json"
	"testing"

	idnodev1 "github.com/idnode/idnode/proto/idnode/v1"
)

// TestDatabaseListJSONShowsTheOpaqueSettingOfEveryDatabase checks that db list --json has
// the three opaque fields for every database (docs/opaque-ids.md), with their zero values for
// a plain database and for one whose numeric IDs are plain.
func TestDatabaseListJSONShowsTheOpaqueSettingOfEveryDatabase(t *testing.T) {
	for _, d := range []*idnodev1.DatabaseStatus{
		{Name: "plain"},
		{Name: "shop", OpaqueCollections: []string{"orders"}, OpaqueKeyFingerprint: "0123456789abcdef"},
	} {
		var out bytes.Buffer
		if err := printJSON(&out, newDatabaseRow(d)); err != nil {
			t.Fatal(err)
		}
		var row map[string]json.RawMessage
		if err := json.Unmarshal(out.Bytes(), &row); err != nil {
			t.Fatalf("%s: %v\n%s", d.GetName(), err, out.Bytes())
		}
		want := map[string]string{
			"opaque_collections":     "[]",
			"opaque_numeric":         "false",
			"opaque_key_fingerprint": `""`,
		}
		if d.GetName() == "shop" {
			want["opaque_collections"] = `["orders"]`
			want["opaque_key_fingerprint"] = `"0123456789abcdef"`
		}
		for field, v := range want {
			got, ok := row[field]
			if !ok {
				t.Errorf("database %s: db list --json leaves out %s:\n%s", d.GetName(), field, out.Bytes())
				continue
			}
			if c := compact(t, got); c != v {
				t.Errorf("database %s: %s is %s, want %s", d.GetName(), field, c, v)
			}
		}
	}
}

func compact(t *testing.T, raw json.RawMessage) string {
	t.Helper()
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		t.Fatal(err)
	}
	return b.String()
}
