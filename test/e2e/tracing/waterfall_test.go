package tracing

import (
	"fmt"
	"html/template"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/idnode/idnode/test/e2e/e2etest"
	"github.com/idnode/idnode/test/helpers/headless"
)

// The Collector keeps no traces to look at, and Jaeger's UI is built with npm, outside its Go
// module, so the test draws the trace it read from the Collector's file the way Jaeger's trace
// view does: one row per span, indented under its parent, a bar from its start to its end on
// the trace's time line. The page, a file of the test's own,
// is opened in headless chromium, checked to show every span, and kept as a screenshot,
// tracing-trace.png in the artefacts directory (docs/TRACING.md shows one).
var waterfall = template.Must(template.New("trace").Parse(`<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>Trace {{.TraceID}}</title>
<style>
body { font: 13px system-ui, sans-serif; margin: 16px; color: #222; }
h1 { font-size: 16px; margin: 0 0 4px; }
p { margin: 0 0 12px; color: #555; }
table { border-collapse: collapse; width: 100%; }
td { padding: 3px 6px; border-bottom: 1px solid #eee; white-space: nowrap; }
td.name { width: 34%; }
td.where { width: 14%; color: #555; }
td.line { position: relative; }
.bar { position: absolute; top: 5px; height: 12px; min-width: 2px; border-radius: 2px; }
.client { background: #7a5cc7; } .A { background: #2f80c0; } .B { background: #2a9d6a; } .C { background: #d08a1f; }
td.took { width: 7%; text-align: right; color: #555; }
</style></head><body>
<h1>{{.Title}}</h1>
<p>trace {{.TraceID}} · {{len .Rows}} spans · {{.Total}} · received by an OpenTelemetry Collector</p>
<table>
{{range .Rows}}<tr class="span" data-name="{{.Name}}">
<td class="name" style="padding-left: {{.Indent}}px">{{.Name}}</td>
<td class="where">{{.Where}}</td>
<td class="line"><div class="bar {{.Class}}" style="left: {{.Left}}%; width: {{.Width}}%"></div></td>
<td class="took">{{.Took}}</td></tr>
{{end}}</table></body></html>
`))

type waterfallRow struct {
	Name, Where, Class, Took string
	Indent                   int
	Left, Width              string // percentages of the trace's time line
}

// drawTrace draws spans as a waterfall page, opens it in headless chromium, checks that
// every span shows, and writes the screenshot.
func drawTrace(t *testing.T, traceID string, spans []span, leader, follower string) {
	t.Helper()
	rows := treeOrder(spans)
	if len(rows) == 0 {
		t.Fatal("no span to draw")
	}
	first, last := rows[0].Start, rows[0].End
	for _, r := range rows {
		first, last = minTime(first, r.Start), maxTime(last, r.End)
	}
	total := max(last.Sub(first), time.Microsecond)
	percent := func(d time.Duration) string { return fmt.Sprintf("%.2f", 100*float64(d)/float64(total)) }
	data := struct {
		Title, TraceID, Total string
		Rows                  []waterfallRow
	}{Title: "One identity through a follower", TraceID: traceID, Total: total.Round(time.Microsecond).String()}
	for _, r := range rows {
		where, class := "node "+r.Instance, r.Instance
		switch {
		case r.Instance == leader:
			where += ", leader"
		case r.Instance == follower:
			where += ", follower"
		}
		if r.Service != "idnode" {
			where, class = r.Service, "client"
		}
		data.Rows = append(data.Rows, waterfallRow{
			Name: r.Name, Where: where, Class: class, Took: r.End.Sub(r.Start).Round(time.Microsecond).String(),
			Indent: 6 + 16*r.depth, Left: percent(r.Start.Sub(first)), Width: percent(r.End.Sub(r.Start)),
		})
	}
	var page strings.Builder
	if err := waterfall.Execute(&page, data); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "trace.html")
	if err := os.WriteFile(path, []byte(page.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	tab := headless.New(t, chromedp.WindowSize(1100, 200))
	if err := headless.Navigate(tab, "file://"+path, chromedp.WaitVisible(chromedp.CSS("table"))); err != nil {
		t.Fatalf("opening the drawn trace: %v", err)
	}
	shown, err := chromedp.Run(tab, chromedp.Text(chromedp.CSS("table")))
	if err != nil {
		t.Fatalf("reading the drawn trace: %v", err)
	}
	for _, st := range stages {
		if !strings.Contains(shown, st.name) {
			t.Errorf("the drawn trace does not show %s:\n%s", st.name, shown)
		}
	}
	headless.Screenshot(t, tab, filepath.Join(e2etest.Artefacts(t), "tracing-trace.png"))
}

func minTime(a, b time.Time) time.Time {
	if b.Before(a) {
		return b
	}
	return a
}

func maxTime(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
