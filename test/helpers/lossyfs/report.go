package lossyfs

import (
	"fmt"
	"strings"
)

// Report is what a Cut dropped, file by file, in the order it took the changes back.
type Report struct {
	Files  []Loss
	Errors []string // changes it could not take back; a test should fail on any
}

// Loss is what a cut dropped of one path: bytes of pending writes, and the other changes
// (namespace operations, truncations) it took back.
type Loss struct {
	Path  string
	Bytes int64
	Ops   []string
}

func (r *Report) add(path string, bytes int64, ops ...string) {
	if bytes == 0 && len(ops) == 0 {
		return
	}
	for i := range r.Files {
		if r.Files[i].Path == path {
			r.Files[i].Bytes += bytes
			r.Files[i].Ops = append(r.Files[i].Ops, ops...)
			return
		}
	}
	r.Files = append(r.Files, Loss{Path: path, Bytes: bytes, Ops: ops})
}

func (r *Report) errorf(format string, args ...any) {
	r.Errors = append(r.Errors, fmt.Sprintf(format, args...))
}

// Bytes is how many bytes of pending writes the cut dropped.
func (r Report) Bytes() int64 {
	var n int64
	for _, l := range r.Files {
		n += l.Bytes
	}
	return n
}

// Ops is how many namespace operations and truncations the cut took back.
func (r Report) Ops() int {
	n := 0
	for _, l := range r.Files {
		n += len(l.Ops)
	}
	return n
}

// File is what the cut dropped of path (relative to Dir), if anything.
func (r Report) File(path string) (Loss, bool) {
	for _, l := range r.Files {
		if l.Path == path {
			return l, true
		}
	}
	return Loss{}, false
}

// Merge adds o's losses to r's, each path under prefix (a node's name, say).
func (r *Report) Merge(prefix string, o Report) {
	for _, l := range o.Files {
		r.add(prefix+l.Path, l.Bytes, l.Ops...)
	}
	for _, e := range o.Errors {
		r.Errors = append(r.Errors, prefix+e)
	}
}

// Summary is one line: the totals.
func (r Report) Summary() string {
	return fmt.Sprintf("%d bytes and %d namespace operations dropped in %d files", r.Bytes(), r.Ops(), len(r.Files))
}

// String is the summary, then a line per file.
func (r Report) String() string {
	var b strings.Builder
	b.WriteString(r.Summary())
	for _, l := range r.Files {
		fmt.Fprintf(&b, "\n  %s: %d bytes", l.Path, l.Bytes)
		if len(l.Ops) > 0 {
			fmt.Fprintf(&b, "; %s", strings.Join(l.Ops, ", "))
		}
	}
	for _, e := range r.Errors {
		fmt.Fprintf(&b, "\n  error: %s", e)
	}
	return b.String()
}
