// Package fanin chooses how one piece of work that serves many callers is traced (a node's
// batch, the Go client's folded call): one span, whose parent is the first sampled caller's
// span and which links every other sampled caller's. It depends on OpenTelemetry's API alone,
// so the Go client uses it without taking in the SDK.
package fanin

import "go.opentelemetry.io/otel/trace"

// MaxCallers bounds the callers one span serves as parent and links, the SDK's default limit
// of links on one span: a batch of thousands costs a bounded number of spans and links.
const MaxCallers = 128

// Callers gathers the traced callers of one piece of work. The zero value has none.
type Callers struct {
	parent trace.SpanContext
	links  []trace.Link
}

// Add takes one caller's span context and reports whether it is a caller to trace: sampled,
// not one added already (the items of one relayed batch share their caller's span), and
// within MaxCallers. The first becomes the parent, the others links.
func (c *Callers) Add(sc trace.SpanContext) bool {
	if !sc.IsSampled() || c.has(sc) || (c.parent.IsValid() && 1+len(c.links) >= MaxCallers) {
		return false
	}
	if !c.parent.IsValid() {
		c.parent = sc
	} else {
		c.links = append(c.links, trace.Link{SpanContext: sc})
	}
	return true
}

func (c *Callers) has(sc trace.SpanContext) bool {
	if c.parent.Equal(sc) {
		return true
	}
	for _, l := range c.links {
		if l.SpanContext.Equal(sc) {
			return true
		}
	}
	return false
}

// Parent is the first traced caller's span context; false when no caller is traced, and the
// work then makes no span.
func (c *Callers) Parent() (trace.SpanContext, bool) { return c.parent, c.parent.IsValid() }

// Links are the other traced callers' span contexts, as links of the work's span.
func (c *Callers) Links() []trace.Link { return c.links }
