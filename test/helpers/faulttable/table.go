// Package faulttable keeps the tables of docs/fault-table.md, each written by the test that
// measures it: a test renders what it measured as a Table, and Check compares the page's
// section with it (error types, codes and reasons; the times are measured, never compared) or,
// under IDNODE_WRITE_FAULT_TABLE=1, writes the section. The Go client's test and the Go ORM
// adapters' modules (which require this module through a replace) share it.
package faulttable

import (
	"fmt"
	"strings"
	"time"
)

// Row is what an application saw in one situation: how long the answer took, and the cells
// of the table's further columns.
type Row struct {
	Situation string
	Took      time.Duration
	Cells     []string
}

// Table is a section's table: the columns "situation" and "time to answer", then Columns.
type Table struct {
	Columns []string
	Rows    []Row
}

// Render is the table in Markdown, one line per row.
func (tb Table) Render() string {
	var b strings.Builder
	header := append([]string{"situation", "time to answer"}, tb.Columns...)
	fmt.Fprintf(&b, "| %s |\n|%s\n", strings.Join(header, " | "), strings.Repeat("---|", len(header)))
	for _, r := range tb.Rows {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", r.Situation, shownTime(r.Took), strings.Join(r.Cells, " | "))
	}
	return b.String()
}

// shownTime is a measured time as the table shows it.
func shownTime(d time.Duration) string {
	switch {
	case d < time.Millisecond:
		return "< 1 ms"
	case d < 100*time.Millisecond:
		return fmt.Sprintf("%d ms", d.Milliseconds())
	default:
		return fmt.Sprintf("%.1f s", d.Seconds())
	}
}

// withoutTimes blanks the time column of a rendered table, which is measured and not compared.
func withoutTimes(table string) string {
	lines := strings.Split(strings.TrimSpace(table), "\n")
	for i, line := range lines {
		if cells := strings.Split(line, "|"); len(cells) > 3 && i >= 2 {
			cells[2] = " "
			lines[i] = strings.Join(cells, "|")
		}
	}
	return strings.Join(lines, "\n")
}
