package faulttable

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/idnode/idnode/test/e2e/e2etest"
)

// Check compares section name of docs/fault-table.md, written by writer (a test, as a reader
// would run it), with the measured table, failing t when their error types, codes or reasons
// differ. With IDNODE_WRITE_FAULT_TABLE=1 it writes the measured table into the section instead.
//
// A section sits between the lines "<!-- begin NAME: written by WRITER -->" and
// "<!-- end NAME -->"; the rest of the page is left as it is.
func Check(t testing.TB, name, writer string, measured Table) {
	t.Helper()
	root, err := e2etest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	page := filepath.Join(root, "docs", "fault-table.md")
	text, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	table := measured.Render()
	s, err := findSection(string(text), name, writer)
	if err != nil {
		t.Fatalf("%s: %v; measured:\n%s", page, err, table)
	}
	if os.Getenv("IDNODE_WRITE_FAULT_TABLE") == "1" {
		if err := os.WriteFile(page, []byte(s.with(table)), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	if withoutTimes(table) != withoutTimes(s.committed) {
		t.Errorf("docs/fault-table.md's %s table differs from what %s measured now "+
			"(IDNODE_WRITE_FAULT_TABLE=1 rewrites it); measured:\n%s\ncommitted:\n%s", name, writer, table, s.committed)
	}
}

// section is a page cut around one section's table.
type section struct {
	before, committed, after string // before ends with the begin line, after starts with the end line
}

func findSection(page, name, writer string) (section, error) {
	begin := fmt.Sprintf("<!-- begin %s: written by %s -->\n", name, writer)
	end := fmt.Sprintf("<!-- end %s -->", name)
	before, rest, ok1 := strings.Cut(page, begin)
	committed, after, ok2 := strings.Cut(rest, end)
	if !ok1 || !ok2 || strings.Contains(rest[len(committed)+len(end):], begin) {
		return section{}, fmt.Errorf("no single %s table between %q and %q", name, strings.TrimSpace(begin), end)
	}
	return section{before: before + begin, committed: committed, after: end + after}, nil
}

// with is the page with table in place of the committed one.
func (s section) with(table string) string { return s.before + table + s.after }
