package main

import (
	"fmt"
	"strings"

	"github.com/idnode/idnode/docid"
)

// counterKind is which of idnode's counters an adopted table's keys continue.
type counterKind string

const (
	kindIdentity counterKind = "identity"
	kindHiLo     counterKind = "hilo"
)

// adoptTable is one --table: a table's key column and the counter whose numbers continue it
// (docs/adopting-a-table.md).
type adoptTable struct {
	schema, table, column string // schema "" is the connection's current schema
	kind                  counterKind
	name                  string // the identity counter or the HiLo tag
}

// String writes the table as the reports name it: schema.table.column, schema left out when
// not given.
func (t adoptTable) String() string {
	if t.schema == "" {
		return t.table + "." + t.column
	}
	return t.schema + "." + t.table + "." + t.column
}

// tablesFlag collects every --table.
type tablesFlag []adoptTable

func (f *tablesFlag) String() string {
	if f == nil {
		return ""
	}
	var s []string
	for _, t := range *f {
		s = append(s, fmt.Sprintf("%s=%s:%s", t, t.kind, t.name))
	}
	return strings.Join(s, " ")
}

func (f *tablesFlag) Set(v string) error {
	t, err := parseAdoptTable(v)
	if err != nil {
		return err
	}
	for _, had := range *f {
		if had.String() == t.String() {
			return fmt.Errorf("%s is given twice", t)
		}
	}
	*f = append(*f, t)
	return nil
}

// parseAdoptTable reads [schema.]table.column=identity|hilo[:name]; name is the table's by
// default. The names are taken as written, without SQL quoting (PostgreSQL's own spelling, so
// lower case for unquoted ones), and may not hold a dot, which would make the split ambiguous.
func parseAdoptTable(v string) (adoptTable, error) {
	where, counter, ok := strings.Cut(v, "=")
	if !ok {
		return adoptTable{}, fmt.Errorf("%q: want [schema.]table.column=identity|hilo[:name]", v)
	}
	parts := strings.Split(where, ".")
	var t adoptTable
	switch len(parts) {
	case 2:
		t.table, t.column = parts[0], parts[1]
	case 3:
		t.schema, t.table, t.column = parts[0], parts[1], parts[2]
	default:
		return adoptTable{}, fmt.Errorf("%q: want table.column or schema.table.column before =", v)
	}
	for _, p := range parts {
		if p == "" || strings.ContainsFunc(p, isControl) {
			return adoptTable{}, fmt.Errorf("%q: a schema, table or column name is empty or holds a control character", v)
		}
	}
	kind, name, named := strings.Cut(counter, ":")
	t.kind, t.name = counterKind(kind), t.table
	if named {
		t.name = name
	}
	if t.kind != kindIdentity && t.kind != kindHiLo {
		return adoptTable{}, fmt.Errorf("%q: the counter is identity or hilo, not %q", v, kind)
	}
	// A HiLo tag's rules about the separator are checked once the separator is known.
	if err := docid.ValidateName(string(t.kind)+" name", t.name); err != nil {
		return adoptTable{}, fmt.Errorf("%q: %w", v, err)
	}
	return t, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }
